// SPDX-License-Identifier: Apache-2.0
// The collectives data plane (libtrainer::collectives) from a C++-only project: links the MPI
// backend when the package was built with it, and reads a bootstrap plan from an environment.
#include <trainer/collectives.hpp>

#include <iostream>
#include <map>
#include <string>

int main() {
  namespace coll = trainer::collectives;
  if (coll::backend_compiled(coll::Backend::kMpi) != static_cast<bool>(LIBTRAINER_HAVE_MPI)) {
    std::cerr << "libtrainer_HAVE_MPI disagrees with the library\n";
    return 1;
  }
  const std::map<std::string, std::string> env = {{"OMPI_COMM_WORLD_SIZE", "2"},
                                                  {"OMPI_COMM_WORLD_RANK", "1"},
                                                  {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                                  {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}};
  auto plan = coll::plan_from_env([&env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
  if (!plan || plan->method != coll::BootstrapPlan::Method::kMpi || plan->rank != 1) {
    std::cerr << "unexpected bootstrap plan\n";
    return 1;
  }
  std::cout << "consumer_collectives: MPI backend " << (LIBTRAINER_HAVE_MPI ? "in" : "not in")
            << " the package\n";
  return 0;
}
