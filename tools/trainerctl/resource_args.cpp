// SPDX-License-Identifier: Apache-2.0
#include "resource_args.hpp"

#include <algorithm>

namespace trainerctl {
namespace {

trainer::Error invalid(std::string message) {
  return trainer::Error(trainer::ErrorCode::kInvalidArgument, std::move(message));
}

// `a,b,a` -> a, b (kubectl's SplitResourceArgument: split at commas, duplicates dropped).
std::vector<std::string> split_types(const std::string& arg) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = arg.find(',', start);
    std::string type = arg.substr(start, comma - start);
    if (std::find(out.begin(), out.end(), type) == out.end()) out.push_back(std::move(type));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

trainer::Result<std::vector<ResourceTarget>> parse_resource_args(
    const std::vector<std::string>& args, std::string_view verb, bool selector) {
  std::vector<ResourceTarget> targets;
  if (args.empty()) return targets;
  // `a,b x y` is `a/x a/y b/x b/y`.
  std::vector<std::string> words = args;
  if (args.size() >= 2) {
    const auto types = split_types(args[0]);
    if (types.size() > 1) {
      words.clear();
      for (const auto& type : types) {
        for (std::size_t i = 1; i < args.size(); ++i) words.push_back(type + "/" + args[i]);
      }
    }
  }
  const auto slashed = static_cast<std::size_t>(std::count_if(
      words.begin(), words.end(), [](const std::string& w) { return w.find('/') != w.npos; }));
  if (slashed > 0 && slashed != words.size()) {
    const std::string v(verb);
    return tl::unexpected(
        invalid("there is no need to specify a resource type as a separate argument when passing "
                "arguments in resource/name form (e.g. 'trainerctl " +
                v + " resource/<resource_name>' instead of 'trainerctl " + v +
                " resource resource/<resource_name>'"));
  }
  if (slashed > 0) {
    if (selector) {
      return tl::unexpected(invalid(
          "selectors and the all flag cannot be used when passing resource/name arguments"));
    }
    for (const auto& word : words) {
      const std::size_t slash = word.find('/');
      if (word.find('/', slash + 1) != std::string::npos) {
        return tl::unexpected(
            invalid("arguments in resource/name form may not have more than one slash"));
      }
      ResourceTarget target{word.substr(0, slash), word.substr(slash + 1)};
      if (target.type.empty() || target.name.empty() || split_types(target.type).size() != 1) {
        return tl::unexpected(
            invalid("arguments in resource/name form must have a single resource and name"));
      }
      targets.push_back(std::move(target));
    }
    return targets;
  }
  if (words.size() > 1 && selector) {
    return tl::unexpected(invalid("name cannot be provided when a selector is specified"));
  }
  for (auto& type : split_types(words[0])) {
    if (words.size() == 1) {
      targets.push_back({type, {}});
      continue;
    }
    for (std::size_t i = 1; i < words.size(); ++i) targets.push_back({type, words[i]});
  }
  return targets;
}

bool names_one_object(const std::vector<ResourceTarget>& targets) {
  return targets.size() == 1 && !targets[0].name.empty();
}

trainer::Result<std::vector<trainer::kube::Resource>> resolve(
    trainer::kube::Client& client, const std::vector<ResourceTarget>& targets) {
  std::vector<trainer::kube::Resource> out;
  out.reserve(targets.size());
  for (const auto& target : targets) {
    auto resource = client.resource_named(target.type);
    if (!resource) return tl::unexpected(std::move(resource.error()));
    out.push_back(std::move(*resource));
  }
  return out;
}

bool is_trainjob(const trainer::kube::Resource& resource) {
  return resource.group == "trainer.kubeflow.org" && resource.kind == "TrainJob";
}

}  // namespace trainerctl
