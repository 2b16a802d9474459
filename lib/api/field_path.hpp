// SPDX-License-Identifier: Apache-2.0
//
// The field path of a value being read (`spec.trainer.env[2]`), as Kubernetes' field.Path prints
// it, written out only when a message names it: the JSON -> typed decoders and the validation
// rules walk every field, and a walk that reports nothing builds no path string.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace trainer::detail {

/// A path refers to its parent and to its key, which must outlive it: keep each step in a named
/// variable (or a temporary of the call that reads it) while the value below it is read.
class FieldPath {
 public:
  /// The document root: "".
  FieldPath() = default;
  /// A root that has a name of its own (`info`, `spec.template.spec`).
  explicit FieldPath(std::string_view root) noexcept : text_(root) {}

  /// `parent.key` (`key` at an empty root).
  [[nodiscard]] static FieldPath field(const FieldPath& parent, std::string_view key) noexcept {
    return FieldPath(&parent, Step::kField, key, 0);
  }
  /// `parent[index]`.
  [[nodiscard]] static FieldPath index(const FieldPath& parent, std::size_t index) noexcept {
    return FieldPath(&parent, Step::kIndex, {}, index);
  }
  /// `parent[key]`, a key of a map.
  [[nodiscard]] static FieldPath map_key(const FieldPath& parent, std::string_view key) noexcept {
    return FieldPath(&parent, Step::kMapKey, key, 0);
  }

  [[nodiscard]] std::string str() const;

 private:
  enum class Step : std::uint8_t { kRoot, kField, kIndex, kMapKey };
  FieldPath(const FieldPath* parent, Step step, std::string_view text, std::size_t index) noexcept
      : parent_(parent), step_(step), text_(text), index_(index) {}
  void append_to(std::string& out) const;

  const FieldPath* parent_ = nullptr;
  Step step_ = Step::kRoot;
  std::string_view text_;
  std::size_t index_ = 0;
};

}  // namespace trainer::detail
