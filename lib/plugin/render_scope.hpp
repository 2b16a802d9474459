// SPDX-License-Identifier: Apache-2.0
//
// The RenderContext of the pipeline running on this thread, for the extension points whose
// interfaces take none (enforceMLPolicy, enforcePodGroupPolicy, preBuildSync, status): a C
// plugin's request still carries the operator namespace and feature gates of the render. A
// render runs its phases on the calling thread, so a thread-local scope is exact; concurrent
// renders on other threads have their own.
#pragma once

#include "trainer/framework.hpp"

namespace trainer::detail {

class RenderScope {
 public:
  /// `ctx` must outlive the scope.
  explicit RenderScope(const RenderContext& ctx) noexcept;
  ~RenderScope();
  RenderScope(const RenderScope&) = delete;
  RenderScope& operator=(const RenderScope&) = delete;

  /// The innermost scope's context on this thread, or null outside any.
  [[nodiscard]] static const RenderContext* current() noexcept;

 private:
  const RenderContext* previous_;
};

}  // namespace trainer::detail
