// SPDX-License-Identifier: Apache-2.0
//
// `metav1.ObjectMeta` and `TypeMeta`, shared by every kind.
#pragma once

#include "api/decode_context.hpp"
#include "api/encode_helpers.hpp"

#include <string_view>

namespace trainer::detail {

void read_value(DecodeContext& c, const boost::json::value& v, const std::string& path,
                ObjectMeta& out);
[[nodiscard]] boost::json::value to_value(Enc, const ObjectMeta& meta);
[[nodiscard]] bool is_empty(const ObjectMeta& meta);

/// Refuses a document that is not an object of `apiVersion: trainer.kubeflow.org/v1alpha1` and
/// the given kind, before any field is decoded.
[[nodiscard]] bool check_type_meta(DecodeContext& c, const boost::json::value& doc,
                                   std::string_view kind);

/// `apiVersion`, `kind` and `metadata` of a top-level object, in Go order.
[[nodiscard]] boost::json::object type_and_object_meta(const std::string& api_version,
                                                       const std::string& kind,
                                                       const ObjectMeta& meta);

}  // namespace trainer::detail
