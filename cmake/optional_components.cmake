# optional_components.cmake: decides, in this one place, which components are built.
#   SCOUT_WITH_HTTP         scout::http (HttpEmbedder), needs libcurl (Debian: libcurl4-openssl-dev)
#   SCOUT_WITH_TRANSFORMER  scout::transformer (TransformerEmbedder), needs Eigen 3.3 (libeigen3-dev)
# Left unset, an option is ON when its package is found, else OFF with a status line saying what
# is left out; set ON, a missing package is a configure error. The choice is cached: after
# installing a package, configure again with the option ON. The core needs neither.

# scout_optional_component(<option> <package> <what to install> <left out> <find_package arguments...>)
macro(scout_optional_component option package install left_out)
  if(NOT DEFINED ${option} OR ${option})
    find_package(${package} ${ARGN})
  endif()
  if(NOT DEFINED ${option})
    option(${option} "Build ${left_out} (needs ${package})" ${${package}_FOUND})
  elseif(${option} AND NOT ${package}_FOUND)
    message(FATAL_ERROR "${option} is ON but ${package} was not found: install ${install}, or "
      "configure with -D${option}=OFF to build scout without ${left_out}")
  endif()
  if(NOT ${option})
    message(STATUS "${option} is OFF (${package} not found or turned off): ${left_out} is not "
      "built, nor its tests; its embedder specs are refused")
  endif()
endmacro()

scout_optional_component(SCOUT_WITH_HTTP CURL "libcurl (Debian: libcurl4-openssl-dev)"
  "scout::http (the http embedder)")
scout_optional_component(SCOUT_WITH_TRANSFORMER Eigen3 "Eigen 3.3 (Debian: libeigen3-dev)"
  "scout::transformer (the transformer embedder)" 3.3 NO_MODULE)

# The components left out, by name (http, transformer): not installed, refused by
# scoutConfig.cmake, and the tests of the bindings (SCOUT_LEFT_OUT in their environment) check
# the refusal instead of the embedder.
set(SCOUT_LEFT_OUT_COMPONENTS "")
if(NOT SCOUT_WITH_HTTP)
  list(APPEND SCOUT_LEFT_OUT_COMPONENTS http)
endif()
if(NOT SCOUT_WITH_TRANSFORMER)
  list(APPEND SCOUT_LEFT_OUT_COMPONENTS transformer)
endif()
string(REPLACE ";" " " SCOUT_LEFT_OUT_WORDS "${SCOUT_LEFT_OUT_COMPONENTS}")

# What the programs, tests and bindings of this tree read to offer an embedder or say why not:
# built_components.hpp (SCOUT_WITH_HTTP, SCOUT_WITH_TRANSFORMER as 0 or 1, and the messages).
configure_file(${PROJECT_SOURCE_DIR}/cmake/built_components.hpp.in
  ${PROJECT_BINARY_DIR}/built_components/built_components.hpp)
add_library(scout_built_components INTERFACE)
target_include_directories(scout_built_components INTERFACE
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/built_components>)
