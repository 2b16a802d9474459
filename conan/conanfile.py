# SPDX-License-Identifier: Apache-2.0
"""Conan 2 recipe for libtrainer, kept in-tree (conan/ beside the sources it packages).

    conan profile detect --exist-ok                  # once per CONAN_HOME
    conan create conan/ --build=missing              # with ConanCenter reachable
    conan create conan/ -nr -pr:a conan/profiles/debian12 --build=missing
                                                     # offline, Debian 12 system packages

Components (CMake targets, the same names as the project's own install(EXPORT); pkg-config):
    libtrainer::trainer      libtrainer.so, the C ABI (<trainer.h>); needs nothing else   libtrainer
    libtrainer::trainer_hpp  <trainer.hpp>, the C++ wrapper of the C ABI: trainer + base  libtrainer-hpp
    libtrainer::trainer_cpp  the C++ core, static (<trainer/*.hpp>)                     libtrainer-cpp
    libtrainer::collectives  the collectives data plane, static               libtrainer-collectives
    libtrainer::base         the error model (Boost.JSON, tl::expected), static       libtrainer-base
"""
import os
import re

from conan import ConanFile
from conan.errors import ConanInvalidConfiguration
from conan.tools.build import check_min_cppstd
from conan.tools.cmake import CMake, CMakeDeps, CMakeToolchain, cmake_layout
from conan.tools.files import copy, load, rmdir

required_conan_version = ">=2.0.9"


class LibtrainerConan(ConanFile):
    name = "libtrainer"
    description = "Embeddable C/C++ core of Kubeflow Trainer v2 with a stable C ABI"
    license = "Apache-2.0"
    url = "https://github.com/kubeflow/trainer"
    homepage = "https://github.com/kubeflow/trainer"
    topics = ("kubeflow", "kubernetes", "machine-learning", "training", "c-api")
    # libtrainer.so is always shared and the C++ core archives are always static (PIC): the
    # project has no shared/static switch, so the recipe offers none. The package is typed by its
    # shared library (so VirtualRunEnv puts lib/ on LD_LIBRARY_PATH); the requirements below set
    # transitive_libs because the static components need their dependencies at link time.
    package_type = "shared-library"
    settings = "os", "arch", "compiler", "build_type"
    options = {
        "with_mpi": [True, False],
        "with_nccl": [True, False],
        "tools": [True, False],
    }
    default_options = {
        "with_mpi": False,
        "with_nccl": False,
        "tools": True,
    }
    # Boost: the default boost package is accepted (Boost.JSON is one of its compiled libraries);
    # narrowing it with dozens of without_* options would tie this recipe to one boost recipe
    # revision. Only Boost.JSON is linked.

    def _source_root(self):
        # The recipe lives in <repo>/conan; the sources are one level up.
        return os.path.join(self.recipe_folder, "..")

    def set_version(self):
        if self.version:
            return
        header = load(self, os.path.join(self._source_root(), "include", "trainer.h"))
        parts = [re.search(rf"#define TRAINER_VERSION_{p} (\d+)", header) for p in ("MAJOR", "MINOR", "PATCH")]
        if not all(parts):
            raise ConanInvalidConfiguration("TRAINER_VERSION_MAJOR/MINOR/PATCH not found in include/trainer.h")
        self.version = ".".join(m.group(1) for m in parts)

    def export_sources(self):
        root = self._source_root()
        for pattern in ("CMakeLists.txt", "LICENSE*", "README.md"):
            copy(self, pattern, root, self.export_sources_folder)
        for folder in ("cmake", "include", "lib", "plugins", "tools"):
            copy(self, "*", os.path.join(root, folder), os.path.join(self.export_sources_folder, folder))

    def layout(self):
        cmake_layout(self, src_folder=".")

    def requirements(self):
        # Version ranges, so a [platform_requires] profile can satisfy them with system copies.
        # Boost.JSON and tl::expected appear in the installed C++ headers.
        self.requires("boost/[>=1.81 <2]", transitive_headers=True, transitive_libs=True)
        self.requires("tl-expected/[>=1.0 <2]", transitive_headers=True)
        # Not in any installed header, but libtrainer_cpp.a needs it at the consumer's link.
        self.requires("yaml-cpp/[>=0.7 <0.9]", transitive_libs=True)
        # libcrypto: SSH keys of MPI jobs, Flux curve keys and the webhook certificates (OpenSSL 3
        # EVP API only); libssl: the HTTPS server of lib/serving.
        self.requires("openssl/[>=3 <4]", transitive_libs=True)
        # The Kubernetes client (lib/kube/client): HTTP/1.1 and HTTP/2 over TLS.
        self.requires("libcurl/[>=7.77 <9]", transitive_libs=True)
        if self.options.with_mpi:
            self.requires("openmpi/[>=4.1 <6]", transitive_libs=True)
        # CUDA and NCCL are system prerequisites found by CMake (ConanCenter has no recipe).

    def validate(self):
        check_min_cppstd(self, 17)
        # The shared library is linked with a GNU ld version script.
        if self.settings.os not in ("Linux", "FreeBSD"):
            raise ConanInvalidConfiguration(f"{self.ref} is supported on Linux and FreeBSD only")
        if self.options.with_nccl and self.settings.os != "Linux":
            raise ConanInvalidConfiguration(f"{self.ref}:with_nccl=True requires Linux (CUDA)")

    def generate(self):
        tc = CMakeToolchain(self)
        tc.cache_variables["TRAINER_BUILD_TESTS"] = False
        tc.cache_variables["TRAINER_BUILD_EXAMPLES"] = False
        tc.cache_variables["TRAINER_BUILD_BENCHMARKS"] = False
        tc.cache_variables["TRAINER_BUILD_TOOLS"] = bool(self.options.tools)
        tc.cache_variables["TRAINER_INSTALL"] = True
        tc.cache_variables["TRAINER_WITH_MPI"] = "ON" if self.options.with_mpi else "OFF"
        tc.cache_variables["TRAINER_WITH_NCCL"] = "ON" if self.options.with_nccl else "OFF"
        tc.generate()
        CMakeDeps(self).generate()

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        cmake.build()

    def package(self):
        copy(self, "LICENSE*", self.source_folder, os.path.join(self.package_folder, "licenses"))
        CMake(self).install()
        # ConanCenter convention: Conan generates the CMake config and .pc files for consumers.
        rmdir(self, os.path.join(self.package_folder, "lib", "cmake"))
        rmdir(self, os.path.join(self.package_folder, "lib", "pkgconfig"))

    def _link(self, component, requirement, system_libs):
        """Makes `component` require `requirement` ("pkg::comp"). A dependency satisfied by
        [platform_requires] is absent from self.dependencies, and naming it in `requires` makes
        CMakeDeps fail (conan-io/docs#3908); such a system copy is linked by name instead."""
        try:
            self.dependencies[requirement.split("::")[0]]
        except KeyError:
            component.system_libs.extend(system_libs)
            return
        component.requires.append(requirement)

    def package_info(self):
        self.cpp_info.set_property("cmake_file_name", "libtrainer")
        # The aggregate of every component; `libtrainer.pc` itself is the C ABI component.
        self.cpp_info.set_property("pkg_config_name", "libtrainer-all")

        base = self.cpp_info.components["base"]
        base.set_property("cmake_target_name", "libtrainer::base")
        base.set_property("pkg_config_name", "libtrainer-base")
        base.libs = ["trainer_base"]
        self._link(base, "boost::json", ["boost_json"])
        self._link(base, "tl-expected::tl-expected", [])  # header-only

        collectives = self.cpp_info.components["collectives"]
        collectives.set_property("cmake_target_name", "libtrainer::collectives")
        collectives.set_property("pkg_config_name", "libtrainer-collectives")
        collectives.libs = ["trainer_collectives"]
        collectives.requires = ["base"]
        collectives.system_libs = ["pthread"]
        # The rendezvous store: HMAC-SHA256 and RAND_bytes.
        self._link(collectives, "openssl::crypto", ["crypto"])
        if self.options.with_mpi:
            self._link(collectives, "openmpi::openmpi", ["mpi"])
        if self.options.with_nccl:
            collectives.system_libs += ["nccl", "cudart"]

        core = self.cpp_info.components["trainer_cpp"]
        core.set_property("cmake_target_name", "libtrainer::trainer_cpp")
        core.set_property("pkg_config_name", "libtrainer-cpp")
        core.libs = ["trainer_cpp"]
        core.requires = ["base"]
        self._link(core, "yaml-cpp::yaml-cpp", ["yaml-cpp"])
        self._link(core, "openssl::crypto", ["crypto"])
        self._link(core, "openssl::ssl", ["ssl"])
        self._link(core, "libcurl::curl", ["curl"])

        capi = self.cpp_info.components["trainer"]
        capi.set_property("cmake_target_name", "libtrainer::trainer")
        capi.set_property("pkg_config_name", "libtrainer")
        capi.libs = ["trainer"]
        # libtrainer.so carries its dependencies privately; consumers link only -ltrainer.
        # With tools=True, bin/trainerctl reaches PATH through VirtualRunEnv (default bindirs).
        # Conan's toolchain sets CMAKE_INSTALL_LIBEXECDIR=bin, so the pod helper is
        # bin/libtrainer/trainer-pod; trainerctl and libtrainer.so find it relative to themselves.

        # trainer.hpp, header-only over the C ABI: it renders errors with the error model of
        # libtrainer_base.a (hidden inside libtrainer.so) and uses Boost.JSON and tl::expected.
        hpp = self.cpp_info.components["trainer_hpp"]
        hpp.set_property("cmake_target_name", "libtrainer::trainer_hpp")
        hpp.set_property("pkg_config_name", "libtrainer-hpp")
        hpp.requires = ["trainer", "base"]
        hpp.libdirs = []
        hpp.bindirs = []
