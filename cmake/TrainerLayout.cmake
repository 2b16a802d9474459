# SPDX-License-Identifier: Apache-2.0
# Where the programs are installed, and how they and libtrainer.so find each other there without
# absolute paths, so that an install prefix can be moved (docs/bindings.md, "Install layout"):
#   - every installed program gets RUNPATH $ORIGIN/<its folder -> the libdir>;
#   - the executor looks for trainer-pod at <the running program's folder>/<tools -> helper
#     folder> and at <libtrainer.so's folder>/<libdir -> helper folder> (lib/local/pod_launch.cpp).
# Included by lib/CMakeLists.txt; the functions are global.

set(TRAINER_INSTALL_TOOLSDIR "${CMAKE_INSTALL_BINDIR}" CACHE STRING
    "Where trainerctl is installed, relative to the prefix (the vcpkg port: tools/libtrainer)")
set(TRAINER_INSTALL_HELPERDIR "${CMAKE_INSTALL_LIBEXECDIR}/libtrainer" CACHE STRING
    "Where the pod helper trainer-pod is installed, relative to the prefix")

# trainer_install_relpath(<out> <from-dir> <to-dir>): the relative path from one install folder
# to another ("." when they are the same); each may be relative to the prefix or absolute.
function(trainer_install_relpath out from to)
  foreach(_dir IN ITEMS from to)
    if(IS_ABSOLUTE "${${_dir}}")
      set(_${_dir} "${${_dir}}")
    else()
      set(_${_dir} "${CMAKE_INSTALL_PREFIX}/${${_dir}}")
    endif()
  endforeach()
  file(RELATIVE_PATH _rel "${_from}" "${_to}")
  string(REGEX REPLACE "/$" "" _rel "${_rel}")
  if(_rel STREQUAL "")
    set(_rel ".")
  endif()
  set(${out} "${_rel}" PARENT_SCOPE)
endfunction()

# trainer_install_program(<target> <destination>): installs an executable into <destination>
# (component `tools`) with a RUNPATH that reaches the libdir from there. The build tree keeps
# CMake's absolute build RPATH.
function(trainer_install_program target destination)
  if(NOT TRAINER_INSTALL)
    return()
  endif()
  trainer_install_relpath(_to_lib "${destination}" "${CMAKE_INSTALL_LIBDIR}")
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "\$ORIGIN/${_to_lib}")
  install(TARGETS ${target} RUNTIME DESTINATION "${destination}" COMPONENT tools)
endfunction()
