// SPDX-License-Identifier: Apache-2.0
#include "plugin/render_scope.hpp"

namespace trainer::detail {
namespace {

thread_local const RenderContext* current_context = nullptr;

}  // namespace

RenderScope::RenderScope(const RenderContext& ctx) noexcept : previous_(current_context) {
  current_context = &ctx;
}

RenderScope::~RenderScope() {
  current_context = previous_;
}

const RenderContext* RenderScope::current() noexcept {
  return current_context;
}

}  // namespace trainer::detail
