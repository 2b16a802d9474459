# SPDX-License-Identifier: Apache-2.0
# The layers of the core (docs/architecture.md, "Layers") as CMake targets, so that the build
# enforces what the document says:
#   trainer_layer_<name>_headers  INTERFACE: the layer's own private headers and nothing else,
#                                 under build/layers/<name>/ (symbolic links to lib/), plus the
#                                 headers targets of the layers it may use.
#   trainer_layer_<name>          OBJECT: the layer's sources, compiled against those only.
# A source that includes a private header of a layer it does not depend on does not compile: the
# header is on no include path it has. `tests/architecture/check_layers.py` checks the other half
# (no object file of a layer refers to a symbol defined by a layer above it) and lists each
# layer's includes. libtrainer_cpp.a (trainer_core) is the union of the layers' objects.

set(TRAINER_LAYER_ROOT "${PROJECT_BINARY_DIR}/layers")

# trainer_layer(NAME
#   HEADERS <dir relative to the source tree>...   folders whose *.hpp the layer owns; a header
#                                                  is included by its path below the folder's
#                                                  top (lib/api/x.hpp as "api/x.hpp",
#                                                  plugins/mpi/y.hpp as "mpi/y.hpp")
#   EXCLUDE <dir relative to the source tree>...   sub-folders owned by another layer
#   DEPENDS <layer>...)                            the layers below it that it may use
function(trainer_layer name)
  cmake_parse_arguments(L "" "" "HEADERS;EXCLUDE;DEPENDS" ${ARGN})
  trainer_layer_headers(${name} ${ARGN})

  add_library(trainer_layer_${name} OBJECT)
  set_target_properties(trainer_layer_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(trainer_layer_${name} PUBLIC trainer_layer_${name}_headers)
  trainer_set_warnings(trainer_layer_${name})
  trainer_unity(trainer_layer_${name})
  target_sources(trainer_core PRIVATE $<TARGET_OBJECTS:trainer_layer_${name}>)

  set_property(GLOBAL APPEND PROPERTY TRAINER_LAYERS ${name})
  set_property(GLOBAL PROPERTY TRAINER_LAYER_${name}_DEPENDS "${L_DEPENDS}")
  set_property(GLOBAL PROPERTY TRAINER_LAYER_${name}_HEADERS "${L_HEADERS}")
  set_property(GLOBAL PROPERTY TRAINER_LAYER_${name}_EXCLUDE "${L_EXCLUDE}")
endfunction()

# The headers half alone, for a library built on its own (the collectives): the target
# trainer_layer_<name>_headers, arguments as trainer_layer's.
function(trainer_layer_headers name)
  cmake_parse_arguments(L "" "" "HEADERS;EXCLUDE;DEPENDS" ${ARGN})
  set(root "${TRAINER_LAYER_ROOT}/${name}")
  file(REMOVE_RECURSE "${root}")
  foreach(dir IN LISTS L_HEADERS)
    string(REGEX REPLACE "/.*" "" top "${dir}")
    file(GLOB_RECURSE headers CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/${dir}/*.hpp")
    foreach(header IN LISTS headers)
      set(skip FALSE)
      foreach(excluded IN LISTS L_EXCLUDE)
        if(header MATCHES "^${PROJECT_SOURCE_DIR}/${excluded}/")
          set(skip TRUE)
        endif()
      endforeach()
      if(skip)
        continue()
      endif()
      file(RELATIVE_PATH rel "${PROJECT_SOURCE_DIR}/${top}" "${header}")
      get_filename_component(parent "${root}/${rel}" DIRECTORY)
      file(MAKE_DIRECTORY "${parent}")
      file(CREATE_LINK "${header}" "${root}/${rel}" SYMBOLIC)
    endforeach()
  endforeach()

  add_library(trainer_layer_${name}_headers INTERFACE)
  target_include_directories(trainer_layer_${name}_headers INTERFACE
    "$<BUILD_INTERFACE:${root}>" "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>")
  target_link_libraries(trainer_layer_${name}_headers INTERFACE trainer_base)
  foreach(dep IN LISTS L_DEPENDS)
    target_link_libraries(trainer_layer_${name}_headers INTERFACE trainer_layer_${dep}_headers)
  endforeach()
endfunction()

# Libraries a layer's sources use: compiled against by the layer, linked by every consumer of
# libtrainer_cpp.a (a static archive carries no dependencies of its own).
function(trainer_layer_link name)
  target_link_libraries(trainer_layer_${name} PRIVATE ${ARGN})
  target_link_libraries(trainer_core PRIVATE ${ARGN})
endfunction()

# build/layers.json: each layer's folders, the layers it may use (transitively) and its object
# files, for tests/architecture/check_layers.py.
function(trainer_write_layer_graph)
  get_property(layers GLOBAL PROPERTY TRAINER_LAYERS)
  set(entries "")
  foreach(name IN LISTS layers)
    get_property(deps GLOBAL PROPERTY TRAINER_LAYER_${name}_DEPENDS)
    get_property(dirs GLOBAL PROPERTY TRAINER_LAYER_${name}_HEADERS)
    get_property(excluded GLOBAL PROPERTY TRAINER_LAYER_${name}_EXCLUDE)
    list(TRANSFORM deps PREPEND "\"")
    list(TRANSFORM deps APPEND "\"")
    list(JOIN deps ", " deps_json)
    list(TRANSFORM dirs PREPEND "\"")
    list(TRANSFORM dirs APPEND "\"")
    list(JOIN dirs ", " dirs_json)
    list(TRANSFORM excluded PREPEND "\"")
    list(TRANSFORM excluded APPEND "\"")
    list(JOIN excluded ", " excluded_json)
    set(objects "$<JOIN:$<TARGET_OBJECTS:trainer_layer_${name}>,\", \">")
    list(APPEND entries "  \"${name}\": {\"depends\": [${deps_json}], \"dirs\": [${dirs_json}], \"exclude\": [${excluded_json}], \"objects\": [\"${objects}\"]}")
  endforeach()
  list(JOIN entries ",\n" body)
  file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/layers.json" CONTENT "{\n${body}\n}\n")
endfunction()
