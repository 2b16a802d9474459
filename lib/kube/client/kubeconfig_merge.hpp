// SPDX-License-Identifier: Apache-2.0
//
// Reading kubeconfig files and merging them as client-go's loader does: named entries by name,
// the first file that defines a name wins with the whole entry; the first non-empty
// `current-context` wins. Each entry remembers the folder of the file that defined it, against
// which its relative paths resolve.
#pragma once

#include "trainer/error.hpp"

#include <boost/json/object.hpp>

#include <map>
#include <string>
#include <vector>

namespace trainer::kube::detail {

struct KubeconfigEntry {
  boost::json::object body;  ///< `cluster`, `user` or `context` of the named entry
  std::string file;          ///< the file that defined it
  std::string dir;           ///< that file's folder
};

struct MergedKubeconfig {
  std::map<std::string, KubeconfigEntry> clusters;
  std::map<std::string, KubeconfigEntry> users;
  std::map<std::string, KubeconfigEntry> contexts;
  std::string current_context;
  std::vector<std::string> files;  ///< the files that were read, in order

  /// client-go's IsConfigEmpty: nothing was defined.
  [[nodiscard]] bool empty() const {
    return clusters.empty() && users.empty() && contexts.empty() && current_context.empty();
  }
};

/// Merges `text` (the content of `file`) into `merged`; entries already present are kept.
/// kParse when the text is not a kubeconfig, kInvalidArgument for a name defined twice in it;
/// messages start with `error loading config file "<file>": `.
[[nodiscard]] Result<void> merge_kubeconfig_text(MergedKubeconfig& merged, const std::string& file,
                                                 const std::string& text);

/// Reads and merges `files` in order. Missing files are skipped unless `must_exist` (the
/// explicit `--kubeconfig`); unreadable and undecodable files are errors.
[[nodiscard]] Result<MergedKubeconfig> load_kubeconfig_files(const std::vector<std::string>& files,
                                                             bool must_exist);

}  // namespace trainer::kube::detail
