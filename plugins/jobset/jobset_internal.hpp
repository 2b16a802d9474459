// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "trainer/framework.hpp"

#include <boost/json/value.hpp>

#include <string_view>
#include <vector>

namespace trainer::plugins::jobset {

inline constexpr std::string_view kName = "JobSet";

class JobSetPlugin final : public CustomValidationPlugin,
                           public PreComponentBuilderPlugin,
                           public ComponentBuilderPlugin {
 public:
  [[nodiscard]] std::string_view name() const override { return kName; }
  [[nodiscard]] Phases phases() const override {
    return {Phase::kCustomValidation, Phase::kPreComponentBuilder, Phase::kComponentBuilder};
  }
  [[nodiscard]] ValidationResult validate(const Info& info, const TrainJob* old_job,
                                          const TrainJob& new_job,
                                          const PluginContext& ctx) override;
  [[nodiscard]] Result<void> pre_build_sync(Info& info, const TrainJob& job,
                                            const PluginContext& /*ctx*/) override;
  [[nodiscard]] Result<std::vector<boost::json::value>> build(const Info& info, const TrainJob& job,
                                                              const PluginContext& ctx) override;
  [[nodiscard]] bool takes_info() const override { return true; }
  [[nodiscard]] Result<std::vector<boost::json::value>> build_taking_info(
      Info& info, const TrainJob& job, const PluginContext& ctx) override;
};

}  // namespace trainer::plugins::jobset
