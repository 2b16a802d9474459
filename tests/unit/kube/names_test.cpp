// SPDX-License-Identifier: Apache-2.0
//
// Name rules against k8s.io/apimachinery v0.36 (pkg/util/validation, pkg/api/validate/content);
// the message texts are spelled out literally, as Kubernetes prints them.
#include <catch2/catch.hpp>

#include "trainer/names.hpp"

#include <string>
#include <vector>

namespace {

using Messages = trainer::NameMessages;

const std::string kLabelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const std::string kSubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const std::string kDns1035Msg =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const std::string kNamePartMsg =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const std::string kTooManySlashesMsg =
    "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
    "subdomain prefix and '/' (e.g. 'example.com/MyName')";
const std::string kLabelValueMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const std::string kCIdentifierMsg =
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for "
    "validation is '[A-Za-z_][A-Za-z0-9_]*')";
const std::string kEnvVarMsg =
    "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', "
    "or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or "
    "'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";

using Rule = Messages (*)(std::string_view);

void expect_valid(Rule rule, std::initializer_list<std::string> values) {
  for (const std::string& v : values) {
    INFO("valid: '" << v << "'");
    CHECK(rule(v).empty());
  }
}

void expect_messages(Rule rule, const std::string& value, const Messages& messages) {
  INFO("invalid: '" << value << "'");
  CHECK(rule(value) == messages);
}

}  // namespace

TEST_CASE("is_dns1123_label", "[names]") {
  using trainer::is_dns1123_label;
  expect_valid(is_dns1123_label, {"a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "0-1",
                                  "1-a", "my-name", "123-abc", std::string(63, 'a')});
  for (const char* bad : {"", "A", "ABC", "aBc", "A1", "a-1-B", "-", "a-", "-a", "1-", "-1", "_",
                          "a_b", "a b", "a@b", "a\n", "\xc3\xa9"}) {
    expect_messages(is_dns1123_label, bad, {kLabelMsg});
  }
  // A valid subdomain that is not a label: only the dots are wrong.
  expect_messages(is_dns1123_label, "a.b", {"must not contain dots"});
  expect_messages(is_dns1123_label, "my.name.x", {"must not contain dots"});
  expect_messages(is_dns1123_label, ".a", {kLabelMsg});
  expect_messages(is_dns1123_label, std::string(64, 'a'), {"must be no more than 63 characters"});
  expect_messages(is_dns1123_label, std::string(64, 'A'),
                  {"must be no more than 63 characters", kLabelMsg});
  expect_messages(is_dns1123_label, std::string(32, 'a') + "." + std::string(32, 'a'),
                  {"must be no more than 63 characters", "must not contain dots"});
}

TEST_CASE("is_dns1123_subdomain", "[names]") {
  using trainer::is_dns1123_subdomain;
  expect_valid(is_dns1123_subdomain,
               {"a", "ab", "a1", "a-1", "0", "a.a", "a.b.c.d", "1.2.3.4", "a-1.b-2", "example.com",
                std::string(253, 'a'), std::string(63, 'a') + "." + std::string(100, 'b')});
  for (const char* bad : {"", "A", "ABC", "a.B", "-", "a-", "-a", "a.-a", "a-.a", ".", "a.", ".a",
                          "a..b", "a_b", "a@b", "a/b", "a b", "a.b\n"}) {
    expect_messages(is_dns1123_subdomain, bad, {kSubdomainMsg});
  }
  expect_messages(is_dns1123_subdomain, std::string(254, 'a'),
                  {"must be no more than 253 characters"});
  expect_messages(is_dns1123_subdomain, std::string(254, '-'),
                  {"must be no more than 253 characters", kSubdomainMsg});
}

TEST_CASE("is_dns1035_label", "[names]") {
  using trainer::is_dns1035_label;
  expect_valid(is_dns1035_label,
               {"a", "ab", "a1", "a-1", "a--1--2--b", "my-name", "abc-123", std::string(63, 'a')});
  for (const char* bad :
       {"", "0", "01", "0-1", "1-a", "A", "aBc", "-", "a-", "-a", "a.b", "a_b", "a b"}) {
    expect_messages(is_dns1035_label, bad, {kDns1035Msg});
  }
  expect_messages(is_dns1035_label, std::string(64, 'a'), {"must be no more than 63 characters"});
  expect_messages(is_dns1035_label, "1" + std::string(63, 'a'),
                  {"must be no more than 63 characters", kDns1035Msg});
}

TEST_CASE("is_qualified_name", "[names]") {
  using trainer::is_qualified_name;
  expect_valid(is_qualified_name,
               {"simple", "now-with-dashes", "1-starts-with-num", "1234", "simple/simple",
                "now-with-dashes/simple", "now-with-dashes/now-with-dashes", "now.with.dots/simple",
                "now-with.dashes-and.dots/simple", "1-num.2-num/3-num", "1234/5678", "1.2.3.4/5678",
                "Uppercase_Is_OK_123", "example.com/Uppercase_Is_OK_123", "requests.storage-foo",
                std::string(63, 'a'), std::string(253, 'a') + "/" + std::string(63, 'b'), "a.b_c-d",
                "trainer.kubeflow.org/trainjob-name"});
  expect_messages(is_qualified_name, "", {"name part must be non-empty", kNamePartMsg});
  for (const char* bad : {"nospecialchars%^=@", "cantendwithadash-", "-cantstartwithadash-",
                          "only/one/slash", "Example.com/abc", "example_com/abc", "example.com/",
                          "/simple", "example.com/-abc", "a b", "_a", "a.", "Ab-"}) {
    INFO(bad);
    CHECK_FALSE(is_qualified_name(bad).empty());
  }
  expect_messages(is_qualified_name, "cantendwithadash-", {kNamePartMsg});
  expect_messages(is_qualified_name, "only/one/slash", {kTooManySlashesMsg});
  expect_messages(is_qualified_name, "/simple", {"prefix part must be non-empty"});
  expect_messages(is_qualified_name, "example.com/", {"name part must be non-empty", kNamePartMsg});
  expect_messages(is_qualified_name, "Example.com/abc", {"prefix part " + kSubdomainMsg});
  // content.IsLabelKey words its lengths in bytes (k8s.io/apimachinery >= v0.35).
  expect_messages(is_qualified_name, std::string(64, 'a'),
                  {"name part must be no more than 63 bytes"});
  expect_messages(is_qualified_name, std::string(254, 'a') + "/a",
                  {"prefix part must be no more than 253 bytes"});
  expect_messages(is_qualified_name, std::string(254, '-') + "/" + std::string(64, '-'),
                  {"prefix part must be no more than 253 bytes", "prefix part " + kSubdomainMsg,
                   "name part must be no more than 63 bytes", kNamePartMsg});
}

TEST_CASE("is_valid_label_value", "[names]") {
  using trainer::is_valid_label_value;
  expect_valid(is_valid_label_value,
               {"", "simple", "now-with-dashes", "1-starts-with-num", "end-with-num-1", "1234",
                std::string(63, 'a'), "A", "Aa_b.c-D", "MyValue", "my_value", "12345", "a..b"});
  for (const char* bad :
       {"nospecialchars%^=@", "Tama-nui-te-rā.is.Māori.sun", "\\backslashes", "-starts-with-dash",
        "ends-with-dash-", ".starts.with.dot", "ends.with.dot.", "_a", "a_", "a/b", "a b"}) {
    expect_messages(is_valid_label_value, bad, {kLabelValueMsg});
  }
  expect_messages(is_valid_label_value, std::string(64, 'a'), {"must be no more than 63 bytes"});
  expect_messages(is_valid_label_value, std::string(64, '-'),
                  {"must be no more than 63 bytes", kLabelValueMsg});
}

TEST_CASE("is_c_identifier", "[names]") {
  using trainer::is_c_identifier;
  expect_valid(
      is_c_identifier,
      {"a",   "ab",         "abc",       "a1",  "_a",         "a_",        "a_b",
       "a_1", "a__1__2__b", "__abc_123", "A",   "AB",         "AbC",       "A1",
       "_A",  "A_",         "A_B",       "A_1", "A__1__2__B", "__123_ABC", std::string(300, 'x')});
  for (const char* bad :
       {"",   "1",   "123", "1a", "-",   "a-", "-a", "1-", "-1",  "1_", "1_2", ".",   "a.",
        ".a", "a.b", "1.",  ".1", "1.2", " ",  "a ", " a", "a b", "1 ", " 1",  "1 2", "#a#"}) {
    expect_messages(is_c_identifier, bad, {kCIdentifierMsg});
  }
}

TEST_CASE("is_env_var_name", "[names]") {
  using trainer::is_env_var_name;
  expect_valid(is_env_var_name,
               {"A", "ABC", "AbC_123", "_123", "A_B_C", "A.B.C", "A-B-C", "-A", ".A", "_", "-",
                "a.", "a-", "my.env-name", "MY_ENV.NAME", "MyEnvName1", ".env", "PYTHONPATH"});
  for (const char* bad : {"", "1", "123", "1A", "A B", "A=B", "A@B", "A\u00e9", "A:B"}) {
    expect_messages(is_env_var_name, bad, {kEnvVarMsg});
  }
  expect_messages(is_env_var_name, ".", {"must not be '.'"});
  expect_messages(is_env_var_name, "..", {"must not be '..'"});
  expect_messages(is_env_var_name, "..A", {"must not start with '..'"});
  expect_messages(is_env_var_name, "..=", {kEnvVarMsg, "must not start with '..'"});
}

TEST_CASE("is_config_map_key", "[names]") {
  using trainer::is_config_map_key;
  const std::string msg =
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
      "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
      "'[-._a-zA-Z0-9]+')";
  expect_valid(is_config_map_key, {"a", "key.name", "KEY_NAME", "key-name", "1", ".a", "a..b",
                                   "ssh-privatekey", "id_rsa.pub", std::string(253, 'k')});
  for (const char* bad : {"", "a/b", "/etc/passwd", "a b", "a:b", "k\u00e9"}) {
    expect_messages(is_config_map_key, bad, {msg});
  }
  // A key is a file name in a volume: nothing that steps out of its folder.
  expect_messages(is_config_map_key, ".", {"must not be '.'"});
  expect_messages(is_config_map_key, "..", {"must not be '..'"});
  expect_messages(is_config_map_key, "..data", {"must not start with '..'"});
  expect_messages(is_config_map_key, "../../etc/x", {msg, "must not start with '..'"});
  expect_messages(is_config_map_key, std::string(254, 'k'),
                  {"must be no more than 253 characters"});
}

TEST_CASE("is_domain_prefixed_path", "[names]") {
  using trainer::FieldErrorType;
  using trainer::is_domain_prefixed_path;
  const std::string path = "spec.runtimePatches[0].manager";
  for (const char* ok : {"kubeflow.org/trainer", "trainer.kubeflow.org/trainjob-controller", "a/b",
                         "acme.io/foo/bar", "example.com/a-b_c.d~e%20!$&'()*+,;=:"}) {
    INFO(ok);
    CHECK(is_domain_prefixed_path(path, ok).empty());
  }

  auto errs = is_domain_prefixed_path(path, "");
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].type == FieldErrorType::kRequired);
  CHECK(errs[0].path == path);
  CHECK(errs[0].detail.empty());

  for (const char* no_prefix : {"trainer", "/trainer", "kubeflow.org/"}) {
    INFO(no_prefix);
    errs = is_domain_prefixed_path(path, no_prefix);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].type == FieldErrorType::kInvalid);
    CHECK(errs[0].value == boost::json::value(no_prefix));
    CHECK(errs[0].detail == "must be a domain-prefixed path (such as \"acme.io/foo\")");
  }

  errs = is_domain_prefixed_path(path, "Kubeflow.org/trainer");
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].type == FieldErrorType::kInvalid);
  CHECK(errs[0].value == boost::json::value("Kubeflow.org"));
  CHECK(errs[0].detail == kSubdomainMsg);

  errs = is_domain_prefixed_path(path, "kubeflow.org/a b");
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].value == boost::json::value("a b"));
  CHECK(errs[0].detail ==
        "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')");

  // Host and path errors together; host errors come first.
  errs = is_domain_prefixed_path(path, std::string(254, 'a') + "/x@y");
  REQUIRE(errs.size() == 2);
  CHECK(errs[0].value == boost::json::value(std::string(254, 'a')));
  CHECK(errs[0].detail == "must be no more than 253 characters");
  CHECK(errs[1].value == boost::json::value("x@y"));
  CHECK(errs[0].to_string().rfind(path + ": Invalid value: ", 0) == 0);
}

TEST_CASE("edit_distance and closest_name: the did-you-mean of runtime names") {
  CHECK(trainer::edit_distance("", "") == 0);
  CHECK(trainer::edit_distance("abc", "") == 3);
  CHECK(trainer::edit_distance("torch-distributd", "torch-distributed") == 1);
  CHECK(trainer::edit_distance("kitten", "sitting") == 3);
  CHECK(trainer::edit_distance("gte", "get") == 1);  // a swap of neighbours is one edit
  CHECK(trainer::edit_distance("ca", "abc") == 3);   // no substring is edited twice
  const std::vector<std::string> runtimes{"deepspeed-distributed", "jax-distributed",
                                          "torch-distributed", "xgboost-distributed"};
  CHECK(trainer::closest_name("torch-distributd", runtimes) == "torch-distributed");
  CHECK(trainer::closest_name("Torch-Distributed", runtimes) == "torch-distributed");
  CHECK(trainer::closest_name("jax-distrib", runtimes) == "jax-distributed");
  // Too far from every name: no suggestion rather than a wrong one.
  CHECK_FALSE(trainer::closest_name("my-own-runtime", runtimes));
  CHECK_FALSE(trainer::closest_name("torch", runtimes));
  CHECK_FALSE(trainer::closest_name("x", {}));
  // Equally close: the first.
  CHECK(trainer::closest_name("ab", {"ax", "ay"}) == "ax");
}
