# component.cmake: scout_add_component(<name> <objects>): the library of a component
# (scout_<name>, scout::<name>) from the object library <objects>, on scout::scout.
#
# The component's sources use a few of the core's internals (UTF-8, whole-file reads, bounded
# JSON parsing). A shared libscout hides those, so a shared component compiles its own hidden
# copy of them (scout_component_support); a static one finds them in libscout.a.
function(scout_add_component name objects)
  if(SCOUT_SHARED)
    add_library(scout_${name} SHARED $<TARGET_OBJECTS:${objects}> $<TARGET_OBJECTS:scout_component_support>)
    if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
      # Only scout's API exported, as for libscout.so; and every symbol resolved at link time (a
      # missing internal fails here, not in a consumer), but in sanitizer and fuzzing builds,
      # whose runtime (__asan_*, __sanitizer_cov_*) comes with the program, not the library.
      target_link_options(scout_${name} PRIVATE
        "LINKER:--version-script=${PROJECT_SOURCE_DIR}/cmake/scout.map")
      if(NOT SCOUT_SANITIZE AND NOT SCOUT_FUZZ)
        target_link_options(scout_${name} PRIVATE "LINKER:--no-undefined")
      endif()
      set_target_properties(scout_${name} PROPERTIES LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/scout.map)
    endif()
  else()
    add_library(scout_${name} STATIC $<TARGET_OBJECTS:${objects}>)
  endif()
  add_library(scout::${name} ALIAS scout_${name})
  target_link_libraries(scout_${name} PUBLIC scout::scout)
  set_target_properties(scout_${name} PROPERTIES EXPORT_NAME ${name} VERSION ${PROJECT_VERSION}
    SOVERSION ${SCOUT_SOVERSION} POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
endfunction()

# scout_component_objects(<objects> <sources...>): a component's sources, compiled once like the
# core's (hidden visibility, position-independent, in unity batches), for both its installed
# library and scout_internal.
function(scout_component_objects objects)
  add_library(${objects} OBJECT ${ARGN})
  target_compile_features(${objects} PUBLIC cxx_std_20)
  target_include_directories(${objects}
    PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${objects} PRIVATE scout_warnings scout_sanitize nlohmann_json::nlohmann_json)
  target_compile_options(${objects} PRIVATE ${SCOUT_LIBRARY_COMPILE_OPTIONS})
  set_target_properties(${objects} PROPERTIES POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  scout_unity(${objects})
endfunction()

if(SCOUT_SHARED)
  add_library(scout_component_support OBJECT src/util/utf8.cpp src/util/file_io.cpp
    src/util/json_limits.cpp)
  target_compile_features(scout_component_support PRIVATE cxx_std_20)
  target_include_directories(scout_component_support
    PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(scout_component_support PRIVATE scout_warnings scout_sanitize nlohmann_json::nlohmann_json)
  target_compile_options(scout_component_support PRIVATE ${SCOUT_LIBRARY_COMPILE_OPTIONS})
  set_target_properties(scout_component_support PROPERTIES POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
endif()
