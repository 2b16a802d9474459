# SPDX-License-Identifier: Apache-2.0
# Finds every dependency and selects the optional collectives backends.

find_package(Boost 1.81 REQUIRED CONFIG COMPONENTS json)
find_package(tl-expected 1.0 REQUIRED CONFIG)
find_package(yaml-cpp REQUIRED CONFIG)
find_package(Threads REQUIRED)
# libcrypto: SSH keys of MPI jobs (ECDSA P-521), the Flux curve (X25519) and the webhook
# certificates (lib/serving), OpenSSL 3 EVP only; libssl: the HTTPS server of lib/serving.
find_package(OpenSSL 3 REQUIRED COMPONENTS Crypto SSL)
# libcurl: the Kubernetes client (lib/kube/client). CURL_LOCK_DATA_CONNECT sharing needs 7.57,
# CURLOPT_CAINFO_BLOB 7.77.
find_package(CURL 7.77 REQUIRED)
set_package_properties(Boost PROPERTIES TYPE REQUIRED PURPOSE "Boost.JSON: the JSON model")
set_package_properties(tl-expected PROPERTIES TYPE REQUIRED PURPOSE "Result<T>")
set_package_properties(yaml-cpp PROPERTIES TYPE REQUIRED PURPOSE "YAML front end")
set_package_properties(CURL PROPERTIES TYPE REQUIRED PURPOSE "the Kubernetes client")
set_package_properties(OpenSSL PROPERTIES TYPE REQUIRED
  PURPOSE "libcrypto: SSH keys, Flux curve keys, webhook certificates, libssl: the HTTPS server")

# Debian's yaml-cpp 0.7 exports `yaml-cpp`; Conan/vcpkg 0.8 export `yaml-cpp::yaml-cpp`.
if(TARGET yaml-cpp::yaml-cpp)
  set(TRAINER_YAML_CPP_TARGET yaml-cpp::yaml-cpp)
else()
  set(TRAINER_YAML_CPP_TARGET yaml-cpp)
endif()

# --- Open MPI -------------------------------------------------------------------------------
set(TRAINER_HAVE_MPI OFF)
if(NOT TRAINER_WITH_MPI STREQUAL "OFF")
  if(TRAINER_WITH_MPI STREQUAL "ON")
    find_package(MPI REQUIRED COMPONENTS C)
  else()
    find_package(MPI QUIET COMPONENTS C)
  endif()
  if(MPI_C_FOUND)
    set(TRAINER_HAVE_MPI ON)
  endif()
endif()
# trainer_mpi (libtrainer::mpi): the MPI library that libtrainer_collectives.a links. The
# installed target is empty and libtrainer-config.cmake fills it with the MPI::MPI_<lang> that it
# finds for a language the consumer enabled (C, else CXX), so a C++-only project can link the
# collectives; in the build tree it is MPI::MPI_C.
if(TRAINER_HAVE_MPI)
  add_library(trainer_mpi INTERFACE)
  set_target_properties(trainer_mpi PROPERTIES EXPORT_NAME mpi)
  target_link_libraries(trainer_mpi INTERFACE $<BUILD_INTERFACE:MPI::MPI_C>)
endif()
add_feature_info(MPI TRAINER_HAVE_MPI "Open MPI collectives backend (TRAINER_WITH_MPI=${TRAINER_WITH_MPI})")

# --- CUDA + NCCL ----------------------------------------------------------------------------
# NCCL and the CUDA runtime are host APIs: the CUDA language is not enabled.
set(TRAINER_HAVE_NCCL OFF)
if(NOT TRAINER_WITH_NCCL STREQUAL "OFF")
  if(TRAINER_WITH_NCCL STREQUAL "ON")
    find_package(CUDAToolkit REQUIRED)
    find_package(NCCL REQUIRED)
  else()
    find_package(CUDAToolkit QUIET)
    if(CUDAToolkit_FOUND)
      find_package(NCCL QUIET)
    endif()
  endif()
  if(CUDAToolkit_FOUND AND NCCL_FOUND)
    set(TRAINER_HAVE_NCCL ON)
  endif()
endif()
add_feature_info(NCCL TRAINER_HAVE_NCCL "CUDA/NCCL collectives backend (TRAINER_WITH_NCCL=${TRAINER_WITH_NCCL})")
