// SPDX-License-Identifier: Apache-2.0
// kubectl's JSONPath templates (`get -o jsonpath=...`, the columns of `-o custom-columns=...`),
// read and run as k8s.io/client-go/util/jsonpath does, with kubectl's default
// --allow-missing-template-keys=true (a key that is not there yields nothing, not an error):
// - text outside `{...}` is printed as it is; inside, `"..."` or `'...'` is text (Go's escapes:
//   `{"\n"}`, `{"\t"}`);
// - `.field` (`\.` escapes a dot in a key), `['key']`, `..field` (recursive descent), `*`
//   (every value of an object or array), `$` and `@` (the current object: the root, or inside a
//   range the element);
// - `[n]`, `[-n]` and slices `[start:end:step]`; an index past the end is an error, as kubectl's;
// - unions `[a,b]`, `['a','b']`;
// - filters `[?(@.type=="Ready")]` with ==, !=, <, <=, >, >= against a quoted string, a number,
//   true/false or another path of the element, and `[?(@.x)]` (the path yields something);
//   comparing a string with a number is an error (`incompatible types for comparison`);
// - `{range EXPR}...{end}` repeats what is between for each result of EXPR.
// Each `{...}` prints its results separated by one space: strings as they are, numbers, booleans
// and null as Go's fmt prints them (`1e+06`, `true`, `<nil>`), objects and arrays as Go's
// json.Marshal (compact, keys sorted). Nothing is added at the end (no newline).
#pragma once

#include <boost/json/value.hpp>
#include <tl/expected.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace trainerctl {

class JsonPath {
 public:
  /// Every value each top-level part of the template yields (one list per `{...}` or text, a
  /// range's parts once per element), as kubectl's FindResults.
  using Results = std::vector<std::vector<boost::json::value>>;

  /// Reads `text`; the error is client-go's (`unterminated array`, `unclosed action`, ...).
  [[nodiscard]] static tl::expected<JsonPath, std::string> parse(std::string_view text);

  [[nodiscard]] tl::expected<Results, std::string> find(const boost::json::value& data) const;
  /// The template's text for `data`; the error is what stopped it (`array index out of bounds:
  /// index 5, length 1`).
  [[nodiscard]] tl::expected<std::string, std::string> execute(
      const boost::json::value& data) const;

  struct Node;

 private:
  explicit JsonPath(std::shared_ptr<const Node> root) : root_(std::move(root)) {}
  std::shared_ptr<const Node> root_;
};

/// The path of a custom column as kubectl relaxes it: `.a.b`, `a.b`, `{.a.b}` and `{a.b}` are
/// `{.a.b}`; "" stays "".
[[nodiscard]] tl::expected<std::string, std::string> relaxed_jsonpath(std::string_view expression);

/// Go's fmt.Sprint of a JSON value as kubectl's unstructured objects hold it: strings as they
/// are, `1e+06`, `true`, `<nil>`, `[a b]`, `map[k:v]` (keys sorted).
[[nodiscard]] std::string go_sprint(const boost::json::value& value);

/// Go's json.Marshal of a JSON value: compact, object keys sorted, `<`, `>` and `&` escaped
/// (`\u003c`), floats as Go writes them (`1e+21`, `1e-7`).
[[nodiscard]] std::string go_json(const boost::json::value& value);

}  // namespace trainerctl
