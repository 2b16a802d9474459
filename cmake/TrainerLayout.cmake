# SPDX-License-Identifier: Apache-2.0
# Where the programs are installed, and how they and libtrainer.so find each other there without
# absolute paths, so that an install prefix can be moved (docs/bindings.md, "Install layout"):
#   - every installed program gets RUNPATH $ORIGIN/<its folder -> the libdir>, and has it in the
#     build tree too, where programs and libtrainer.so are laid out as installed;
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

# trainer_build_tree_dir(<out> <install-dir>): where the build tree mirrors an install folder
# (relative to the prefix, or absolute inside it).
function(trainer_build_tree_dir out dir)
  if(IS_ABSOLUTE "${dir}")
    file(RELATIVE_PATH dir "${CMAKE_INSTALL_PREFIX}" "${dir}")
    if(dir MATCHES "^\\.\\.(/|$)")
      message(FATAL_ERROR "libtrainer installs its programs and library inside "
                          "CMAKE_INSTALL_PREFIX (${CMAKE_INSTALL_PREFIX}); ${dir} is outside it")
    endif()
  endif()
  set(${out} "${PROJECT_BINARY_DIR}/${dir}" PARENT_SCOPE)
endfunction()

# trainer_place_like_installed(<target> <install-dir> [<install-rpath>]): the build tree lays the
# program or library out as the install does (bin/, libexec/libtrainer/, lib/ under the build
# folder), and it carries its install RUNPATH already when it is linked. CMake would otherwise link
# it with the absolute build RPATH padded with empty entries (`:::`), room for cmake --install to
# write the install RUNPATH in place, and the loader reads an empty entry as the current
# directory: a build-tree program run from a folder holding a planted libmpi.so.40 loaded it
# (issue 19; tests/package/check_runpath.sh checks every ELF file of the build and install trees).
function(trainer_place_like_installed target dir)
  trainer_build_tree_dir(_out "${dir}")
  get_target_property(_type ${target} TYPE)
  if(_type STREQUAL "EXECUTABLE")
    set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${_out}")
  else()
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${_out}")
  endif()
  set_target_properties(${target} PROPERTIES BUILD_WITH_INSTALL_RPATH ON INSTALL_RPATH "${ARGN}")
endfunction()

# trainer_install_program(<target> <destination>): installs an executable into <destination>
# (component `tools`) with a RUNPATH that reaches the libdir from there; the build tree holds it at
# the same place relative to the build-tree libdir, with the same RUNPATH.
function(trainer_install_program target destination)
  trainer_install_relpath(_to_lib "${destination}" "${CMAKE_INSTALL_LIBDIR}")
  trainer_place_like_installed(${target} "${destination}" "\$ORIGIN/${_to_lib}")
  if(TRAINER_INSTALL)
    install(TARGETS ${target} RUNTIME DESTINATION "${destination}" COMPONENT tools)
  endif()
endfunction()
