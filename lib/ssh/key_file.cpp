// SPDX-License-Identifier: Apache-2.0
// `--ssh-private-key FILE`: reads a private key file and derives its key pair.
#include "trainer/ssh.hpp"

#include <openssl/crypto.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace trainer {
namespace {

struct FileClose {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// Larger than any PEM private key; ssh_key_pair_from_private_key applies the exact limit.
constexpr std::size_t kMaxFileBytes = 64 * 1024 + 1;

}  // namespace

Result<SshKeyPair> read_ssh_key_pair_file(const std::string& path) {
  errno = 0;
  const std::unique_ptr<std::FILE, FileClose> file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    return fail(ErrorCode::kIo,
                "cannot open SSH private key file \"" + path + "\": " + std::strerror(errno));
  }
  std::string text(kMaxFileBytes, '\0');
  const std::size_t n = std::fread(text.data(), 1, text.size(), file.get());
  if (std::ferror(file.get()) != 0) {
    OPENSSL_cleanse(text.data(), text.size());
    return fail(ErrorCode::kIo, "cannot read SSH private key file \"" + path + "\"");
  }
  text.resize(n);
  auto pair = ssh_key_pair_from_private_key(text);
  OPENSSL_cleanse(text.data(), text.size());
  if (!pair) {
    auto error = pair.error();
    error.message = path + ": " + error.message;
    return tl::unexpected(std::move(error));
  }
  return pair;
}

}  // namespace trainer
