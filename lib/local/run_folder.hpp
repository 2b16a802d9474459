// SPDX-License-Identifier: Apache-2.0
//
// The run folder (docs/local.md): state.json, hosts, logs/, pods/<pod>/, claims/, sockets/.
// Everything below the run folder is created and opened relative to a folder descriptor, one
// path element at a time, never following a symbolic link (docs/local.md, "Path safety").
#pragma once

#include "trainer/error.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace trainer::local::detail {

/// An owned file descriptor (-1: none). Move-only.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) noexcept : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  [[nodiscard]] int get() const noexcept { return fd_; }
  [[nodiscard]] int release() noexcept;

 private:
  int fd_ = -1;
};

/// Opens the folder `path` (following links: the caller chose it), creating it (with `mode`) and
/// its parents (0755) when missing.
[[nodiscard]] Result<Fd> open_root(const std::string& path, unsigned mode = 0755);

/// The folder `rel` below the folder `dir`, created when `create` (with `mode`, per element),
/// opened element by element with `O_NOFOLLOW`: a symbolic link anywhere below `dir` is refused
/// (ELOOP), never followed. Empty and `.` elements are skipped; a `..` element is refused.
/// `shown` names `dir` in error messages.
[[nodiscard]] Result<Fd> open_below(int dir, std::string_view rel, bool create,
                                    const std::string& shown, unsigned mode = 0755);

/// What `open_node_below` found.
struct Node {
  Fd fd;  ///< an `O_PATH` descriptor of the file or folder
  bool is_dir = false;
};

/// The file or folder `rel` below `dir` (its last element may be a file), without following a
/// symbolic link; a missing last element is created as a folder (Kubernetes creates a missing
/// `subPath` as a folder).
[[nodiscard]] Result<Node> open_node_below(int dir, std::string_view rel, const std::string& shown);

/// Creates the file `name` (one path element) in the folder `dir` for writing, replacing an
/// existing entry (unlinked first, so an existing link, hard or symbolic, is never written
/// through), with exactly `mode`, whatever the umask.
[[nodiscard]] Result<Fd> create_file_at(int dir, std::string_view name, unsigned mode,
                                        const std::string& shown);

/// Writes `content` to the file `rel` below `dir` (its folders created), as `create_file_at`.
[[nodiscard]] Result<void> write_file_below(int dir, std::string_view rel, std::string_view content,
                                            unsigned mode, const std::string& shown);

/// The combined log's name in the run folder (`trainer::local::combined_log_path`).
inline constexpr const char* kRunLogName = "run.log";

/// Writes `state.json` in the run folder `run` (open, named `run_dir` in errors) atomically: a
/// reader never sees half a document.
[[nodiscard]] Result<void> write_state(int run, const std::string& run_dir,
                                       const boost::json::value& state);

}  // namespace trainer::local::detail
