# SPDX-License-Identifier: Apache-2.0
# Compressed debug sections (-gz): the dev and asan trees of one checkout held 11 GB, two thirds
# of it DWARF, and CI ran out of disk linking the ASan tests. zlib-compressed sections shrink the
# debug info about three times; gdb, addr2line, llvm-symbolizer and the sanitizers' own
# symbolizer read them, so reports keep their file:line.
include(CheckCXXCompilerFlag)
include(CheckLinkerFlag)

option(TRAINER_COMPRESS_DEBUG_INFO "Compress the debug sections of objects and binaries (-gz)"
       ${PROJECT_IS_TOP_LEVEL})
if(TRAINER_COMPRESS_DEBUG_INFO)
  check_cxx_compiler_flag(-gz=zlib TRAINER_HAVE_GZ_COMPILE)
  check_linker_flag(CXX -gz=zlib TRAINER_HAVE_GZ_LINK)
  if(TRAINER_HAVE_GZ_COMPILE AND TRAINER_HAVE_GZ_LINK)
    add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-gz=zlib>)
    add_link_options(-gz=zlib)
  else()
    message(STATUS "TRAINER_COMPRESS_DEBUG_INFO: the toolchain has no -gz=zlib; debug info stays uncompressed")
  endif()
endif()
