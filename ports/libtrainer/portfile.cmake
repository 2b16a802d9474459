# SPDX-License-Identifier: Apache-2.0
# Overlay port: vcpkg install libtrainer --overlay-ports=<repo>/ports
# It builds the checkout this port sits in (<repo>/ports/libtrainer -> <repo>). A port published
# to a registry would use vcpkg_from_github(OUT_SOURCE_PATH SOURCE_PATH REPO ... REF ... SHA512 ...).
get_filename_component(SOURCE_PATH "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
if(NOT EXISTS "${SOURCE_PATH}/include/trainer.h")
  message(FATAL_ERROR "libtrainer overlay port: no checkout at ${SOURCE_PATH}")
endif()

# libtrainer.so is always shared (the C ABI) and the C++ core archives always static; the
# project has no switch between them.
vcpkg_check_linkage(ONLY_DYNAMIC_LIBRARY)

vcpkg_check_features(OUT_FEATURE_OPTIONS FEATURE_OPTIONS
  FEATURES
    mpi  TRAINER_WITH_MPI
    nccl TRAINER_WITH_NCCL)
# This yields -DTRAINER_WITH_MPI=ON|OFF: vcpkg builds must not AUTO-detect what the system has.

# Both programs go to tools/libtrainer, vcpkg's place for a port's executables: trainerctl
# finds trainer-pod beside itself, libtrainer.so finds it at lib/../tools/libtrainer, and both
# get RUNPATH $ORIGIN/../../lib (cmake/TrainerLayout.cmake). They are installed there directly
# instead of through vcpkg_copy_tools, which would leave trainer-pod behind and the RUNPATH
# wrong. The debug build only needs the helper (for debug/lib/libtrainer.so).
vcpkg_cmake_configure(
  SOURCE_PATH "${SOURCE_PATH}"
  OPTIONS
    ${FEATURE_OPTIONS}
    -DTRAINER_BUILD_TESTS=OFF
    -DTRAINER_BUILD_EXAMPLES=OFF
    -DTRAINER_BUILD_BENCHMARKS=OFF
    -DTRAINER_INSTALL=ON
    -DTRAINER_WARNINGS_AS_ERRORS=OFF
    -DTRAINER_INSTALL_TOOLSDIR=tools/${PORT}
    -DTRAINER_INSTALL_HELPERDIR=tools/${PORT}
  OPTIONS_RELEASE
    -DTRAINER_BUILD_TOOLS=ON
  OPTIONS_DEBUG
    -DTRAINER_BUILD_TOOLS=OFF)
vcpkg_cmake_install()

vcpkg_cmake_config_fixup(PACKAGE_NAME libtrainer CONFIG_PATH lib/cmake/libtrainer)
vcpkg_fixup_pkgconfig()

file(REMOVE_RECURSE "${CURRENT_PACKAGES_DIR}/debug/include" "${CURRENT_PACKAGES_DIR}/debug/share")
file(INSTALL "${CMAKE_CURRENT_LIST_DIR}/usage" DESTINATION "${CURRENT_PACKAGES_DIR}/share/${PORT}")
if(EXISTS "${SOURCE_PATH}/LICENSE")
  vcpkg_install_copyright(FILE_LIST "${SOURCE_PATH}/LICENSE")
else()
  # Until the repository carries a LICENSE file: the SPDX identifier every source declares.
  file(WRITE "${CURRENT_PACKAGES_DIR}/share/${PORT}/copyright"
    "libtrainer is licensed under the Apache License, Version 2.0 (SPDX: Apache-2.0).\n")
endif()
