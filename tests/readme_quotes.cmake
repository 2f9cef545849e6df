# readme_quotes.cmake: -DREADME=<README.md> -DFILES=<a;b;...>: fails unless README.md contains
# each file whole, so the README's examples are the programs the tests build and run.
file(READ "${README}" readme)
foreach(path IN LISTS FILES)
  file(READ "${path}" text)
  string(FIND "${readme}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "README.md does not quote ${path} as it is")
  endif()
endforeach()
message(STATUS "README.md quotes every quickstart")
