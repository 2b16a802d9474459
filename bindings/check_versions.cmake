# SPDX-License-Identifier: Apache-2.0
# cmake -DSOURCE_DIR=<repo> -P check_versions.cmake
# Every place that states libtrainer's version outside CMake must agree with include/trainer.h:
# the Rust crates (Cargo workspace and the exact libtrainer-sys requirement), the hand-written
# version constants of libtrainer-sys, and the vcpkg port. The Conan recipe and the Go binding
# read the header themselves.
cmake_minimum_required(VERSION 3.25)
file(STRINGS "${SOURCE_DIR}/include/trainer.h" lines REGEX "^#define TRAINER_VERSION_(MAJOR|MINOR|PATCH) ")
foreach(line IN LISTS lines)
  string(REGEX MATCH "TRAINER_VERSION_([A-Z]+) ([0-9]+)" _ "${line}")
  set(v_${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
endforeach()
set(want "${v_MAJOR}.${v_MINOR}.${v_PATCH}")
if(NOT want MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
  message(FATAL_ERROR "cannot read the version from trainer.h (got '${want}')")
endif()

set(failures "")
macro(expect what file regex)
  file(READ "${SOURCE_DIR}/${file}" _text)
  if(NOT _text MATCHES "${regex}")
    list(APPEND failures "${what} (${file}) does not say ${want}")
  endif()
endmacro()

string(REPLACE "." "\\." w "${want}")
expect("Cargo workspace version" bindings/rust/Cargo.toml "\nversion = \"${w}\"")
expect("libtrainer -> libtrainer-sys requirement" bindings/rust/libtrainer/Cargo.toml "version = \"=${w}\"")
expect("libtrainer-plugin-example -> libtrainer requirement" bindings/rust/libtrainer-plugin-example/Cargo.toml "version = \"=${w}\"")
expect("libtrainer-sys TRAINER_VERSION_STRING" bindings/rust/libtrainer-sys/src/lib.rs "TRAINER_VERSION_STRING: &str = \"${w}\"")
expect("libtrainer-sys TRAINER_VERSION_MAJOR" bindings/rust/libtrainer-sys/src/lib.rs "TRAINER_VERSION_MAJOR: u32 = ${v_MAJOR};")
expect("libtrainer-sys TRAINER_VERSION_MINOR" bindings/rust/libtrainer-sys/src/lib.rs "TRAINER_VERSION_MINOR: u32 = ${v_MINOR};")
expect("libtrainer-sys TRAINER_VERSION_PATCH" bindings/rust/libtrainer-sys/src/lib.rs "TRAINER_VERSION_PATCH: u32 = ${v_PATCH};")
expect("vcpkg port version" ports/libtrainer/vcpkg.json "\"version-semver\": \"${w}\"")
expect("Rust lock file" bindings/rust/Cargo.lock "name = \"libtrainer-sys\"\nversion = \"${w}\"")

if(failures)
  list(JOIN failures "\n  " msg)
  message(FATAL_ERROR "version drift from trainer.h (${want}):\n  ${msg}")
endif()
message(STATUS "every packaging/binding version says ${want}")
