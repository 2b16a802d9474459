// SPDX-License-Identifier: Apache-2.0
// `trainerctl keygen [-o DIR]`: an MPI SSH key pair as the files of a `kubernetes.io/ssh-auth`
// Secret: DIR/ssh-privatekey (SEC 1 PEM, mode 0600) and DIR/ssh-publickey (authorized_keys
// line, mode 0644). Existing files are never overwritten, and nothing is left behind on error.
#include "commands.hpp"

#include "trainer/ssh.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainerctl {
namespace {

// A file this command created, removed again unless committed.
class NewFile {
 public:
  explicit NewFile(std::string path) : path_(std::move(path)) {}
  NewFile(const NewFile&) = delete;
  NewFile& operator=(const NewFile&) = delete;
  ~NewFile() {
    if (fd_ >= 0) ::close(fd_);
    if (created_ && !committed_) ::unlink(path_.c_str());
  }

  // Creates the file exclusively with `mode` from the start (umask cannot widen it, and an
  // fchmod afterwards makes it exact); refuses existing files and symbolic links.
  bool create(mode_t mode) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd_ < 0) return fail("cannot create");
    created_ = true;
    if (::fchmod(fd_, mode) != 0) return fail("cannot set the mode of");
    return true;
  }

  bool write_all(std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::write(fd_, data.data(), data.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return fail("cannot write");
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    if (::fsync(fd_) != 0) return fail("cannot write");
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) return fail("cannot write");
    return true;
  }

  void commit() { committed_ = true; }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  bool fail(const char* what) {
    std::fprintf(stderr, "error: %s %s: %s\n", what, path_.c_str(), std::strerror(errno));
    return false;
  }

  std::string path_;
  int fd_ = -1;
  bool created_ = false;
  bool committed_ = false;
};

int run_keygen(const Parsed& args) {
  const std::string dir = args.value("output-dir");
  if (dir.empty()) {
    std::fprintf(stderr,
                 "error: -o needs a directory\nSee 'trainerctl keygen --help' for usage.\n");
    return kExitUsage;
  }

  auto pair = trainer::generate_ssh_key_pair();
  if (!pair) {
    std::fprintf(stderr, "error: %s\n", pair.error().message.c_str());
    return kExitFailed;
  }
  auto fingerprint = trainer::ssh_public_key_fingerprint(pair->authorized_key);
  if (!fingerprint) {
    std::fprintf(stderr, "error: %s\n", fingerprint.error().message.c_str());
    return kExitFailed;
  }

  // A missing DIR is created (owner-only, as ~/.ssh), like `ssh-keygen -f` users expect of -o.
  std::error_code ec;
  if (std::filesystem::create_directories(dir, ec)) {
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
  }
  if (ec) {
    std::fprintf(stderr, "error: cannot create directory %s: %s\n", dir.c_str(),
                 ec.message().c_str());
    return kExitFailed;
  }
  const std::string base = dir.back() == '/' ? dir : dir + "/";
  NewFile private_key(base + "ssh-privatekey");
  NewFile public_key(base + "ssh-publickey");
  // Both files are created before either is written, so an existing public key file is found
  // before any key material reaches the disk.
  const bool ok = private_key.create(S_IRUSR | S_IWUSR) &&
                  public_key.create(S_IRUSR | S_IWUSR | S_IRGRP | S_IROTH) &&
                  private_key.write_all(pair->private_key_pem) &&
                  public_key.write_all(pair->authorized_key);
  std::fill(pair->private_key_pem.begin(), pair->private_key_pem.end(), '\0');
  if (!ok) return kExitFailed;
  private_key.commit();
  public_key.commit();
  std::printf("private key: %s\npublic key:  %s\nfingerprint: %s (ECDSA P-521)\n",
              private_key.path().c_str(), public_key.path().c_str(), fingerprint->c_str());
  return kExitOk;
}

}  // namespace

const Command& keygen_command() {
  static const Command command{
      "keygen",
      "write an MPI SSH key pair (ssh-privatekey, ssh-publickey)",
      "Generates an ECDSA P-521 key pair for MPI jobs, in the format of the <job>-mpi-ssh-auth\n"
      "Secret: DIR/ssh-privatekey (PEM \"EC PRIVATE KEY\", mode 0600) and DIR/ssh-publickey\n"
      "(OpenSSH authorized_keys line). Existing files are not overwritten. Use the private key\n"
      "with `trainerctl render --ssh-private-key DIR/ssh-privatekey`.",
      {},
      {{"output-dir",
        'o',
        "DIR",
        "where the key files go; created (mode 0700) when missing",
        {},
        "."}},
      run_keygen};
  return command;
}

}  // namespace trainerctl
