// SPDX-License-Identifier: Apache-2.0
#include "local/volumes.hpp"

#include "local/env.hpp"
#include "local/path_rules.hpp"
#include "local/run_folder.hpp"

#include <boost/json.hpp>

#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainer::local::detail {
namespace json = boost::json;
namespace {

// One volume on the host: its path (for the helper's mount) and a descriptor of its folder.
struct Source {
  std::string path;
  Fd fd;
  bool host_path = false;
};

// The elements of a validated relative path joined again without `.` and empty ones.
std::string normalized(std::string_view rel) {
  std::string out;
  for (std::size_t start = 0; start <= rel.size();) {
    auto slash = rel.find('/', start);
    if (slash == std::string_view::npos) slash = rel.size();
    const auto e = rel.substr(start, slash - start);
    if (!e.empty() && e != ".") out += (out.empty() ? "" : "/") + std::string(e);
    start = slash + 1;
  }
  return out;
}

// `volumes_fd`: the attempt's volumes/ folder, made on first use (a pod without emptyDir,
// ConfigMap or Secret volumes has none).
Result<Source> make_source(const Volume& v, const PodFolder& folder, Fd& volumes_fd) {
  Source s;
  switch (v.kind) {
    case Volume::Kind::kEmptyDir:
    case Volume::Kind::kFiles: {
      s.path = folder.run_dir + "/pods/" + folder.name + "/volumes/" + v.name;
      if (volumes_fd.get() < 0) {
        auto made =
            open_below(folder.pod_fd, "volumes", true, folder.run_dir + "/pods/" + folder.name);
        if (!made) return tl::unexpected(std::move(made.error()));
        volumes_fd = std::move(*made);
      }
      auto fd = open_below(volumes_fd.get(), v.name, true,
                           folder.run_dir + "/pods/" + folder.name + "/volumes");
      if (!fd) return tl::unexpected(std::move(fd.error()));
      s.fd = std::move(*fd);
      break;
    }
    case Volume::Kind::kClaim: {
      s.path = folder.run_dir + "/claims/" + v.claim;
      auto fd = open_below(folder.run_fd, "claims/" + v.claim, true, folder.run_dir);
      if (!fd) return tl::unexpected(std::move(fd.error()));
      s.fd = std::move(*fd);
      break;
    }
    case Volume::Kind::kHostPath:
      // The host path is the TrainJob's explicit choice; only what lies below it (a subPath) is
      // resolved without links, and only when a mount asks for one.
      s.path = v.host_path;
      s.host_path = true;
      break;
  }
  return s;
}

}  // namespace

unsigned host_file_mode(const Volume& volume, unsigned requested) {
  return volume.secret ? (requested & 0700U) : requested;
}

Result<json::array> prepare_volumes(const PodPlan& pod, const PodFolder& folder, bool with_mounts,
                                    const std::map<std::string, std::string>& vars,
                                    const TokenIssuer& issue_token) {
  Fd volumes_fd;
  std::map<std::string, Source> sources;
  for (const auto& v : pod.volumes) {
    auto source = make_source(v, folder, volumes_fd);
    if (!source) return tl::unexpected(std::move(source.error()));
    for (const auto& f : v.files) {
      auto written = write_file_below(source->fd.get(), f.path, f.content,
                                      host_file_mode(v, f.mode), source->path);
      if (!written) return tl::unexpected(std::move(written.error()));
    }
    for (const auto& t : v.tokens) {
      if (!issue_token) {
        return fail(ErrorCode::kUnsupported, t.field + ": no token issuer for this run");
      }
      auto token = issue_token(t);
      if (!token) return tl::unexpected(std::move(token.error()));
      auto written = write_file_below(source->fd.get(), t.path, *token, host_file_mode(v, t.mode),
                                      source->path);
      if (!written) return tl::unexpected(std::move(written.error()));
    }
    sources.emplace(v.name, std::move(*source));
  }

  json::array mounts;
  if (!with_mounts) return mounts;
  for (std::size_t i = 0; i < pod.container.mounts.size(); ++i) {
    const auto& m = pod.container.mounts[i];
    auto& source = sources.at(m.volume);
    std::string sub = m.sub_path;
    if (!m.sub_path_expr.empty()) {
      // As the kubelet: expanded with the container's env, then held to the subPath rules.
      sub = expand(m.sub_path_expr, vars);
      auto errs = validate_local_descending_path(
          pod.container.path + ".volumeMounts[" + std::to_string(i) + "].subPathExpr", sub);
      if (!errs.empty()) return tl::unexpected(Error::invalid(std::move(errs)));
    }
    std::string src = source.path;
    bool file = false;
    if (source.host_path && source.fd.get() < 0 && !sub.empty()) {
      const int fd = open(source.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) {
        return fail(ErrorCode::kIo,
                    "opening hostPath " + source.path + ": " + std::strerror(errno));
      }
      source.fd = Fd(fd);
    }
    if (!sub.empty()) {
      auto node = open_node_below(source.fd.get(), sub, source.path);
      if (!node) return tl::unexpected(std::move(node.error()));
      if (const auto rel = normalized(sub); !rel.empty()) src += "/" + rel;
      file = !node->is_dir;
    } else if (source.host_path) {
      struct stat st {};
      file = stat(src.c_str(), &st) == 0 && !S_ISDIR(st.st_mode);
    }
    mounts.push_back(json::object{
        {"source", src}, {"target", m.mount_path}, {"readOnly", m.read_only}, {"file", file}});
  }
  return mounts;
}

}  // namespace trainer::local::detail
