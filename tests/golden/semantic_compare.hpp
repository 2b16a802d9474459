// SPDX-License-Identifier: Apache-2.0
//
// The conformance comparison rule (conformance-examples README): semantic YAML, keyed sets for
// env/volumes/volumeMounts/tolerations, quantities by value, absent == empty, JobSet suspend
// absent == false, server-populated metadata ignored, the runtime snapshot compared as parsed
// YAML, SSH key placeholders checked against the key the harness supplied.
#pragma once

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace golden {

struct CompareOptions {
  std::string ssh_private_key;  ///< PEM given to the pipeline's key generator
  std::string ssh_public_key;   ///< its authorized_keys line
};

/// Differences between the expected and the actual objects (matched by apiVersion, kind,
/// namespace, name), one readable line each; empty when they conform.
[[nodiscard]] std::vector<std::string> compare_object_sets(
    const std::vector<boost::json::value>& expected, const std::vector<boost::json::value>& actual,
    const CompareOptions& options);

/// Differences between two values under the rule, `path` prefixing the messages.
[[nodiscard]] std::vector<std::string> compare_values(const boost::json::value& expected,
                                                      const boost::json::value& actual,
                                                      const std::string& path);

}  // namespace golden
