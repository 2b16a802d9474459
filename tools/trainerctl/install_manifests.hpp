// SPDX-License-Identifier: Apache-2.0
// What `trainerctl install` puts into a cluster, as upstream's manifests install Kubeflow Trainer
// (manifests/overlays/manager + runtimes at the commit libtrainer follows): the objects of
// install/*.yaml (compiled in) and the built-in ClusterTrainingRuntimes, for a chosen operator
// namespace, in the order they can be applied.
#pragma once

#include "trainer/error.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace trainerctl {

struct InstallSettings {
  std::string namespace_ = "kubeflow-system";  ///< the operator namespace
  std::string image;  ///< non-empty: the controller's Deployment runs this image
  std::vector<std::string> feature_gates;  ///< passed to the controller (`NAME=BOOL`)
};

struct InstallObjects {
  std::vector<boost::json::object> crds;  ///< applied first, then waited for (Established)
  std::vector<boost::json::object> rest;  ///< every other object, in apply order
};

/// The objects of an install with `settings`.
[[nodiscard]] trainer::Result<InstallObjects> install_objects(const InstallSettings& settings);

}  // namespace trainerctl
