# install.cmake: `cmake --install` puts the libraries, their headers, a CMake package
# (find_package(scout CONFIG [COMPONENTS http transformer mcp]): scout::scout, scout::http,
# scout::transformer, scout::mcp) and pkg-config files (scout.pc, scout-http.pc,
# scout-transformer.pc) under the prefix; with the tools built, the `scout` command too. A
# component left out (cmake/optional_components.cmake) installs nothing, and scoutConfig.cmake
# says so when it is asked for.
include(CMakePackageConfigHelpers)

set(SCOUT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/scout)

install(TARGETS scout scout_mcp EXPORT scoutTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/scout DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/include/scout/export.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/scout)
# The shipped data (cmake/data.cmake), where an installed libscout looks for it: <libdir>/../share/scout.
install(FILES ${SCOUT_MODEL_FILE} ${SCOUT_CATALOG_FILE} DESTINATION ${CMAKE_INSTALL_DATADIR}/scout)
if(SCOUT_RANK_FILES)
  install(FILES ${SCOUT_RANK_FILES} DESTINATION ${CMAKE_INSTALL_DATADIR}/scout/tokenizer)
endif()
install(EXPORT scoutTargets NAMESPACE scout:: DESTINATION ${SCOUT_CMAKE_DIR})
# Each component has its own export file, which scoutConfig.cmake reads only when the component
# is asked for: a core-only consumer never looks for libcurl.
foreach(component http transformer)
  if(component IN_LIST SCOUT_LEFT_OUT_COMPONENTS)
    continue()
  endif()
  install(TARGETS scout_${component} EXPORT scout_${component}Targets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT scout_${component}Targets NAMESPACE scout:: DESTINATION ${SCOUT_CMAKE_DIR})
endforeach()

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/scoutConfig.cmake.in
  ${PROJECT_BINARY_DIR}/scoutConfig.cmake INSTALL_DESTINATION ${SCOUT_CMAKE_DIR})
# 0.x: only the same minor version is compatible (see SCOUT_SOVERSION).
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(scout_compatibility SameMinorVersion)
else()
  set(scout_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/scoutConfigVersion.cmake
  COMPATIBILITY ${scout_compatibility})
install(FILES ${PROJECT_BINARY_DIR}/scoutConfig.cmake ${PROJECT_BINARY_DIR}/scoutConfigVersion.cmake
  DESTINATION ${SCOUT_CMAKE_DIR})

# scout.pc finds the prefix from its own folder (relocatable): one ".." per component of
# <libdir>/pkgconfig.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  message(FATAL_ERROR "scout: an absolute CMAKE_INSTALL_LIBDIR is not supported by scout.pc")
endif()
string(REGEX REPLACE "[^/]+" ".." SCOUT_PC_UP "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
# What a static libscout.a needs from the linker when the consumer links with a C compiler.
set(SCOUT_PC_PRIVATE_LIBS "-lstdc++ -lm -pthread")
configure_file(${PROJECT_SOURCE_DIR}/cmake/scout.pc.in ${PROJECT_BINARY_DIR}/scout.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/scout.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# The components' modules, of those built, require scout; a static libscout_http.a also needs
# libcurl.
set(scout_pc_http_description "scout's HTTP embedder (an OpenAI-compatible service, over libcurl)")
set(scout_pc_http_private_libs "-lcurl")
set(scout_pc_transformer_description "scout's transformer embedder (a BERT-family encoder run in process)")
set(scout_pc_transformer_private_libs "")
foreach(component http transformer)
  if(NOT component IN_LIST SCOUT_LEFT_OUT_COMPONENTS)
    set(SCOUT_PC_COMPONENT ${component})
    set(SCOUT_PC_COMPONENT_DESCRIPTION "${scout_pc_${component}_description}")
    set(SCOUT_PC_COMPONENT_PRIVATE_LIBS "${scout_pc_${component}_private_libs}")
    configure_file(${PROJECT_SOURCE_DIR}/cmake/scout-component.pc.in
      ${PROJECT_BINARY_DIR}/scout-${component}.pc @ONLY)
    install(FILES ${PROJECT_BINARY_DIR}/scout-${component}.pc
      DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
  endif()
endforeach()

if(TARGET scout_cli)
  install(TARGETS scout_cli scout_convert_vectors RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
