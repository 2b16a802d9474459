// SPDX-License-Identifier: Apache-2.0
//
// Every `resource.Quantity` field of the TrainJob and runtime CRDs, checked the way the API
// server and the typed decode behind it see the value, so that a malformed quantity is refused
// at admission at its own field path and never reaches a JobSet.
#pragma once

#include "trainer/quantity.hpp"
#include "validation/schema_helpers.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>

namespace trainer::detail {

/// One quantity field at `path`: the CRD schema first (integer or string; a string must match
/// `Quantity::kSchemaPattern`: `<path> in body should match '...'`; another JSON type: `<path> in
/// body must be of type integer,string: "number"`), then the typed decode (`Quantity::parse`:
/// `Invalid value: "1e1.5": quantities must match the regular expression ...`, or the magnitude
/// limit). Returns the quantity when every check passed.
std::optional<Quantity> check_quantity(Errors& errs, const FieldPath& path,
                                       const boost::json::value& v);

/// A `ResourceList` at `path` (`limits`, `requests`, `overhead`): each entry is a quantity at the
/// schema path `<path>.<name>`, then core validation's `ValidateResourceQuantityValue` at the
/// field.Path `<path>[<name>]`: `must be greater than or equal to 0`, and `must be an integer`
/// for extended resources (`example.com/gpu`). Upstream the core rules refuse the pods of the
/// JobSet later; here they refuse the TrainJob or runtime (docs/upstream-differences.md).
void check_resource_list(Errors& errs, const FieldPath& path, const boost::json::value& v);

/// `corev1.ResourceRequirements` at `path`: its `limits` and `requests`.
void check_resource_requirements(Errors& errs, const FieldPath& path,
                                 const boost::json::object& requirements);

/// The quantity fields of one `corev1.Volume` at `path`: `emptyDir.sizeLimit` (core: not
/// negative) and the resources of an ephemeral volume's claim template.
void check_volume_quantities(Errors& errs, const FieldPath& path,
                             const boost::json::object& volume);

/// The quantity fields of a `corev1.PodSpec` at `path`: container, init container and ephemeral
/// container resources, pod-level `resources`, `overhead` and the volumes. Parts of the wrong
/// JSON type are skipped (other rules report them).
void check_pod_spec_quantities(Errors& errs, const FieldPath& path,
                               const boost::json::object& pod_spec);

}  // namespace trainer::detail
