# SPDX-License-Identifier: Apache-2.0
# install(), the exported CMake package `libtrainer` and the relocatable pkg-config files.
include(CMakePackageConfigHelpers)

set(TRAINER_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/libtrainer"
    CACHE STRING "Where libtrainer-config.cmake is installed")

install(TARGETS trainer trainer_core trainer_base trainer_collectives
  EXPORT libtrainer-targets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT devel
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT devel)
install(EXPORT libtrainer-targets NAMESPACE libtrainer:: DESTINATION ${TRAINER_INSTALL_CMAKEDIR}
  COMPONENT devel)

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/libtrainer-config.cmake.in
  ${PROJECT_BINARY_DIR}/libtrainer-config.cmake
  INSTALL_DESTINATION ${TRAINER_INSTALL_CMAKEDIR})
# 0.x: a minor release may break the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/libtrainer-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/libtrainer-config.cmake
              ${PROJECT_BINARY_DIR}/libtrainer-config-version.cmake
              ${CMAKE_CURRENT_LIST_DIR}/FindNCCL.cmake
  DESTINATION ${TRAINER_INSTALL_CMAKEDIR} COMPONENT devel)

# Build-tree export, so add_subdirectory/FetchContent users and the bindings' tests see the same
# target names without installing.
export(EXPORT libtrainer-targets NAMESPACE libtrainer::
  FILE ${PROJECT_BINARY_DIR}/libtrainer-targets.cmake)

# pkg-config: the installed file is relocatable (prefix derived from its own location); the
# uninstalled one points at the build tree and is what pkg-config picks first for the bindings.
file(RELATIVE_PATH TRAINER_PC_RELATIVE_PREFIX
  "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" TRAINER_PC_RELATIVE_PREFIX "${TRAINER_PC_RELATIVE_PREFIX}")
set(TRAINER_PC_PREFIX "\${pcfiledir}/${TRAINER_PC_RELATIVE_PREFIX}")
set(TRAINER_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
set(TRAINER_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/libtrainer.pc.in ${PROJECT_BINARY_DIR}/libtrainer.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/libtrainer.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT devel)

set(TRAINER_PC_PREFIX "${PROJECT_BINARY_DIR}")
set(TRAINER_PC_LIBDIR "$<TARGET_FILE_DIR:trainer>")
set(TRAINER_PC_INCLUDEDIR "${PROJECT_SOURCE_DIR}/include")
configure_file(${CMAKE_CURRENT_LIST_DIR}/libtrainer.pc.in
  ${PROJECT_BINARY_DIR}/libtrainer-uninstalled.pc.tmp @ONLY)
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/pkgconfig/libtrainer-uninstalled.pc
  INPUT ${PROJECT_BINARY_DIR}/libtrainer-uninstalled.pc.tmp)
