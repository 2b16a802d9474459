# SPDX-License-Identifier: Apache-2.0
# install(), the exported CMake package `libtrainer` and the relocatable pkg-config files.
# The programs (trainerctl, trainer-pod) are installed where they are defined, through
# trainer_install_program() (cmake/TrainerLayout.cmake).
#
# Two export sets, so that a consumer of the C ABI loads nothing that needs a C++ dependency:
#   libtrainer-c-targets    libtrainer::trainer (libtrainer.so, <trainer.h>)
#   libtrainer-cpp-targets  libtrainer::trainer_hpp (<trainer.hpp>), ::base, ::trainer_cpp,
#                           ::collectives [, ::mpi]: Boost.JSON, tl::expected, yaml-cpp, ...
include(CMakePackageConfigHelpers)

set(TRAINER_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/libtrainer"
    CACHE STRING "Where libtrainer-config.cmake is installed")

install(TARGETS trainer
  EXPORT libtrainer-c-targets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT devel
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(_trainer_cpp_targets trainer_hpp trainer_base trainer_core trainer_collectives)
if(TARGET trainer_mpi)
  list(APPEND _trainer_cpp_targets trainer_mpi)
endif()
install(TARGETS ${_trainer_cpp_targets}
  EXPORT libtrainer-cpp-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT devel)
foreach(_set IN ITEMS c cpp)
  install(EXPORT libtrainer-${_set}-targets NAMESPACE libtrainer::
    DESTINATION ${TRAINER_INSTALL_CMAKEDIR} COMPONENT devel)
  # Build-tree export, so add_subdirectory/FetchContent users and the bindings' tests see the
  # same target names without installing.
  export(EXPORT libtrainer-${_set}-targets NAMESPACE libtrainer::
    FILE ${PROJECT_BINARY_DIR}/libtrainer-${_set}-targets.cmake)
endforeach()

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

# pkg-config: `libtrainer` is the C ABI and needs nothing else; `libtrainer-hpp` is trainer.hpp
# (Requires libtrainer, adds the error model and Boost.JSON; Boost and tl::expected ship no .pc
# files, so their headers must be on the default include path or in CPPFLAGS). The installed
# files are relocatable (prefix derived from their own location); the -uninstalled ones point at
# the build tree and are what pkg-config picks first for the bindings.
file(RELATIVE_PATH TRAINER_PC_RELATIVE_PREFIX
  "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" TRAINER_PC_RELATIVE_PREFIX "${TRAINER_PC_RELATIVE_PREFIX}")
foreach(_pc IN ITEMS libtrainer libtrainer-hpp)
  set(TRAINER_PC_PREFIX "\${pcfiledir}/${TRAINER_PC_RELATIVE_PREFIX}")
  set(TRAINER_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(TRAINER_PC_BASE_LIBDIR "\${libdir}")
  set(TRAINER_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${_pc}.pc.in ${PROJECT_BINARY_DIR}/${_pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${_pc}.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT devel)

  set(TRAINER_PC_PREFIX "${PROJECT_BINARY_DIR}")
  set(TRAINER_PC_LIBDIR "$<TARGET_FILE_DIR:trainer>")
  set(TRAINER_PC_BASE_LIBDIR "$<TARGET_FILE_DIR:trainer_base>")
  set(TRAINER_PC_INCLUDEDIR "${PROJECT_SOURCE_DIR}/include")
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${_pc}.pc.in
    ${PROJECT_BINARY_DIR}/${_pc}-uninstalled.pc.tmp @ONLY)
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/pkgconfig/${_pc}-uninstalled.pc
    INPUT ${PROJECT_BINARY_DIR}/${_pc}-uninstalled.pc.tmp)
endforeach()
