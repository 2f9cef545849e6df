# data.cmake: the data scout ships, found at run time relative to the binary holding scout's code
# (src/util/data_dir.hpp): the static word model and the example catalog of data/, and the token
# counter's BPE rank files (downloaded by scripts/fetch.d/20-tokenizer.sh, not in the repository).
#
#   SCOUT_MODEL_FILE, SCOUT_CATALOG_FILE, SCOUT_RANK_FILES (empty when not found)
#   SCOUT_CACHE_FOLDER     the fetchers' cache folder
#   scout_stage_data(<target> <dir>)
#                          a target copying them into <dir> (<dir>/tokenizer for the rank files)
#
# A top-level build stages them into <build>/<datadir>/scout, next to bin/ and <libdir>/, so
# programs run from the build tree find them as installed ones do; install.cmake installs them
# into <prefix>/<datadir>/scout.

# INTERNAL cache entries, so that scout_stage_data() works from any directory, a parent
# project's included.
set(SCOUT_MODEL_FILE ${PROJECT_SOURCE_DIR}/data/scout-static-256d.swm CACHE INTERNAL "")
# The bundled example catalog (650 tools): `scout synth` grows it by default, and a user can try
# `scout search --catalog <prefix>/share/scout/enterprise_catalog.json` with nothing else.
set(SCOUT_CATALOG_FILE ${PROJECT_SOURCE_DIR}/data/enterprise_catalog.json CACHE INTERNAL "")

# The fetchers' cache folder (scripts/fetch.d/), SCOUT_CACHE_FOLDER: $SCOUT_CACHE_DIR, else
# $XDG_CACHE_HOME/scout, else ~/.cache/scout.
if(DEFINED ENV{SCOUT_CACHE_DIR} AND NOT "$ENV{SCOUT_CACHE_DIR}" STREQUAL "")
  set(SCOUT_CACHE_FOLDER "$ENV{SCOUT_CACHE_DIR}")
elseif(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
  set(SCOUT_CACHE_FOLDER "$ENV{XDG_CACHE_HOME}/scout")
else()
  set(SCOUT_CACHE_FOLDER "$ENV{HOME}/.cache/scout")
endif()
# Where the rank files are taken from: SCOUT_TOKENIZER_DIR, else the cache folder's tokenizer/.
if(DEFINED ENV{SCOUT_TOKENIZER_DIR} AND NOT "$ENV{SCOUT_TOKENIZER_DIR}" STREQUAL "")
  set(scout_rank_default "$ENV{SCOUT_TOKENIZER_DIR}")
else()
  set(scout_rank_default "${SCOUT_CACHE_FOLDER}/tokenizer")
endif()
set(SCOUT_TOKENIZER_DIR "${scout_rank_default}" CACHE PATH
  "Folder of cl100k_base.tiktoken and o200k_base.tiktoken, shipped with scout (scripts/fetch.d/20-tokenizer.sh)")

set(scout_rank_files "")
foreach(encoding cl100k_base o200k_base)
  if(EXISTS "${SCOUT_TOKENIZER_DIR}/${encoding}.tiktoken")
    list(APPEND scout_rank_files "${SCOUT_TOKENIZER_DIR}/${encoding}.tiktoken")
  endif()
endforeach()
list(LENGTH scout_rank_files scout_rank_count)
if(scout_rank_count EQUAL 2)
  set(SCOUT_RANK_FILES "${scout_rank_files}" CACHE INTERNAL "")
else()
  set(SCOUT_RANK_FILES "" CACHE INTERNAL "")
  message(WARNING "scout: the BPE rank files are not in ${SCOUT_TOKENIZER_DIR} (run "
    "scripts/fetch.d/20-tokenizer.sh, or set -DSCOUT_TOKENIZER_DIR=); they are left out of the "
    "build tree and the install, so token counts need SCOUT_TOKENIZER_DIR at run time")
endif()

function(scout_stage_data target dir)
  set(outputs ${dir}/scout-static-256d.swm ${dir}/enterprise_catalog.json)
  set(commands COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${CMAKE_COMMAND} -E copy_if_different ${SCOUT_MODEL_FILE} ${SCOUT_CATALOG_FILE} ${dir}/)
  if(SCOUT_RANK_FILES)
    foreach(file IN LISTS SCOUT_RANK_FILES)
      get_filename_component(name ${file} NAME)
      list(APPEND outputs ${dir}/tokenizer/${name})
    endforeach()
    list(APPEND commands COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}/tokenizer
      COMMAND ${CMAKE_COMMAND} -E copy_if_different ${SCOUT_RANK_FILES} ${dir}/tokenizer/)
  endif()
  add_custom_command(OUTPUT ${outputs} ${commands}
    DEPENDS ${SCOUT_MODEL_FILE} ${SCOUT_CATALOG_FILE} ${SCOUT_RANK_FILES} VERBATIM
    COMMENT "Staging scout's data in ${dir}")
  add_custom_target(${target} ALL DEPENDS ${outputs})
endfunction()

if(PROJECT_IS_TOP_LEVEL)
  scout_stage_data(scout_data ${PROJECT_BINARY_DIR}/${CMAKE_INSTALL_DATADIR}/scout)
  add_dependencies(scout_objects scout_data)
endif()
