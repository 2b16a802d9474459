# SPDX-License-Identifier: Apache-2.0
# Unity builds for the targets with many sources (the library's layers, the C ABI, the
# collectives, trainerctl and the test programs of several sources): CMake compiles their sources
# in batches (CMAKE_UNITY_BUILD_BATCH_SIZE, 8 by default), one compiler run per batch, so the
# Boost, yaml-cpp and Catch2 headers are parsed and their templates instantiated once per batch
# instead of once per file (tests/unit/api under the asan preset: 76 s -> 28 s of compiler time).
# With it a cold ./.ci/run on two cores takes about 35 minutes, of which the dev, asan and fuzz
# trees build in 6, 10 and 3 (the last CI run without it took 46).
#
# The sources of one target therefore must not define the same name at file scope (in an
# unnamed namespace or `static`) twice: what they share comes from one header (lib/api/ascii.hpp,
# lib/capi/capi.hpp, ...). The dev, asan and fuzz presets turn this on; a plain build, and the
# Conan package's build (tests/package), compile every file alone, which keeps each source
# complete in its own includes.
option(TRAINER_UNITY_BUILD "Compile the larger targets' sources in batches (unity builds)" OFF)

# trainer_unity(<target>...): a unity build of each target when TRAINER_UNITY_BUILD is on.
function(trainer_unity)
  if(NOT TRAINER_UNITY_BUILD)
    return()
  endif()
  foreach(target IN LISTS ARGN)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON)
    # GCC takes every .cpp of a batch after the first for a header and then warns that a class
    # of the file (an Impl) has a member whose type is in the file's unnamed namespace.
    target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wno-subobject-linkage>)
  endforeach()
endfunction()
