// SPDX-License-Identifier: Apache-2.0
#include "trainer/base64.hpp"
#include "ssh/openssh_wire.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

using trainer::base64_decode;
using trainer::base64_encode;

TEST_CASE("base64: RFC 4648 section 10 test vectors", "[ssh][base64]") {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    CHECK(base64_encode(plain) == encoded);
    CHECK(base64_decode(encoded) == std::string(plain));
  }
  const std::string binary("\x00\xff\x10\x80", 4);
  CHECK(base64_encode(binary) == "AP8QgA==");
  CHECK(base64_decode("AP8QgA==") == binary);
}

TEST_CASE("base64: non-canonical input is refused", "[ssh][base64]") {
  CHECK_FALSE(base64_decode("Zg="));       // bad length
  CHECK_FALSE(base64_decode("Z==="));      // padding too early
  CHECK_FALSE(base64_decode("Zg==Zg=="));  // padding before the end
  CHECK_FALSE(base64_decode("Zh=="));      // non-zero bits under the padding
  CHECK_FALSE(base64_decode("Zm9="));      // and under one =
  CHECK_FALSE(base64_decode("Zm9v\n"));    // whitespace
  CHECK_FALSE(base64_decode("Zm-v"));      // URL alphabet
  CHECK(base64_decode("Zh==").error().message == "illegal base64 data at input byte 2");
}

TEST_CASE("base64: Go's StdEncoding, as a Go client reads a Secret's data", "[base64]") {
  using trainer::Base64Decoding;
  const auto go = [](std::string_view text) { return base64_decode(text, Base64Decoding::kGo); };
  // Expected values and offsets taken from Go 1.19 base64.StdEncoding.DecodeString.
  CHECK(go("").value().empty());
  CHECK(go("YQ==").value() == "a");
  CHECK(go("YWI=").value() == "ab");
  CHECK(go("YWJj").value() == "abc");
  CHECK(go("YW\nJj\r\n").value() == "abc");
  CHECK(go("YQ==\n").value() == "a");
  CHECK(go("YQ=\n=").value() == "a");
  CHECK(go("aGVsbG8gd29ybGQ=").value() == "hello world");
  CHECK(go("Zh==").value() == "f");  // bits under the padding ignored, unlike kCanonical
  CHECK(go(std::string("\0\0", 2)).error().message == "illegal base64 data at input byte 0");
  const std::vector<std::pair<const char*, int>> bad = {
      {"Y", 0},     {"YQ", 0},   {"YQ=", 3}, {"Y===", 1},   {"YWJj!", 4},
      {"YQ==x", 4}, {"YQ=x", 2}, {"=", 0},   {"YWJjZA", 4}, {"YWJjZA=", 7}};
  for (const auto& [text, offset] : bad) {
    INFO(text);
    const auto result = go(text);
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code == trainer::ErrorCode::kParse);
    CHECK(result.error().message == "illegal base64 data at input byte " + std::to_string(offset));
  }
}

TEST_CASE("OpenSSH wire: RFC 4251 string and RFC 5656 ECDSA blob layout", "[ssh][wire]") {
  using namespace trainer::detail;
  CHECK(ssh_string("nistp521") == std::string("\0\0\0\x08nistp521", 12));
  std::string q(kP521PointBytes, '\x01');
  q[0] = '\x04';
  const std::string blob = ecdsa_p521_public_blob(q);
  // 4+19 type, 4+8 identifier, 4+133 point.
  REQUIRE(blob.size() == 4 + 19 + 4 + 8 + 4 + 133);
  CHECK(blob.substr(0, 23) == std::string("\0\0\0\x13", 4) + "ecdsa-sha2-nistp521");
  CHECK(blob.substr(23, 12) == std::string("\0\0\0\x08", 4) + "nistp521");
  CHECK(blob.substr(35, 4) == std::string("\0\0\0\x85", 4));
  CHECK(blob.substr(39) == q);
  const std::string line = ecdsa_p521_authorized_key(q);
  CHECK(line == "ecdsa-sha2-nistp521 " + base64_encode(blob) + "\n");
  auto parsed = parse_ecdsa_p521_authorized_key(line);
  REQUIRE(parsed);
  CHECK(*parsed == blob);
}

TEST_CASE("OpenSSH wire: malformed authorized_keys lines", "[ssh][wire]") {
  using namespace trainer::detail;
  using trainer::ErrorCode;
  CHECK(parse_ecdsa_p521_authorized_key("").error().code == ErrorCode::kParse);
  CHECK(parse_ecdsa_p521_authorized_key("ssh-ed25519 AAAA").error().code == ErrorCode::kInvalid);
  CHECK(parse_ecdsa_p521_authorized_key("ecdsa-sha2-nistp521 !!!").error().code ==
        ErrorCode::kParse);
  // A blob claiming P-521 in the line but P-256 inside.
  const std::string inner = ssh_string("ecdsa-sha2-nistp256") + ssh_string("nistp256") +
                            ssh_string(std::string(65, '\x04'));
  CHECK(
      parse_ecdsa_p521_authorized_key("ecdsa-sha2-nistp521 " + base64_encode(inner)).error().code ==
      ErrorCode::kInvalid);
  // Truncated blob.
  std::string q(kP521PointBytes, '\x04');
  std::string blob = ecdsa_p521_public_blob(q);
  blob.pop_back();
  CHECK(
      parse_ecdsa_p521_authorized_key("ecdsa-sha2-nistp521 " + base64_encode(blob)).error().code ==
      ErrorCode::kParse);
}
