// SPDX-License-Identifier: Apache-2.0
//
// ECDSA P-521 keys with OpenSSL 3: generation (EVP_PKEY_generate), SEC 1 DER encoding
// (OSSL_ENCODER, structure "type-specific", which for EC keys is RFC 5915 `ECPrivateKey`),
// decoding of SEC 1 and PKCS#8 PEM (OSSL_DECODER) and the public point from the provider key's
// parameters. No deprecated EC_KEY/EC_POINT calls.
#include "trainer/ssh.hpp"

#include "api/ascii.hpp"
#include "ssh/openssh_wire.hpp"
#include "trainer/base64.hpp"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/decoder.h>
#include <openssl/encoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace trainer {
namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
};
struct EncoderCtxFree {
  void operator()(OSSL_ENCODER_CTX* p) const { OSSL_ENCODER_CTX_free(p); }
};
struct DecoderCtxFree {
  void operator()(OSSL_DECODER_CTX* p) const { OSSL_DECODER_CTX_free(p); }
};
struct BnFree {
  void operator()(BIGNUM* p) const { BN_clear_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree>;
using EncoderCtx = std::unique_ptr<OSSL_ENCODER_CTX, EncoderCtxFree>;
using DecoderCtx = std::unique_ptr<OSSL_DECODER_CTX, DecoderCtxFree>;
using Bn = std::unique_ptr<BIGNUM, BnFree>;

constexpr std::size_t kMaxPemBytes = 64 * 1024;
constexpr std::string_view kSec1PemLabel = "EC PRIVATE KEY";

// Wipes a string that held key material before it is released.
void wipe(std::string& s) {
  if (!s.empty()) OPENSSL_cleanse(s.data(), s.size());
  s.clear();
}

// OpenSSL's error queue is per thread; leave it empty for the caller. The queue never holds
// key bytes, but its text is not useful to users either, so only the reason of the last error
// is added to internal errors.
tl::unexpected<Error> openssl_failure(const char* step) {
  std::string message = "SSH key: OpenSSL failed to ";
  message += step;
  if (const unsigned long code = ERR_peek_last_error(); code != 0) {
    if (const char* reason = ERR_reason_error_string(code)) {
      message += " (";
      message += reason;
      message += ')';
    }
  }
  ERR_clear_error();
  return fail(ErrorCode::kInternal, std::move(message));
}

tl::unexpected<Error> key_error(ErrorCode code, std::string message) {
  ERR_clear_error();
  return fail(code, "SSH private key: " + std::move(message));
}

// The passphrase callback of the decoder: encrypted keys are refused instead of prompting.
int refuse_passphrase(char* /*pass*/, size_t /*size*/, size_t* /*len*/,
                      const OSSL_PARAM /*params*/[], void* /*arg*/) {
  return 0;
}

// `-----BEGIN <label>-----\n`, the base64 in 64-column lines, `-----END <label>-----\n`
// (RFC 7468; the layout of Go's pem.EncodeToMemory and of OpenSSL's PEM writer).
std::string pem_encode(std::string_view label, std::string_view der) {
  std::string b64 = base64_encode(der);
  std::string out = "-----BEGIN ";
  out.append(label).append("-----\n");
  for (std::size_t i = 0; i < b64.size(); i += 64) {
    out.append(b64, i, 64);
    out += '\n';
  }
  out.append("-----END ").append(label).append("-----\n");
  wipe(b64);
  return out;
}

// SEC 1 `ECPrivateKey` DER of `pkey` (named curve and public key included), PEM-wrapped.
Result<std::string> sec1_pem(const EVP_PKEY* pkey) {
  EncoderCtx ctx(OSSL_ENCODER_CTX_new_for_pkey(pkey, OSSL_KEYMGMT_SELECT_KEYPAIR, "DER",
                                               "type-specific", nullptr));
  if (!ctx || OSSL_ENCODER_CTX_get_num_encoders(ctx.get()) == 0) {
    return openssl_failure("find a SEC 1 encoder for EC private keys");
  }
  unsigned char* der = nullptr;
  std::size_t der_len = 0;
  if (OSSL_ENCODER_to_data(ctx.get(), &der, &der_len) != 1 || der == nullptr) {
    return openssl_failure("encode the private key as SEC 1 DER");
  }
  std::string pem =
      pem_encode(kSec1PemLabel, std::string_view(reinterpret_cast<const char*>(der), der_len));
  OPENSSL_clear_free(der, der_len);
  return pem;
}

// One affine coordinate of the public point, left-padded to 66 bytes.
Result<void> append_coordinate(const EVP_PKEY* pkey, const char* param, std::string& out) {
  BIGNUM* raw = nullptr;
  if (EVP_PKEY_get_bn_param(pkey, param, &raw) != 1) {
    return openssl_failure("read the public point");
  }
  Bn bn(raw);
  unsigned char buf[detail::kP521FieldBytes];
  if (BN_bn2binpad(bn.get(), buf, static_cast<int>(sizeof buf)) < 0) {
    return openssl_failure("encode the public point");
  }
  out.append(reinterpret_cast<const char*>(buf), sizeof buf);
  return {};
}

// The SEC 1 uncompressed point 0x04 || X || Y, whatever point format the key was stored with.
Result<std::string> uncompressed_point(const EVP_PKEY* pkey) {
  std::string q(1, '\x04');
  if (auto r = append_coordinate(pkey, OSSL_PKEY_PARAM_EC_PUB_X, q); !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = append_coordinate(pkey, OSSL_PKEY_PARAM_EC_PUB_Y, q); !r) {
    return tl::unexpected(r.error());
  }
  return q;
}

Result<SshKeyPair> key_pair_of(const EVP_PKEY* pkey) {
  auto q = uncompressed_point(pkey);
  if (!q) return tl::unexpected(q.error());
  auto pem = sec1_pem(pkey);
  if (!pem) return tl::unexpected(pem.error());
  SshKeyPair pair;
  pair.private_key_pem = std::move(*pem);
  pair.authorized_key = detail::ecdsa_p521_authorized_key(*q);
  return pair;
}

// Type, curve and consistency checks of a decoded key; messages name only public facts.
Result<void> check_p521_private_key(EVP_PKEY* pkey) {
  if (EVP_PKEY_is_a(pkey, "EC") != 1) {
    const char* type = EVP_PKEY_get0_type_name(pkey);
    return key_error(ErrorCode::kInvalid,
                     std::string("expected an ECDSA key on curve P-521, got ") +
                         (type != nullptr ? type : "an unknown key type") + " key");
  }
  char group[80] = {};
  std::size_t group_len = 0;
  if (EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group,
                                     &group_len) != 1) {
    return key_error(ErrorCode::kInvalid,
                     "the EC key uses explicit parameters of an unnamed curve; expected P-521");
  }
  const std::string_view name(group, group_len);
  if (name != "secp521r1" && name != "P-521") {
    return key_error(ErrorCode::kInvalid, "the EC key is on curve " + std::string(name) +
                                              ", expected P-521 (secp521r1)");
  }
  BIGNUM* priv = nullptr;
  if (EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_PRIV_KEY, &priv) != 1) {
    return key_error(ErrorCode::kInvalid, "the key has no private part");
  }
  BN_clear_free(priv);
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, pkey, nullptr));
  if (!ctx) return openssl_failure("check the key");
  if (EVP_PKEY_pairwise_check(ctx.get()) != 1) {
    return key_error(ErrorCode::kInvalid,
                     "the embedded public key does not belong to the private key");
  }
  return {};
}

std::size_t count(std::string_view haystack, std::string_view needle) {
  std::size_t n = 0;
  for (auto pos = haystack.find(needle); pos != std::string_view::npos;
       pos = haystack.find(needle, pos + needle.size())) {
    ++n;
  }
  return n;
}

// Structural checks before OpenSSL sees the text, so that common mistakes get a precise message.
Result<void> check_pem_shape(std::string_view text) {
  if (text.find("-----BEGIN ") != 0 || text.size() < 10 ||
      text.substr(text.size() - 5) != "-----") {
    return key_error(ErrorCode::kParse, "expected one PEM block (-----BEGIN EC PRIVATE KEY-----)");
  }
  if (const auto blocks = count(text, "-----BEGIN "); blocks != 1) {
    return key_error(ErrorCode::kParse, "expected one PEM block, found " + std::to_string(blocks));
  }
  if (text.find("-----BEGIN OPENSSH PRIVATE KEY-----") == 0) {
    return key_error(ErrorCode::kParse,
                     "OpenSSH-format keys are not supported; convert it to PEM with "
                     "`ssh-keygen -p -N \"\" -m PEM -f FILE` or generate one with "
                     "`trainerctl keygen`");
  }
  const auto first_line = text.substr(0, text.find('\n'));
  if (first_line.find("PUBLIC KEY") != std::string_view::npos) {
    return key_error(ErrorCode::kInvalid, "expected a private key, got a public key");
  }
  if (first_line.find("ENCRYPTED") != std::string_view::npos ||
      text.find("Proc-Type: 4,ENCRYPTED") != std::string_view::npos) {
    return key_error(ErrorCode::kParse, "encrypted private keys are not supported");
  }
  return {};
}

}  // namespace

Result<SshKeyPair> generate_ssh_key_pair() {
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  if (!ctx) return openssl_failure("create an EC key generation context");
  if (EVP_PKEY_keygen_init(ctx.get()) != 1 ||
      EVP_PKEY_CTX_set_group_name(ctx.get(), "P-521") != 1) {
    return openssl_failure("set up P-521 key generation");
  }
  EVP_PKEY* raw = nullptr;
  if (EVP_PKEY_generate(ctx.get(), &raw) != 1 || raw == nullptr) {
    return openssl_failure("generate a P-521 key");
  }
  const Pkey pkey(raw);
  return key_pair_of(pkey.get());
}

Result<SshKeyPair> ssh_key_pair_from_private_key(std::string_view pem) {
  if (pem.size() > kMaxPemBytes) {
    return fail(ErrorCode::kLimit,
                "SSH private key: larger than " + std::to_string(kMaxPemBytes / 1024) + " KiB");
  }
  const auto text = ascii::trim(pem);
  if (auto shape = check_pem_shape(text); !shape) return tl::unexpected(shape.error());

  EVP_PKEY* raw = nullptr;
  DecoderCtx ctx(OSSL_DECODER_CTX_new_for_pkey(&raw, "PEM", nullptr, nullptr,
                                               OSSL_KEYMGMT_SELECT_KEYPAIR, nullptr, nullptr));
  if (!ctx) return openssl_failure("create a key decoder");
  if (OSSL_DECODER_CTX_set_passphrase_cb(ctx.get(), refuse_passphrase, nullptr) != 1) {
    return openssl_failure("configure the key decoder");
  }
  const auto* data = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t len = text.size();
  if (OSSL_DECODER_from_data(ctx.get(), &data, &len) != 1 || raw == nullptr) {
    EVP_PKEY_free(raw);
    return key_error(ErrorCode::kParse,
                     "not a readable PEM private key (expected EC PRIVATE KEY or PRIVATE KEY "
                     "with valid base64 and DER)");
  }
  const Pkey pkey(raw);
  if (auto ok = check_p521_private_key(pkey.get()); !ok) return tl::unexpected(ok.error());
  // Re-encode in the Secret's canonical form: named curve, uncompressed public point (an input
  // may carry explicit P-521 parameters or a compressed point).
  char named_curve[] = "named_curve";
  char uncompressed[] = "uncompressed";
  OSSL_PARAM canonical[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_EC_ENCODING, named_curve, 0),
      OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT, uncompressed, 0),
      OSSL_PARAM_construct_end()};
  if (EVP_PKEY_set_params(pkey.get(), canonical) != 1) {
    return openssl_failure("select the named-curve, uncompressed encoding");
  }
  return key_pair_of(pkey.get());
}

Result<std::string> ssh_public_key_fingerprint(std::string_view authorized_key) {
  auto blob = detail::parse_ecdsa_p521_authorized_key(authorized_key);
  if (!blob) return tl::unexpected(blob.error());
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  if (EVP_Digest(blob->data(), blob->size(), md, &md_len, EVP_sha256(), nullptr) != 1) {
    return openssl_failure("hash the public key");
  }
  std::string b64 = base64_encode(std::string_view(reinterpret_cast<const char*>(md), md_len));
  while (!b64.empty() && b64.back() == '=') b64.pop_back();
  return "SHA256:" + b64;
}

}  // namespace trainer
