// SPDX-License-Identifier: Apache-2.0
#include "ssh/base64.hpp"
#include "ssh/openssh_wire.hpp"

#include <catch2/catch.hpp>

#include <string>

using trainer::detail::base64_decode;
using trainer::detail::base64_encode;

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
  CHECK_FALSE(base64_decode("Zm9v\n"));    // whitespace
  CHECK_FALSE(base64_decode("Zm-v"));      // URL alphabet
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
