// SPDX-License-Identifier: Apache-2.0
//
// Decoding and encoding of Trainer objects. YAML is only a front end: text -> generic JSON
// documents (`parse_documents`) -> typed objects (`decode_*`), and typed -> JSON -> text.
#pragma once

#include "trainer/error.hpp"
#include "trainer/model.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace trainer {

/// Limits applied to untrusted input. Every limit yields `ErrorCode::kLimit` with a message that
/// names the limit; nothing is allocated in proportion to what the limit refuses.
struct DecodeOptions {
  std::size_t max_document_bytes = std::size_t{4} << 20U;  ///< whole input text, 4 MiB
  std::size_t max_depth = 100;       ///< nesting of maps/sequences (arrays/objects)
  std::size_t max_documents = 1000;  ///< documents in one YAML stream
  /// Total nodes (scalars + collections) produced after alias expansion, over the whole stream.
  /// Bounds "billion laughs" documents.
  std::size_t max_nodes = 1000000;
  std::size_t max_aliases = 10000;  ///< alias (`*name`) references in the stream
  /// Bytes of scalar text (keys and values) that anchors and aliases may copy over the whole
  /// stream, 4 MiB: an anchored node is copied once when it is defined and once more for every
  /// alias of it, and each copy is charged with the text it holds. With `max_nodes` this bounds
  /// the decoded value: its scalar text is at most `max_document_bytes + max_alias_bytes`, and
  /// the decode's peak memory stays within about 3 x (`max_document_bytes` + `max_alias_bytes`)
  /// plus about 100 bytes per node (docs/yaml.md has the measurements).
  std::size_t max_alias_bytes = std::size_t{4} << 20U;
};

enum class Format { kYaml, kJson };

/// Parses a YAML stream (several `---`-separated documents) or a JSON text into generic JSON
/// documents, in input order. Empty/null documents are skipped. Input that starts with `{` or
/// `[` (after whitespace) is parsed as JSON. Scalars are resolved as Kubernetes' YAML decoder
/// (sigs.k8s.io/yaml) does. Refuses: invalid UTF-8, duplicate map keys, non-string map keys,
/// anything over a limit of `options`. Errors name the line and column where known.
[[nodiscard]] Result<std::vector<boost::json::value>> parse_documents(
    std::string_view text, const DecodeOptions& options = {});

/// A typed object decoded from JSON together with the warnings Kubernetes would print for it
/// (`unknown field "spec.foo"` for fields not in the typed schema).
template <class T>
struct Decoded {
  T object;
  std::vector<std::string> warnings;
};

/// JSON -> typed. A JSON type that does not match the schema is a `kParse` error whose single
/// field error names the path (`spec.trainer.numNodes: Invalid value: "two": expected int32`).
[[nodiscard]] Result<Decoded<TrainJob>> decode_train_job(const boost::json::value& doc);
[[nodiscard]] Result<Decoded<TrainingRuntime>> decode_training_runtime(
    const boost::json::value& doc);
[[nodiscard]] Result<Decoded<ClusterTrainingRuntime>> decode_cluster_training_runtime(
    const boost::json::value& doc);
/// An OptimizationJob: enum fields (`direction`, `type`) outside the CRD's enum are refused here
/// (`kParse`, `Unsupported value` at the field path), since the typed model cannot hold them.
[[nodiscard]] Result<Decoded<OptimizationJob>> decode_optimization_job(
    const boost::json::value& doc);

/// The API server's refusal of an object with unknown fields under strict field validation
/// (`fieldValidation=Strict`, `kubectl --validate=strict`): `kParse` with the text
/// `<Kind> in version "<version>" cannot be handled as a <Kind>: strict decoding error: unknown
/// field "spec.trainer.numNode"`, `unknown_fields` (the warnings of a `decode_*` call, each
/// `unknown field "<path>"`) joined by `, `. `doc` is the object's JSON (its apiVersion and kind).
[[nodiscard]] Error strict_decoding_error(const boost::json::value& doc,
                                          const std::vector<std::string>& unknown_fields);

/// Typed -> JSON with a fixed key order (the Go struct order); empty optional fields omitted.
[[nodiscard]] boost::json::value to_json(const TrainJob& job);
[[nodiscard]] boost::json::value to_json(const TrainingRuntime& runtime);
[[nodiscard]] boost::json::value to_json(const ClusterTrainingRuntime& runtime);
[[nodiscard]] boost::json::value to_json(const OptimizationJob& job);

/// JSON text. `pretty` indents by two spaces; otherwise compact. Key order is the value's order.
[[nodiscard]] std::string encode_json(const boost::json::value& value, bool pretty = false);
/// YAML text of one document (block style, keys in the value's order). Strings that YAML would
/// read back as another type (`"29500"`, `"true"`, `"null"`, ...) are quoted, so
/// `parse_documents(encode_yaml(v))` yields `v` again.
[[nodiscard]] std::string encode_yaml(const boost::json::value& value);
/// Several documents as one YAML stream, separated by `---` lines.
[[nodiscard]] std::string encode_yaml_stream(const std::vector<boost::json::value>& documents);

}  // namespace trainer
