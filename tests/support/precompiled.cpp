// precompiled.cpp: the one source of scout_test_pch, the target whose precompiled header
// (Catch2, nlohmann/json: tests/CMakeLists.txt) the test programs reuse. It holds no code.
