// SPDX-License-Identifier: Apache-2.0
#include "serving/certificates.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_dispatch.h>
#include <openssl/encoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <boost/asio/ip/address.hpp>

#include <ctime>
#include <memory>

namespace trainer::serving {

namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(X509_NAME* p) const { X509_NAME_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
  void operator()(GENERAL_NAMES* p) const { GENERAL_NAMES_free(p); }
  void operator()(X509_STORE* p) const { X509_STORE_free(p); }
  void operator()(X509_STORE_CTX* p) const { X509_STORE_CTX_free(p); }
  void operator()(BIGNUM* p) const { BN_free(p); }
  void operator()(ASN1_INTEGER* p) const { ASN1_INTEGER_free(p); }
  void operator()(OSSL_ENCODER_CTX* p) const { OSSL_ENCODER_CTX_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, Free>;
using Cert = std::unique_ptr<X509, Free>;
using Bio = std::unique_ptr<BIO, Free>;

std::string openssl_reason() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

tl::unexpected<Error> openssl_fail(const std::string& what) {
  return fail(ErrorCode::kInternal, what + ": " + openssl_reason());
}

Result<Cert> parse_cert(std::string_view pem, std::string_view what) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return openssl_fail("BIO_new_mem_buf");
  Cert cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  ERR_clear_error();
  if (!cert) return fail(ErrorCode::kParse, std::string(what) + ": not a PEM certificate");
  return cert;
}

Result<Pkey> parse_key(std::string_view pem, std::string_view what) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return openssl_fail("BIO_new_mem_buf");
  Pkey key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  ERR_clear_error();
  if (!key) return fail(ErrorCode::kParse, std::string(what) + ": not a PEM private key");
  return key;
}

Result<std::string> to_pem(X509* cert) {
  Bio bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return openssl_fail("PEM_write_bio_X509");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

// `RSA PRIVATE KEY` (PKCS#1), what cert-controller writes (x509.MarshalPKCS1PrivateKey).
Result<std::string> to_pem(EVP_PKEY* key) {
  std::unique_ptr<OSSL_ENCODER_CTX, Free> ctx(OSSL_ENCODER_CTX_new_for_pkey(
      key, OSSL_KEYMGMT_SELECT_KEYPAIR, "PEM", "type-specific", nullptr));
  if (!ctx || OSSL_ENCODER_CTX_get_num_encoders(ctx.get()) == 0) {
    return openssl_fail("no PKCS#1 PEM encoder");
  }
  unsigned char* data = nullptr;
  std::size_t size = 0;
  if (OSSL_ENCODER_to_data(ctx.get(), &data, &size) != 1) return openssl_fail("encoding the key");
  std::string pem(reinterpret_cast<const char*>(data), size);
  OPENSSL_clear_free(data, size);
  return pem;
}

Result<Pkey> new_rsa_key() {
  Pkey key(EVP_RSA_gen(2048));
  if (!key) return openssl_fail("RSA key generation");
  return key;
}

bool is_ip(const std::string& host) {
  boost::system::error_code ec;
  boost::asio::ip::make_address(host, ec);
  return !ec;
}

Result<void> add_extension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  std::unique_ptr<X509_EXTENSION, Free> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) {
    return openssl_fail(std::string("certificate extension ") + OBJ_nid2sn(nid));
  }
  return {};
}

// A new certificate for `key`: version 3, random 128-bit serial, subject CN (and O), validity
// [now - 1h, now - 1h + validity) as cert-controller's `begin := time.Now().Add(-1 * time.Hour)`.
Result<Cert> new_cert(EVP_PKEY* key, std::string_view common_name, std::string_view organization,
                      Clock::time_point now, std::chrono::seconds validity) {
  Cert cert(X509_new());
  if (!cert || X509_set_version(cert.get(), 2) != 1) return openssl_fail("X509_new");
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return openssl_fail("RAND_bytes");
  serial[0] &= 0x7f;  // positive
  std::unique_ptr<BIGNUM, Free> bn(BN_bin2bn(serial, sizeof serial, nullptr));
  if (!bn || !BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert.get()))) {
    return openssl_fail("certificate serial");
  }
  const std::time_t begin = Clock::to_time_t(now - std::chrono::hours(1));
  const std::time_t end = begin + static_cast<std::time_t>(validity.count());
  if (!ASN1_TIME_set(X509_getm_notBefore(cert.get()), begin) ||
      !ASN1_TIME_set(X509_getm_notAfter(cert.get()), end)) {
    return openssl_fail("certificate validity");
  }
  X509_NAME* name = X509_get_subject_name(cert.get());
  if (!organization.empty() &&
      X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(organization.data()),
                                 static_cast<int>(organization.size()), -1, 0) != 1) {
    return openssl_fail("certificate organization");
  }
  if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(common_name.data()),
                                 static_cast<int>(common_name.size()), -1, 0) != 1) {
    return openssl_fail("certificate common name");
  }
  if (X509_set_pubkey(cert.get(), key) != 1) return openssl_fail("X509_set_pubkey");
  return cert;
}

Clock::time_point from_asn1(const ASN1_TIME* time) {
  std::tm tm{};
  if (ASN1_TIME_to_tm(time, &tm) != 1) return Clock::time_point{};
  return Clock::from_time_t(timegm(&tm));
}

std::string format_time(Clock::time_point at) {
  const std::time_t t = Clock::to_time_t(at);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace

Result<KeyPair> issue_ca(std::string_view common_name, std::string_view organization,
                         Clock::time_point now, std::chrono::seconds validity) {
  auto key = new_rsa_key();
  if (!key) return tl::unexpected(std::move(key.error()));
  auto cert = new_cert(key->get(), common_name, organization, now, validity);
  if (!cert) return tl::unexpected(std::move(cert.error()));
  X509* x = cert->get();
  if (X509_set_issuer_name(x, X509_get_subject_name(x)) != 1) return openssl_fail("issuer");
  const std::string san = "DNS:" + std::string(common_name);
  for (const auto& [nid, value] :
       {std::pair{NID_basic_constraints, "critical,CA:TRUE"},
        std::pair{NID_subject_alt_name, san.c_str()},
        std::pair{NID_key_usage, "critical,digitalSignature,keyEncipherment,keyCertSign"},
        std::pair{NID_subject_key_identifier, "hash"}}) {
    if (auto added = add_extension(x, x, nid, value); !added) {
      return tl::unexpected(std::move(added.error()));
    }
  }
  if (X509_sign(x, key->get(), EVP_sha256()) == 0) return openssl_fail("signing the CA");
  auto cert_pem = to_pem(x);
  if (!cert_pem) return tl::unexpected(std::move(cert_pem.error()));
  auto key_pem = to_pem(key->get());
  if (!key_pem) return tl::unexpected(std::move(key_pem.error()));
  return KeyPair{std::move(*cert_pem), std::move(*key_pem)};
}

Result<KeyPair> issue_serving(const KeyPair& ca, const std::vector<std::string>& hosts,
                              Clock::time_point now, std::chrono::seconds validity) {
  if (hosts.empty()) return fail(ErrorCode::kInvalidArgument, "serving certificate: no host");
  std::string san;
  for (const auto& host : hosts) {
    if (host.empty() || host.find_first_of(", \t\r\n") != std::string::npos) {
      return fail(ErrorCode::kInvalidArgument,
                  "serving certificate: host \"" + host + "\" is not a DNS name or IP address");
    }
    if (!san.empty()) san += ',';
    san += (is_ip(host) ? "IP:" : "DNS:") + host;
  }
  auto ca_cert = parse_cert(ca.cert_pem, "ca.crt");
  if (!ca_cert) return fail(ErrorCode::kInvalidArgument, ca_cert.error().message);
  auto ca_key = parse_key(ca.key_pem, "ca.key");
  if (!ca_key) return fail(ErrorCode::kInvalidArgument, ca_key.error().message);
  if (X509_check_private_key(ca_cert->get(), ca_key->get()) != 1) {
    ERR_clear_error();
    return fail(ErrorCode::kInvalidArgument, "ca.key: does not belong to ca.crt");
  }
  auto key = new_rsa_key();
  if (!key) return tl::unexpected(std::move(key.error()));
  auto cert = new_cert(key->get(), hosts.front(), "", now, validity);
  if (!cert) return tl::unexpected(std::move(cert.error()));
  X509* x = cert->get();
  if (X509_set_issuer_name(x, X509_get_subject_name(ca_cert->get())) != 1) {
    return openssl_fail("issuer");
  }
  for (const auto& [nid, value] :
       {std::pair{NID_basic_constraints, "critical,CA:FALSE"},
        std::pair{NID_key_usage, "critical,digitalSignature,keyEncipherment"},
        std::pair{NID_ext_key_usage, "serverAuth"},
        std::pair{NID_authority_key_identifier, "keyid:always"},
        std::pair{NID_subject_alt_name, san.c_str()}}) {
    if (auto added = add_extension(x, ca_cert->get(), nid, value); !added) {
      return tl::unexpected(std::move(added.error()));
    }
  }
  if (X509_sign(x, ca_key->get(), EVP_sha256()) == 0) {
    return openssl_fail("signing the serving certificate");
  }
  auto cert_pem = to_pem(x);
  if (!cert_pem) return tl::unexpected(std::move(cert_pem.error()));
  auto key_pem = to_pem(key->get());
  if (!key_pem) return tl::unexpected(std::move(key_pem.error()));
  return KeyPair{std::move(*cert_pem), std::move(*key_pem)};
}

Result<CertificateSet> issue_certificates(const std::vector<std::string>& hosts,
                                          Clock::time_point now) {
  auto ca = issue_ca(kCaName, kCaOrganization, now);
  if (!ca) return tl::unexpected(std::move(ca.error()));
  auto serving = issue_serving(*ca, hosts, now);
  if (!serving) return tl::unexpected(std::move(serving.error()));
  return CertificateSet{std::move(*ca), std::move(*serving)};
}

Result<CertificateInfo> inspect_certificate(std::string_view pem, std::string_view what) {
  auto cert = parse_cert(pem, what);
  if (!cert) return tl::unexpected(std::move(cert.error()));
  X509* x = cert->get();
  CertificateInfo info;
  char cn[256] = {};
  if (X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, cn, sizeof cn) > 0) {
    info.common_name = cn;
  }
  info.not_before = from_asn1(X509_get0_notBefore(x));
  info.not_after = from_asn1(X509_get0_notAfter(x));
  info.is_ca = X509_check_ca(x) != 0;
  std::unique_ptr<GENERAL_NAMES, Free> names(
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(x, NID_subject_alt_name, nullptr, nullptr)));
  if (names) {
    for (int i = 0; i < sk_GENERAL_NAME_num(names.get()); ++i) {
      const GENERAL_NAME* name = sk_GENERAL_NAME_value(names.get(), i);
      if (name->type == GEN_DNS) {
        const auto* text = name->d.dNSName;
        info.dns_names.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(text)),
                                    static_cast<std::size_t>(ASN1_STRING_length(text)));
      } else if (name->type == GEN_IPADD) {
        const auto* raw = name->d.iPAddress;
        const auto* bytes = ASN1_STRING_get0_data(raw);
        if (ASN1_STRING_length(raw) == 4) {
          boost::asio::ip::address_v4::bytes_type v4;
          std::copy(bytes, bytes + 4, v4.begin());
          info.ip_addresses.push_back(boost::asio::ip::address_v4(v4).to_string());
        } else if (ASN1_STRING_length(raw) == 16) {
          boost::asio::ip::address_v6::bytes_type v6;
          std::copy(bytes, bytes + 16, v6.begin());
          info.ip_addresses.push_back(boost::asio::ip::address_v6(v6).to_string());
        }
      }
    }
  }
  ERR_clear_error();
  return info;
}

Result<void> verify_certificate(const std::string& ca_pem, const std::string& cert_pem,
                                const std::string& key_pem, const std::vector<std::string>& hosts,
                                Clock::time_point at) {
  const bool self_signed = ca_pem.empty();
  const std::string cert_name = self_signed ? "ca.crt" : "tls.crt";
  const std::string key_name = self_signed ? "ca.key" : "tls.key";
  const auto invalid = [&](const std::string& why) {
    return fail(ErrorCode::kInvalid, cert_name + ": " + why);
  };
  auto cert = parse_cert(cert_pem, cert_name);
  if (!cert) return tl::unexpected(std::move(cert.error()));
  auto key = parse_key(key_pem, key_name);
  if (!key) return tl::unexpected(std::move(key.error()));
  if (X509_check_private_key(cert->get(), key->get()) != 1) {
    ERR_clear_error();
    return fail(ErrorCode::kInvalid, key_name + ": does not belong to " + cert_name);
  }
  Cert ca;
  if (self_signed) {
    if (X509_check_ca(cert->get()) == 0) return invalid("is not a CA certificate");
  } else {
    auto parsed = parse_cert(ca_pem, "ca.crt");
    if (!parsed) return tl::unexpected(std::move(parsed.error()));
    ca = std::move(*parsed);
  }
  std::unique_ptr<X509_STORE, Free> store(X509_STORE_new());
  std::unique_ptr<X509_STORE_CTX, Free> ctx(X509_STORE_CTX_new());
  if (!store || !ctx ||
      X509_STORE_add_cert(store.get(), self_signed ? cert->get() : ca.get()) != 1 ||
      X509_STORE_CTX_init(ctx.get(), store.get(), cert->get(), nullptr) != 1) {
    return openssl_fail("X509_STORE");
  }
  X509_STORE_CTX_set_time(ctx.get(), 0, Clock::to_time_t(at));
  if (X509_verify_cert(ctx.get()) != 1) {
    const int code = X509_STORE_CTX_get_error(ctx.get());
    ERR_clear_error();
    if (code == X509_V_ERR_CERT_HAS_EXPIRED) {
      auto info = inspect_certificate(cert_pem, cert_name);
      return invalid("expires at " + (info ? format_time(info->not_after) : std::string("?")) +
                     ", before " + format_time(at));
    }
    if (code == X509_V_ERR_CERT_NOT_YET_VALID) {
      return invalid("not valid before " + format_time(at));
    }
    return invalid(std::string("not signed by ca.crt: ") + X509_verify_cert_error_string(code));
  }
  for (const auto& host : hosts) {
    const int covered = is_ip(host)
                            ? X509_check_ip_asc(cert->get(), host.c_str(), 0)
                            : X509_check_host(cert->get(), host.data(), host.size(), 0, nullptr);
    if (covered != 1) {
      ERR_clear_error();
      return invalid("does not cover " + host);
    }
  }
  return {};
}

Result<void> verify_certificates(const CertificateSet& set, const std::vector<std::string>& hosts,
                                 Clock::time_point at) {
  if (auto ca = verify_certificate("", set.ca.cert_pem, set.ca.key_pem, {}, at); !ca) return ca;
  return verify_certificate(set.ca.cert_pem, set.serving.cert_pem, set.serving.key_pem, hosts, at);
}

}  // namespace trainer::serving
