// SPDX-License-Identifier: Apache-2.0
#include "trainer/ssh.hpp"

#include "ssh/openssh_wire.hpp"
#include "test_keys.hpp"
#include "trainer/base64.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace {

using trainer::base64_decode;
using trainer::base64_encode;
using trainer::ErrorCode;
using trainer::SshKeyPair;

// One DER TLV read from the front of `in`.
struct Tlv {
  unsigned char tag = 0;
  std::string_view value;
};

std::optional<Tlv> read_tlv(std::string_view& in) {
  if (in.size() < 2) return std::nullopt;
  Tlv t;
  t.tag = static_cast<unsigned char>(in[0]);
  std::size_t len = static_cast<unsigned char>(in[1]);
  std::size_t header = 2;
  if (len & 0x80U) {
    const std::size_t n = len & 0x7FU;
    if (n == 0 || n > 2 || in.size() < 2 + n) return std::nullopt;
    len = 0;
    for (std::size_t i = 0; i < n; ++i) len = (len << 8U) | static_cast<unsigned char>(in[2 + i]);
    header += n;
  }
  if (in.size() < header + len) return std::nullopt;
  t.value = in.substr(header, len);
  in.remove_prefix(header + len);
  return t;
}

// The base64 body of a single PEM block with the given label, checking the RFC 7468 layout.
std::string pem_body(const std::string& pem, const std::string& label) {
  const std::string begin = "-----BEGIN " + label + "-----\n";
  const std::string end = "-----END " + label + "-----\n";
  REQUIRE(pem.rfind(begin, 0) == 0);
  REQUIRE(pem.size() > begin.size() + end.size());
  REQUIRE(pem.substr(pem.size() - end.size()) == end);
  std::string body;
  std::size_t pos = begin.size();
  const std::size_t stop = pem.size() - end.size();
  while (pos < stop) {
    const auto nl = pem.find('\n', pos);
    REQUIRE(nl != std::string::npos);
    const auto line_len = nl - pos;
    CHECK(line_len <= 64);
    if (nl + 1 < stop) CHECK(line_len == 64);  // only the last line may be short
    body += pem.substr(pos, line_len);
    pos = nl + 1;
  }
  return body;
}

struct Sec1 {
  std::string private_scalar;
  std::string public_point;
};

// Parses RFC 5915 ECPrivateKey and checks every field that Go's x509.MarshalECPrivateKey writes.
Sec1 parse_sec1_p521(const std::string& pem) {
  auto der = base64_decode(pem_body(pem, "EC PRIVATE KEY"));
  REQUIRE(der);
  std::string_view in = *der;
  auto seq = read_tlv(in);
  REQUIRE(seq);
  CHECK(seq->tag == 0x30);
  CHECK(in.empty());
  std::string_view fields = seq->value;
  auto version = read_tlv(fields);
  REQUIRE(version);
  CHECK(version->tag == 0x02);
  CHECK(version->value == std::string_view("\x01", 1));  // ecPrivkeyVer1
  auto priv = read_tlv(fields);
  REQUIRE(priv);
  CHECK(priv->tag == 0x04);
  CHECK(priv->value.size() == 66);  // padded to the order's length
  auto params = read_tlv(fields);
  REQUIRE(params);
  CHECK(params->tag == 0xA0);
  // namedCurve secp521r1 = 1.3.132.0.35.
  CHECK(params->value == std::string_view("\x06\x05\x2b\x81\x04\x00\x23", 7));
  auto pub = read_tlv(fields);
  REQUIRE(pub);
  CHECK(pub->tag == 0xA1);
  CHECK(fields.empty());
  std::string_view pub_in = pub->value;
  auto bits = read_tlv(pub_in);
  REQUIRE(bits);
  CHECK(bits->tag == 0x03);
  REQUIRE(bits->value.size() == 1 + 133);
  CHECK(bits->value[0] == '\0');  // no unused bits
  CHECK(bits->value[1] == '\x04');
  return Sec1{std::string(priv->value), std::string(bits->value.substr(1))};
}

// The point Q inside an authorized_keys line.
std::string point_of(const std::string& line) {
  auto blob = trainer::detail::parse_ecdsa_p521_authorized_key(line);
  REQUIRE(blob);
  return blob->substr(blob->size() - 133);
}

std::string pem_wrap(const std::string& label, const std::string& der) {
  const std::string b64 = base64_encode(der);
  std::string out = "-----BEGIN " + label + "-----\n";
  for (std::size_t i = 0; i < b64.size(); i += 64) out += b64.substr(i, 64) + "\n";
  return out + "-----END " + label + "-----\n";
}

// No error message may carry key material: none of the key's base64 body lines or their
// halves, and no long base64-looking run.
void check_no_key_bytes(const std::string& message, const std::string& pem) {
  INFO(message);
  CHECK(message.size() < 400);
  std::size_t pos = pem.find('\n');
  while (pos != std::string::npos && pos + 1 < pem.size()) {
    const auto nl = pem.find('\n', pos + 1);
    const std::string line = pem.substr(pos + 1, nl - pos - 1);
    if (line.rfind("-----", 0) != 0 && line.size() >= 16) {
      CHECK(message.find(line.substr(0, 16)) == std::string::npos);
      CHECK(message.find(line.substr(line.size() - 16)) == std::string::npos);
    }
    pos = nl;
  }
}

}  // namespace

TEST_CASE("generate_ssh_key_pair: SEC 1 PEM and authorized_keys line of one P-521 key", "[ssh]") {
  auto pair = trainer::generate_ssh_key_pair();
  REQUIRE(pair);
  const Sec1 sec1 = parse_sec1_p521(pair->private_key_pem);
  const std::string& line = pair->authorized_key;
  REQUIRE(line.rfind("ecdsa-sha2-nistp521 ", 0) == 0);
  REQUIRE(line.back() == '\n');
  CHECK(line.find('\n') == line.size() - 1);
  CHECK(line.find(' ', 20) == std::string::npos);  // no comment
  // The public half in the line is the public key stored in the private key.
  CHECK(point_of(line) == sec1.public_point);
}

TEST_CASE("generate_ssh_key_pair: every call gives a new key", "[ssh]") {
  auto a = trainer::generate_ssh_key_pair();
  auto b = trainer::generate_ssh_key_pair();
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->private_key_pem != b->private_key_pem);
  CHECK(a->authorized_key != b->authorized_key);
  CHECK(parse_sec1_p521(a->private_key_pem).private_scalar !=
        parse_sec1_p521(b->private_key_pem).private_scalar);
}

TEST_CASE("ssh_key_pair_from_private_key: known answer from OpenSSH", "[ssh]") {
  auto pair = trainer::ssh_key_pair_from_private_key(test_keys::kP521Sec1);
  REQUIRE(pair);
  CHECK(pair->authorized_key == test_keys::kP521AuthorizedKey);
  // A SEC 1 input comes back unchanged (openssl ec writes the same layout we do).
  CHECK(pair->private_key_pem == std::string(test_keys::kP521Sec1) + "\n");
  auto fp = trainer::ssh_public_key_fingerprint(pair->authorized_key);
  REQUIRE(fp);
  CHECK(*fp == test_keys::kP521Fingerprint);
}

TEST_CASE("ssh_key_pair_from_private_key: PKCS#8, compressed-point, explicit-parameter inputs",
          "[ssh]") {
  for (const char* pem :
       {test_keys::kP521Pkcs8, test_keys::kP521Sec1Compressed, test_keys::kP521Explicit}) {
    auto pair = trainer::ssh_key_pair_from_private_key(pem);
    REQUIRE(pair);
    CHECK(pair->authorized_key == test_keys::kP521AuthorizedKey);
    // Re-encoded as SEC 1, named curve, uncompressed point: the same bytes as the SEC 1 input.
    CHECK(pair->private_key_pem == std::string(test_keys::kP521Sec1) + "\n");
  }
}

TEST_CASE("ssh_key_pair_from_private_key: round trip of a generated key, whitespace allowed",
          "[ssh]") {
  auto pair = trainer::generate_ssh_key_pair();
  REQUIRE(pair);
  auto again = trainer::ssh_key_pair_from_private_key("\n  " + pair->private_key_pem + "\n\n");
  REQUIRE(again);
  CHECK(again->private_key_pem == pair->private_key_pem);
  CHECK(again->authorized_key == pair->authorized_key);
}

TEST_CASE("ssh_key_pair_from_private_key: wrong type or curve is kInvalid", "[ssh]") {
  struct Case {
    const char* pem;
    const char* expect;
  };
  const Case cases[] = {
      {test_keys::kP256, "the EC key is on curve prime256v1, expected P-521 (secp521r1)"},
      {test_keys::kEd25519, "expected an ECDSA key on curve P-521, got ED25519 key"},
      {test_keys::kRsa512, "expected an ECDSA key on curve P-521, got RSA key"},
      {test_keys::kP521PublicOnly, "expected a private key, got a public key"},
  };
  for (const auto& c : cases) {
    auto r = trainer::ssh_key_pair_from_private_key(c.pem);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::kInvalid);
    CHECK_THAT(r.error().message, Catch::Contains(c.expect));
    CHECK_THAT(r.error().message, Catch::StartsWith("SSH private key: "));
    check_no_key_bytes(r.error().message, c.pem);
  }
}

TEST_CASE("ssh_key_pair_from_private_key: a public key that is not the private key's", "[ssh]") {
  auto a = trainer::generate_ssh_key_pair();
  auto b = trainer::generate_ssh_key_pair();
  REQUIRE(a);
  REQUIRE(b);
  // Splice b's public point into a's ECPrivateKey (the point is the DER's last 133 bytes).
  auto der = base64_decode(pem_body(a->private_key_pem, "EC PRIVATE KEY"));
  REQUIRE(der);
  const std::string b_point = parse_sec1_p521(b->private_key_pem).public_point;
  der->replace(der->size() - 133, 133, b_point);
  const std::string forged = pem_wrap("EC PRIVATE KEY", *der);
  auto r = trainer::ssh_key_pair_from_private_key(forged);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == ErrorCode::kInvalid);
  CHECK(r.error().message ==
        "SSH private key: the embedded public key does not belong to the private key");
  check_no_key_bytes(r.error().message, forged);
}

TEST_CASE("ssh_key_pair_from_private_key: malformed input is kParse", "[ssh]") {
  const std::string good = test_keys::kP521Sec1;
  std::string truncated_der = *base64_decode(pem_body(good + "\n", "EC PRIVATE KEY"));
  truncated_der.resize(truncated_der.size() - 10);
  std::string bad_b64 = good;
  bad_b64[40] = '*';
  struct Case {
    std::string pem;
    const char* expect;
  };
  const Case cases[] = {
      {"", "expected one PEM block"},
      {"not a key", "expected one PEM block"},
      {good + "\n" + good, "expected one PEM block, found 2"},
      {test_keys::kOpenSshFormat, "OpenSSH-format keys are not supported"},
      {test_keys::kP521Encrypted, "encrypted private keys are not supported"},
      {test_keys::kP521EncryptedPkcs8, "encrypted private keys are not supported"},
      {pem_wrap("EC PRIVATE KEY", truncated_der), "not a readable PEM private key"},
      {bad_b64, "not a readable PEM private key"},
      {"-----BEGIN EC PRIVATE KEY-----\n-----END EC PRIVATE KEY-----", "not a readable"},
  };
  for (const auto& c : cases) {
    auto r = trainer::ssh_key_pair_from_private_key(c.pem);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::kParse);
    CHECK_THAT(r.error().message, Catch::Contains(c.expect));
    check_no_key_bytes(r.error().message, c.pem);
  }
  auto big = trainer::ssh_key_pair_from_private_key(std::string(65 * 1024, 'A'));
  REQUIRE_FALSE(big);
  CHECK(big.error().code == ErrorCode::kLimit);
}

TEST_CASE("read_ssh_key_pair_file: reads a key file; missing files are kIo", "[ssh]") {
  char path[] = "/tmp/trainer_ssh_test_XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  const std::string text = test_keys::kP521Pkcs8;
  REQUIRE(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  close(fd);
  auto pair = trainer::read_ssh_key_pair_file(path);
  std::remove(path);
  REQUIRE(pair);
  CHECK(pair->authorized_key == test_keys::kP521AuthorizedKey);

  auto missing = trainer::read_ssh_key_pair_file("/nonexistent/dir/key");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ErrorCode::kIo);
  CHECK_THAT(missing.error().message, Catch::Contains("/nonexistent/dir/key"));
  CHECK_THAT(missing.error().message, Catch::Contains("No such file"));
}

TEST_CASE("ssh_public_key_fingerprint: ssh-keygen -l format; comments ignored", "[ssh]") {
  std::string line = test_keys::kP521AuthorizedKey;
  line.pop_back();
  auto fp = trainer::ssh_public_key_fingerprint(line + " user@host");
  REQUIRE(fp);
  CHECK(*fp == test_keys::kP521Fingerprint);
  CHECK(trainer::ssh_public_key_fingerprint("ssh-rsa AAAAB3NzaC1yc2E=").error().code ==
        ErrorCode::kInvalid);
}
