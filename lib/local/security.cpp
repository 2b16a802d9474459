// SPDX-License-Identifier: Apache-2.0
#include "local/security.hpp"

#include "local/plan.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainer::local::detail {
namespace json = boost::json;
namespace {

// The API server's range for user and group IDs (ValidateSecurityContext).
constexpr std::int64_t kMaxId = 2147483647;

// A user or group ID at `path`, in the API server's range.
std::optional<Field<std::int64_t>> id_value(const json::value& v, const std::string& path,
                                            std::vector<FieldError>& errors) {
  std::optional<std::int64_t> n;
  if (v.is_int64()) n = v.get_int64();
  if (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(kMaxId)) {
    n = static_cast<std::int64_t>(v.get_uint64());
  }
  if (!n || *n < 0 || *n > kMaxId) {
    errors.push_back(field_invalid(path, v, "must be between 0 and 2147483647, inclusive"));
    return std::nullopt;
  }
  return Field<std::int64_t>{*n, path};
}

std::optional<Field<std::int64_t>> id_at(const json::object& sc, const char* key,
                                         const std::string& path, std::vector<FieldError>& errors) {
  const auto* v = sc.if_contains(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return id_value(*v, path + "." + key, errors);
}

std::optional<Field<bool>> bool_at(const json::object& sc, const char* key, const std::string& path,
                                   std::vector<FieldError>& errors) {
  const auto* v = sc.if_contains(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_bool()) {
    errors.push_back(field_invalid(path + "." + key, *v, "must be a boolean"));
    return std::nullopt;
  }
  return Field<bool>{v->get_bool(), path + "." + key};
}

const json::object* context_of(const json::object& o) {
  const auto* sc = o.if_contains("securityContext");
  return sc != nullptr ? sc->if_object() : nullptr;
}

constexpr int kMaxDepth = 64;

// What fsGroup adds to the modes, as the kubelet's SetVolumeOwnership: read/write for the owner
// and the group (read only for the read-only ConfigMap/Secret volumes), execute and set-group-ID
// on folders. kNone: modes unchanged.
enum class GroupAccess { kNone, kReadWrite, kReadOnly };

mode_t group_bits(GroupAccess access, bool dir) {
  if (access == GroupAccess::kNone) return 0;
  const mode_t mask = access == GroupAccess::kReadWrite ? 0660 : 0440;
  return dir ? (mask | 0110 | S_ISGID) : mask;
}

// Gives the folder `dir` and everything below it to uid/gid (-1: unchanged) and adds the mode
// bits of `access`. Links are changed, never followed.
Result<void> own_tree(int dir, uid_t uid, gid_t gid, GroupAccess access, const std::string& shown,
                      int depth) {
  const auto failed = [&](const std::string& what) {
    return fail(ErrorCode::kIo,
                "giving " + shown + " to the pod's user: " + what + ": " + std::strerror(errno));
  };
  if (depth > kMaxDepth) {
    errno = ELOOP;
    return failed("too deep");
  }
  if (fchown(dir, uid, gid) != 0) return failed("chown");
  struct stat st {};
  if (access != GroupAccess::kNone &&
      (fstat(dir, &st) != 0 || fchmod(dir, (st.st_mode & 07777) | group_bits(access, true)) != 0)) {
    return failed("chmod");
  }
  const int listing = dup(dir);
  DIR* d = listing >= 0 ? fdopendir(listing) : nullptr;
  if (d == nullptr) {
    if (listing >= 0) close(listing);
    return failed("listing");
  }
  Result<void> out;
  for (const dirent* e; out && (e = readdir(d)) != nullptr;) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      out = failed(name);
      break;
    }
    if (S_ISLNK(st.st_mode)) {
      if (fchownat(dir, name.c_str(), uid, gid, AT_SYMLINK_NOFOLLOW) != 0) out = failed(name);
      continue;
    }
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) continue;
    const int fd = openat(
        dir, name.c_str(),
        O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
    if (fd < 0) {
      out = failed(name);
      break;
    }
    if (S_ISDIR(st.st_mode)) {
      out = own_tree(fd, uid, gid, access, shown + "/" + name, depth + 1);
    } else if (fchown(fd, uid, gid) != 0 ||
               (access != GroupAccess::kNone &&
                fchmod(fd, (st.st_mode & 07777) | group_bits(access, false)) != 0)) {
      out = failed(name);
    }
    close(fd);
  }
  closedir(d);
  return out;
}

Result<void> own_folder(const std::string& path, uid_t uid, gid_t gid, GroupAccess access) {
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    return fail(ErrorCode::kIo,
                "giving " + path + " to the pod's user: " + std::string(std::strerror(errno)));
  }
  auto out = own_tree(fd, uid, gid, access, path, 0);
  close(fd);
  return out;
}

FieldError refuse(const Field<std::int64_t>& f, const std::string& detail) {
  return field_invalid(f.path, json::value(f.value), detail);
}

}  // namespace

SecurityContext read_security_context(const json::object& pod_spec, const json::object& container,
                                      const std::string& pod_path,
                                      const std::string& container_path,
                                      std::vector<FieldError>& errors) {
  SecurityContext out;
  if (const auto* name = container.if_contains("name"); name != nullptr && name->is_string()) {
    out.container = std::string(name->get_string());
  }
  // Pod first, then the container's fields override (DetermineEffectiveSecurityContext).
  if (const auto* pod = context_of(pod_spec)) {
    const std::string path = pod_path + ".securityContext";
    out.run_as_user = id_at(*pod, "runAsUser", path, errors);
    out.run_as_group = id_at(*pod, "runAsGroup", path, errors);
    out.run_as_non_root = bool_at(*pod, "runAsNonRoot", path, errors);
    if (const auto* groups = pod->if_contains("supplementalGroups");
        groups != nullptr && !groups->is_null()) {
      if (!groups->is_array()) {
        errors.push_back(field_invalid(path + ".supplementalGroups", *groups, "must be a list"));
      } else {
        const auto& list = groups->get_array();
        for (std::size_t i = 0; i < list.size(); ++i) {
          const auto at = path + ".supplementalGroups[" + std::to_string(i) + "]";
          if (auto g = id_value(list[i], at, errors)) out.supplemental_groups.push_back(*g);
        }
      }
    }
    out.fs_group = id_at(*pod, "fsGroup", path, errors);
    if (out.fs_group) out.supplemental_groups.push_back(*out.fs_group);
  }
  if (const auto* c = context_of(container)) {
    const std::string path = container_path + ".securityContext";
    if (auto u = id_at(*c, "runAsUser", path, errors)) out.run_as_user = u;
    if (auto g = id_at(*c, "runAsGroup", path, errors)) out.run_as_group = g;
    if (auto n = bool_at(*c, "runAsNonRoot", path, errors)) out.run_as_non_root = n;
  }
  return out;
}

Identity current_identity() {
  Identity self{geteuid(), getegid(), {}};
  const int n = getgroups(0, nullptr);
  if (n > 0) {
    self.groups.resize(static_cast<std::size_t>(n));
    const int got = getgroups(n, self.groups.data());
    self.groups.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  }
  return self;
}

Result<std::optional<PodUser>> resolve_pod_user(const SecurityContext& context,
                                                const Identity& self, const std::string& pod) {
  std::vector<FieldError> errors;
  const std::string who = "(pod: \"" + pod + "\", container: " + context.container + ")";
  const auto uid = context.run_as_user ? static_cast<uid_t>(context.run_as_user->value) : self.uid;
  // The kubelet's verifyRunAsNonRoot, with the executor's user as the image's.
  if (context.run_as_non_root && context.run_as_non_root->value) {
    if (context.run_as_user && context.run_as_user->value == 0) {
      errors.push_back(
          refuse(*context.run_as_user, "container's runAsUser breaks non-root policy " + who));
    } else if (!context.run_as_user && self.uid == 0) {
      errors.push_back(
          field_invalid(context.run_as_non_root->path, json::value(true),
                        "container has runAsNonRoot and image will run as root " + who +
                            "; locally the image's user is the executor's (uid 0): set runAsUser"));
    }
  }
  const bool asks =
      context.run_as_user || context.run_as_group || !context.supplemental_groups.empty();
  if (self.uid != 0) {
    // Without root nothing can be switched: what is asked must be what the executor is.
    const auto has_group = [&](std::int64_t g) {
      return static_cast<gid_t>(g) == self.gid ||
             std::find(self.groups.begin(), self.groups.end(), static_cast<gid_t>(g)) !=
                 self.groups.end();
    };
    const std::string why = " locally: the executor runs as uid " + std::to_string(self.uid) +
                            " (gid " + std::to_string(self.gid) +
                            ") and only root can give a pod another user or group " + who;
    if (context.run_as_user && uid != self.uid) {
      errors.push_back(refuse(*context.run_as_user, "cannot be applied" + why));
    }
    if (context.run_as_group && static_cast<gid_t>(context.run_as_group->value) != self.gid) {
      errors.push_back(refuse(*context.run_as_group, "cannot be applied" + why));
    }
    for (const auto& g : context.supplemental_groups) {
      if (!has_group(g.value)) errors.push_back(refuse(g, "cannot be applied" + why));
    }
  }
  if (!errors.empty()) return tl::unexpected(Error::invalid(std::move(errors)));
  if (self.uid != 0 || !asks) return std::optional<PodUser>{};

  PodUser user;
  user.uid = uid;
  user.gid = 0;
  // The image's user database is the host's here.
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  const bool known = getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr;
  if (known) user.gid = pw.pw_gid;
  if (context.run_as_group) user.gid = static_cast<gid_t>(context.run_as_group->value);
  if (known) {
    int n = 64;
    std::vector<gid_t> groups(static_cast<std::size_t>(n));
    if (getgrouplist(pw.pw_name, user.gid, groups.data(), &n) < 0 && n > 64) {
      groups.resize(static_cast<std::size_t>(n));
      getgrouplist(pw.pw_name, user.gid, groups.data(), &n);
    }
    groups.resize(static_cast<std::size_t>(std::max(n, 0)));
    for (const auto g : groups) {
      if (g != user.gid) user.groups.push_back(g);
    }
  }
  for (const auto& g : context.supplemental_groups) {
    const auto gid = static_cast<gid_t>(g.value);
    if (std::find(user.groups.begin(), user.groups.end(), gid) == user.groups.end()) {
      user.groups.push_back(gid);
    }
  }
  return std::optional<PodUser>{std::move(user)};
}

Result<void> check_pod_users(const Plan& plan, const Identity& self) {
  std::vector<FieldError> errors;
  std::vector<std::string> checked;
  for (const auto& pod : plan.pods) {
    const auto& path = pod.container.path;
    if (std::find(checked.begin(), checked.end(), path) != checked.end()) continue;
    checked.push_back(path);
    auto user = resolve_pod_user(pod.container.security, self, pod.hostname);
    if (!user) {
      for (auto& e : user.error().fields) errors.push_back(std::move(e));
    }
  }
  if (!errors.empty()) return tl::unexpected(Error::invalid(std::move(errors)));
  return {};
}

Result<void> give_volumes(const PodPlan& pod, const std::string& run_dir,
                          const std::string& pod_dir, const std::optional<PodUser>& user) {
  const auto& fs = pod.container.security.fs_group;
  if (!user && !fs) return {};
  const auto keep_uid = static_cast<uid_t>(-1);
  const auto keep_gid = static_cast<gid_t>(-1);
  for (const auto& v : pod.volumes) {
    switch (v.kind) {
      case Volume::Kind::kEmptyDir:
      case Volume::Kind::kFiles: {
        // The attempt's own copy: the pod's user owns it, fsGroup is its group.
        const auto gid = fs ? static_cast<gid_t>(fs->value) : user ? user->gid : keep_gid;
        const auto access = !fs                              ? GroupAccess::kNone
                            : v.kind == Volume::Kind::kFiles ? GroupAccess::kReadOnly
                                                             : GroupAccess::kReadWrite;
        auto given =
            own_folder(pod_dir + "/volumes/" + v.name, user ? user->uid : keep_uid, gid, access);
        if (!given) return given;
        break;
      }
      case Volume::Kind::kClaim:
        // Shared by the run's pods: only fsGroup changes it, as on a cluster.
        if (fs) {
          auto given = own_folder(run_dir + "/claims/" + v.claim, keep_uid,
                                  static_cast<gid_t>(fs->value), GroupAccess::kReadWrite);
          if (!given) return given;
        }
        break;
      case Volume::Kind::kHostPath: break;
    }
  }
  return {};
}

json::value pod_user_json(const std::optional<PodUser>& user) {
  if (!user) return nullptr;
  json::array groups;
  for (const auto g : user->groups) groups.emplace_back(static_cast<std::int64_t>(g));
  return json::object{{"uid", static_cast<std::int64_t>(user->uid)},
                      {"gid", static_cast<std::int64_t>(user->gid)},
                      {"groups", std::move(groups)}};
}

}  // namespace trainer::local::detail
