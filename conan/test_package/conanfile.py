# SPDX-License-Identifier: Apache-2.0
import os
import shutil

from conan import ConanFile
from conan.tools.build import can_run
from conan.tools.cmake import CMake, cmake_layout
from conan.tools.files import save

# A one-pod TrainJob on an inline runtime: `trainerctl run` of it needs the pod helper that the
# package installs (found relative to trainerctl, wherever the package layout puts them).
TINY_JOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: tiny, namespace: default}
spec:
  mlPolicy: {numNodes: 1}
  template:
    spec:
      replicatedJobs:
        - name: node
          replicas: 1
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
            spec:
              backoffLimit: 0
              template:
                spec:
                  containers:
                    - name: node
                      image: unused
                      command: [/bin/sh, -c, "echo test_package-pod-ran"]
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tiny, namespace: default}
spec:
  runtimeRef: {name: tiny, apiGroup: trainer.kubeflow.org, kind: TrainingRuntime}
"""


class LibtrainerTestConan(ConanFile):
    settings = "os", "arch", "compiler", "build_type"
    generators = "CMakeDeps", "CMakeToolchain", "VirtualRunEnv"
    test_type = "explicit"

    def requirements(self):
        self.requires(self.tested_reference_str)

    def layout(self):
        cmake_layout(self)

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        cmake.build()

    def test(self):
        if not can_run(self):
            return
        for exe in ("test_package_c", "test_package_cpp"):
            self.run(os.path.join(self.cpp.build.bindir, exe), env="conanrun")
        if self.dependencies[self.tested_reference_str].options.tools:
            # trainerctl from the package's bin (on PATH through VirtualRunEnv), no namespaces.
            job = os.path.join(self.build_folder, "tiny.yaml")
            run_dir = os.path.join(self.build_folder, "tiny-run")
            save(self, job, TINY_JOB)
            shutil.rmtree(run_dir, ignore_errors=True)
            self.run("trainerctl version", env="conanrun")
            self.run(f'trainerctl run -f "{job}" --run-dir "{run_dir}" --isolation host',
                     env="conanrun")
