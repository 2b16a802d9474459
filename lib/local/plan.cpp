// SPDX-License-Identifier: Apache-2.0
#include "local/plan.hpp"
#include "trainer/json_path.hpp"

#include "local/path_rules.hpp"
#include "trainer/base64.hpp"
#include "trainer/names.hpp"

#include <boost/json.hpp>

#include <set>
#include <utility>

namespace trainer::local::detail {
namespace json = boost::json;
using trainer::bool_at;
using trainer::find_array;
using trainer::find_int;
using trainer::find_object;
using trainer::string_at;
namespace {

std::map<std::string, std::string> string_map(const json::object* o) {
  std::map<std::string, std::string> out;
  if (o == nullptr) return out;
  for (const auto& kv : *o) {
    if (kv.value().is_string()) out.emplace(kv.key(), std::string(kv.value().get_string()));
  }
  return out;
}

// Collects field errors while reading; the plan is refused when any was found.
struct Reader {
  Plan plan;
  std::vector<FieldError> errors;

  void invalid(std::string path, json::value value, std::string detail) {
    errors.push_back(field_invalid(std::move(path), std::move(value), std::move(detail)));
  }
  void required(std::string path, std::string detail) {
    errors.push_back(field_required(std::move(path), std::move(detail)));
  }
  // Every message of a kube/names.hpp rule as an Invalid value at `path`.
  void name_rule(const std::string& path, const std::string& value,
                 const trainer::NameMessages& messages) {
    for (const auto& msg : messages) invalid(path, json::value(value), msg);
  }
  void add(std::vector<FieldError> errs) {
    for (auto& e : errs) errors.push_back(std::move(e));
  }
  // ConfigMap and Secret data keys are file names in volumes (`IsConfigMapKey`).
  void data_keys(const std::string& path, const json::object* data) {
    if (data == nullptr) return;
    for (const auto& kv : *data) {
      const std::string key(kv.key());
      name_rule(path + "[" + key + "]", key, trainer::is_config_map_key(key));
    }
  }

  void read_config_map(const json::object& o) {
    const auto* meta = find_object(o, "metadata");
    const std::string name = meta != nullptr ? string_at(*meta, "name") : "";
    data_keys("ConfigMap(" + name + ").data", find_object(o, "data"));
    data_keys("ConfigMap(" + name + ").binaryData", find_object(o, "binaryData"));
    auto data = string_map(find_object(o, "data"));
    // binaryData is base64 like Secret data; both end up as file contents or env values.
    if (const auto* bin = find_object(o, "binaryData")) {
      for (const auto& kv : *bin) {
        if (!kv.value().is_string()) continue;
        if (auto bytes = trainer::base64_decode(kv.value().get_string(), Base64Decoding::kGo)) {
          data[kv.key()] = *bytes;
        } else {
          invalid("ConfigMap(" + name + ").binaryData." + std::string(kv.key()),
                  json::value("<binary>"), "not valid base64");
        }
      }
    }
    plan.config_maps[name] = std::move(data);
  }

  void read_secret(const json::object& o) {
    const auto* meta = find_object(o, "metadata");
    const std::string name = meta != nullptr ? string_at(*meta, "name") : "";
    // stringData is merged into data before the API server validates the keys.
    data_keys("Secret(" + name + ").data", find_object(o, "data"));
    data_keys("Secret(" + name + ").data", find_object(o, "stringData"));
    std::map<std::string, std::string> data;
    if (const auto* d = find_object(o, "data")) {
      for (const auto& kv : *d) {
        if (!kv.value().is_string()) continue;
        if (auto bytes = trainer::base64_decode(kv.value().get_string(), Base64Decoding::kGo)) {
          data[kv.key()] = *bytes;
        } else {
          // The value is a secret: never echo it.
          invalid("Secret(" + name + ").data." + std::string(kv.key()), json::value("<redacted>"),
                  "not valid base64");
        }
      }
    }
    for (const auto& [k, v] : string_map(find_object(o, "stringData"))) data[k] = v;
    plan.secrets[name] = std::move(data);
  }

  void read_train_job(const json::object& o) {
    if (const auto* meta = find_object(o, "metadata")) plan.train_job = string_at(*meta, "name");
    if (const auto* spec = find_object(o, "spec")) {
      if (auto d = find_int(*spec, "activeDeadlineSeconds")) plan.train_job_deadline_seconds = *d;
      if (bool_at(*spec, "suspend")) plan.suspend = true;
    }
  }

  std::vector<Volume> read_volumes(const json::object& pod_spec, const std::string& path) {
    std::vector<Volume> out;
    const auto* volumes = find_array(pod_spec, "volumes");
    if (volumes == nullptr) return out;
    std::set<std::string> names;
    for (std::size_t i = 0; i < volumes->size(); ++i) {
      const auto* v = (*volumes)[i].if_object();
      const std::string vpath = path + ".volumes[" + std::to_string(i) + "]";
      if (v == nullptr) {
        invalid(vpath, (*volumes)[i], "must be an object");
        continue;
      }
      Volume vol;
      vol.name = string_at(*v, "name");
      // ValidateVolumes: the name is a DNS-1123 label (it names the volume's folder), unique.
      const std::string name_path = vpath + ".name";
      if (vol.name.empty()) {
        required(name_path, "");
      } else {
        name_rule(name_path, vol.name, trainer::is_dns1123_label(vol.name));
      }
      if (!names.insert(vol.name).second) {
        errors.push_back(field_duplicate(name_path, json::value(vol.name)));
      }
      if (find_object(*v, "emptyDir") != nullptr) {
        vol.kind = Volume::Kind::kEmptyDir;
      } else if (const auto* pvc = find_object(*v, "persistentVolumeClaim")) {
        vol.kind = Volume::Kind::kClaim;
        vol.claim = string_at(*pvc, "claimName");
        // Required upstream; a claim is a PersistentVolumeClaim name (a DNS-1123 subdomain),
        // and locally the name of its folder.
        const std::string claim_path = vpath + ".persistentVolumeClaim.claimName";
        if (vol.claim.empty()) {
          required(claim_path, "");
        } else {
          name_rule(claim_path, vol.claim, trainer::is_dns1123_subdomain(vol.claim));
        }
      } else if (const auto* hp = find_object(*v, "hostPath")) {
        vol.kind = Volume::Kind::kHostPath;
        vol.host_path = string_at(*hp, "path");
        // validateHostPathVolumeSource: required, no `..` element.
        if (vol.host_path.empty()) {
          required(vpath + ".hostPath.path", "");
        } else {
          add(validate_path_no_backsteps(vpath + ".hostPath.path", vol.host_path));
        }
      } else if (const auto* cm = find_object(*v, "configMap")) {
        vol.kind = Volume::Kind::kFiles;
        read_files(*cm, "name", false, vpath + ".configMap", vol);
      } else if (const auto* sec = find_object(*v, "secret")) {
        vol.kind = Volume::Kind::kFiles;
        vol.secret = true;
        read_files(*sec, "secretName", true, vpath + ".secret", vol);
      } else if (const auto* projected = find_object(*v, "projected")) {
        vol.kind = Volume::Kind::kFiles;
        read_projected(*projected, vpath + ".projected", vol);
      } else {
        errors.push_back(field_not_supported(
            vpath, json::value(vol.name),
            {"emptyDir", "persistentVolumeClaim", "hostPath", "configMap", "secret", "projected"}));
        continue;
      }
      out.push_back(std::move(vol));
    }
    return out;
  }

  // A projected volume (validateProjectedVolumeSource): ConfigMap and Secret projections as
  // those volumes, and service account tokens, which the run's progress server issues per pod
  // attempt (the TrainJobStatus plugin's `kubeflow-trainer-token`).
  void read_projected(const json::object& projected, const std::string& path, Volume& vol) {
    const auto default_mode_value = find_int(projected, "defaultMode");
    if (default_mode_value) add(validate_file_mode(path + ".defaultMode", *default_mode_value));
    const unsigned default_mode = static_cast<unsigned>(default_mode_value.value_or(0644)) & 0777U;
    const auto* sources = find_array(projected, "sources");
    if (sources == nullptr) return;
    for (std::size_t i = 0; i < sources->size(); ++i) {
      const std::string spath = path + ".sources[" + std::to_string(i) + "]";
      const auto* source = (*sources)[i].if_object();
      if (source == nullptr) {
        invalid(spath, (*sources)[i], "must be an object");
        continue;
      }
      if (const auto* cm = find_object(*source, "configMap")) {
        read_files(*cm, "name", false, spath + ".configMap", vol, default_mode);
      } else if (const auto* sec = find_object(*source, "secret")) {
        vol.secret = true;
        read_files(*sec, "name", true, spath + ".secret", vol, default_mode);
      } else if (const auto* token = find_object(*source, "serviceAccountToken")) {
        const std::string tpath = spath + ".serviceAccountToken";
        TokenFile file{string_at(*token, "path"), string_at(*token, "audience"), 3600, default_mode,
                       tpath};
        if (file.path.empty()) required(tpath + ".path", "");
        add(validate_local_non_reserved_path(tpath + ".path", file.path));
        if (const auto seconds = find_int(*token, "expirationSeconds")) {
          file.expiration_seconds = *seconds;
          if (*seconds < 600) {
            invalid(tpath + ".expirationSeconds", json::value(*seconds),
                    "may not specify a duration less than 10 minutes");
          } else if (*seconds > (std::int64_t{1} << 32)) {
            invalid(tpath + ".expirationSeconds", json::value(*seconds),
                    "may not specify a duration larger than 2^32 seconds");
          }
        }
        vol.tokens.push_back(std::move(file));
        vol.secret = true;  // a credential: owner-only on the host, as Secret files
      } else {
        errors.push_back(field_not_supported(spath, json::value(vol.name),
                                             {"configMap", "secret", "serviceAccountToken"}));
      }
    }
  }

  // ConfigMap/Secret volume: every key (or the listed items) as a file with its mode
  // (`inherited_mode`: a projected volume's defaultMode, for its sources).
  void read_files(const json::object& src, std::string_view name_key, bool secret,
                  const std::string& path, Volume& vol, unsigned inherited_mode = 0644) {
    const std::string name = string_at(src, name_key);
    if (name.empty()) required(path + "." + std::string(name_key), "");
    // validateConfigMapVolumeSource / validateSecretVolumeSource: modes, then every item's key,
    // path (relative, without `..`) and mode, whether or not the object is among the inputs.
    const auto default_mode_value = find_int(src, "defaultMode");
    if (default_mode_value) add(validate_file_mode(path + ".defaultMode", *default_mode_value));
    const auto* items = find_array(src, "items");
    if (items != nullptr) {
      for (std::size_t i = 0; i < items->size(); ++i) {
        const auto* item = (*items)[i].if_object();
        const std::string ipath = path + ".items[" + std::to_string(i) + "]";
        if (item == nullptr) {
          invalid(ipath, (*items)[i], "must be an object");
          continue;
        }
        if (string_at(*item, "key").empty()) required(ipath + ".key", "");
        const std::string item_path = string_at(*item, "path");
        if (item_path.empty()) required(ipath + ".path", "");
        add(validate_local_non_reserved_path(ipath + ".path", item_path));
        if (const auto mode = find_int(*item, "mode")) {
          add(validate_file_mode(ipath + ".mode", *mode));
        }
      }
    }
    const auto& store = secret ? plan.secrets : plan.config_maps;
    const auto found = store.find(name);
    const bool optional = bool_at(src, "optional");
    if (found == store.end()) {
      if (!optional) {
        invalid(path + "." + std::string(name_key), json::value(name),
                std::string(secret ? "Secret" : "ConfigMap") + " not found among the objects");
      }
      return;
    }
    const unsigned default_mode =
        default_mode_value ? static_cast<unsigned>(*default_mode_value) & 0777U : inherited_mode;
    if (items != nullptr) {
      for (std::size_t i = 0; i < items->size(); ++i) {
        const auto* item = (*items)[i].if_object();
        if (item == nullptr) continue;
        const std::string key = string_at(*item, "key");
        if (key.empty()) continue;  // Required, above
        const auto data = found->second.find(key);
        if (data == found->second.end()) {
          if (!optional) {
            invalid(path + ".items[" + std::to_string(i) + "].key", json::value(key),
                    "no such key in " + name);
          }
          continue;
        }
        const auto mode = find_int(*item, "mode");
        vol.files.push_back({string_at(*item, "path"), data->second,
                             mode ? static_cast<unsigned>(*mode) & 0777U : default_mode});
      }
    } else {
      for (const auto& [key, data] : found->second) vol.files.push_back({key, data, default_mode});
    }
  }

  ContainerPlan read_container(const json::object& c, const std::string& path) {
    ContainerPlan out;
    out.name = string_at(c, "name");
    out.path = path;
    for (const char* key : {"command", "args"}) {
      if (const auto* list = find_array(c, key)) {
        for (const auto& s : *list) {
          if (s.is_string()) out.command.emplace_back(s.get_string());
        }
      }
    }
    if (out.command.empty()) {
      required(path + ".command",
               "the image is not pulled locally, so its entrypoint is unknown: set command");
    }
    out.working_dir = string_at(c, "workingDir");
    if (const auto* env = find_array(c, "env")) out.env = *env;
    if (const auto* env_from = find_array(c, "envFrom")) out.env_from = *env_from;
    if (const auto* mounts = find_array(c, "volumeMounts")) {
      std::set<std::string> mount_points;
      for (std::size_t i = 0; i < mounts->size(); ++i) {
        const auto* mo = (*mounts)[i].if_object();
        const std::string mpath = path + ".volumeMounts[" + std::to_string(i) + "]";
        if (mo == nullptr) {
          invalid(mpath, (*mounts)[i], "must be an object");
          continue;
        }
        Mount mount{string_at(*mo, "name"), string_at(*mo, "mountPath"), string_at(*mo, "subPath"),
                    string_at(*mo, "subPathExpr"), bool_at(*mo, "readOnly")};
        // ValidateVolumeMounts (the volume's existence is checked with the pod's volumes).
        if (mount.volume.empty()) required(mpath + ".name", "");
        add(validate_mount_path(mpath + ".mountPath", mount.mount_path));
        if (!mount.mount_path.empty() && !mount_points.insert(mount.mount_path).second) {
          invalid(mpath + ".mountPath", json::value(mount.mount_path), "must be unique");
        }
        if (!mount.sub_path.empty()) {
          add(validate_local_descending_path(mpath + ".subPath", mount.sub_path));
        }
        if (!mount.sub_path_expr.empty()) {
          if (!mount.sub_path.empty()) {
            invalid(mpath + ".subPathExpr", json::value(mount.sub_path_expr),
                    "subPathExpr and subPath are mutually exclusive");
          }
          add(validate_local_descending_path(mpath + ".subPathExpr", mount.sub_path_expr));
        }
        out.mounts.push_back(std::move(mount));
      }
    }
    return out;
  }

  void read_jobset(const json::object& js) {
    const auto* meta = find_object(js, "metadata");
    if (meta != nullptr) {
      plan.jobset = string_at(*meta, "name");
      plan.namespace_ = string_at(*meta, "namespace");
    }
    // The JobSet and replicated job names make the pod names, which name folders and files of
    // the run: held to the API server's rules (an object name is a DNS-1123 subdomain).
    if (plan.jobset.empty()) {
      required("JobSet.metadata.name", "");
    } else {
      name_rule("JobSet.metadata.name", plan.jobset, trainer::is_dns1123_subdomain(plan.jobset));
    }
    if (plan.namespace_.empty()) {
      plan.namespace_ = "default";
    } else {
      // ValidateNamespaceName; the namespace is part of every pod's /etc/hosts line.
      name_rule("JobSet.metadata.namespace", plan.namespace_,
                trainer::is_dns1123_label(plan.namespace_));
    }
    const auto* spec = find_object(js, "spec");
    if (spec == nullptr) {
      required("JobSet.spec", "");
      return;
    }
    if (bool_at(*spec, "suspend")) plan.suspend = true;
    plan.subdomain = plan.jobset;
    if (const auto* net = find_object(*spec, "network")) {
      const auto sub = string_at(*net, "subdomain");
      if (!sub.empty()) {
        // It becomes every pod's spec.subdomain, which the API server holds to a DNS-1123 label,
        // and part of the hosts file.
        name_rule("JobSet.spec.network.subdomain", sub, trainer::is_dns1123_label(sub));
        plan.subdomain = sub;
      }
    }
    if (const auto* fp = find_object(*spec, "failurePolicy")) {
      plan.has_failure_policy = true;
      plan.max_restarts = find_int(*fp, "maxRestarts").value_or(0);
      if (const auto* rules = find_array(*fp, "rules")) {
        for (const auto& r : *rules) {
          const auto* ro = r.if_object();
          if (ro == nullptr) continue;
          FailureRule rule{string_at(*ro, "name"), string_at(*ro, "action"), {}, {}};
          for (const auto* key : {"onJobFailureReasons", "targetReplicatedJobs"}) {
            auto& dst = std::string_view(key) == "onJobFailureReasons"
                            ? rule.on_job_failure_reasons
                            : rule.target_replicated_jobs;
            if (const auto* list = find_array(*ro, key)) {
              for (const auto& s : *list) {
                if (s.is_string()) dst.emplace_back(s.get_string());
              }
            }
          }
          plan.failure_rules.push_back(std::move(rule));
        }
      }
    }
    if (const auto* sp = find_object(*spec, "successPolicy")) {
      const auto op = string_at(*sp, "operator");
      if (!op.empty()) plan.success_operator = op;
      if (const auto* targets = find_array(*sp, "targetReplicatedJobs")) {
        for (const auto& s : *targets) {
          if (s.is_string()) plan.success_targets.emplace_back(s.get_string());
        }
      }
    }
    std::map<std::string, std::string> claim_templates;  // template name -> claim folder name
    if (const auto* vcp = find_array(*spec, "volumeClaimPolicies")) {
      for (std::size_t p = 0; p < vcp->size(); ++p) {
        const auto* po = (*vcp)[p].if_object();
        const auto* templates = po != nullptr ? find_array(*po, "templates") : nullptr;
        if (templates == nullptr) continue;
        for (std::size_t t = 0; t < templates->size(); ++t) {
          const auto* to = (*templates)[t].if_object();
          const auto* tm = to != nullptr ? find_object(*to, "metadata") : nullptr;
          if (tm == nullptr) continue;
          // A claim template's name is a PersistentVolumeClaim name and a claim folder.
          const std::string name = string_at(*tm, "name");
          name_rule("JobSet.spec.volumeClaimPolicies[" + std::to_string(p) + "].templates[" +
                        std::to_string(t) + "].metadata.name",
                    name, trainer::is_dns1123_subdomain(name));
          claim_templates[name] = name;
        }
      }
    }
    const auto* rjobs = find_array(*spec, "replicatedJobs");
    if (rjobs == nullptr || rjobs->empty()) {
      required("JobSet.spec.replicatedJobs", "at least one replicated job");
      return;
    }
    for (std::size_t r = 0; r < rjobs->size(); ++r) {
      read_replicated_job((*rjobs)[r], r, claim_templates);
    }
    check_dependencies();
  }

  void read_replicated_job(const json::value& value, std::size_t r,
                           const std::map<std::string, std::string>& claim_templates) {
    const std::string path = "JobSet.spec.replicatedJobs[" + std::to_string(r) + "]";
    const auto* rj = value.if_object();
    if (rj == nullptr) {
      invalid(path, value, "must be an object");
      return;
    }
    ReplicatedJobPlan rplan;
    rplan.name = string_at(*rj, "name");
    if (rplan.name.empty()) {
      required(path + ".name", "");
    } else {
      name_rule(path + ".name", rplan.name, trainer::is_dns1123_label(rplan.name));
    }
    rplan.replicas = find_int(*rj, "replicas").value_or(1);
    if (rplan.replicas < 0)
      invalid(path + ".replicas", json::value(rplan.replicas), "must be >= 0");
    if (const auto* deps = find_array(*rj, "dependsOn")) {
      for (const auto& d : *deps) {
        const auto* dobj = d.if_object();
        if (dobj != nullptr)
          rplan.depends_on.push_back({string_at(*dobj, "name"), string_at(*dobj, "status")});
      }
    }
    const auto* job_template = find_object(*rj, "template");
    const auto* job_spec = job_template != nullptr ? find_object(*job_template, "spec") : nullptr;
    const auto* pod_template = job_spec != nullptr ? find_object(*job_spec, "template") : nullptr;
    const auto* pod_spec = pod_template != nullptr ? find_object(*pod_template, "spec") : nullptr;
    const std::string pod_path = path + ".template.spec.template.spec";
    if (pod_spec == nullptr) {
      required(pod_path, "");
      return;
    }
    const auto* containers = find_array(*pod_spec, "containers");
    if (containers == nullptr || containers->empty() || !(*containers)[0].is_object()) {
      required(pod_path + ".containers", "one container");
      return;
    }
    if (containers->size() > 1) {
      plan.warnings.push_back(pod_path + ".containers: only the first container (\"" +
                              string_at((*containers)[0].get_object(), "name") +
                              "\") runs locally; the others are ignored");
    }
    if (const auto* init = find_array(*pod_spec, "initContainers");
        init != nullptr && !init->empty()) {
      plan.warnings.push_back(pod_path + ".initContainers: init containers do not run locally");
    }
    auto container = read_container((*containers)[0].get_object(), pod_path + ".containers[0]");
    container.security = read_security_context(*pod_spec, (*containers)[0].get_object(), pod_path,
                                               pod_path + ".containers[0]", errors);
    auto volumes = read_volumes(*pod_spec, pod_path);
    // JobSet wires a volumeClaimPolicies template into pods that mount a volume of its name.
    for (std::size_t i = 0; i < container.mounts.size(); ++i) {
      const auto& m = container.mounts[i];
      bool found = false;
      for (const auto& v : volumes) found = found || v.name == m.volume;
      if (found || m.volume.empty()) continue;
      if (const auto t = claim_templates.find(m.volume); t != claim_templates.end()) {
        Volume v;
        v.kind = Volume::Kind::kClaim;
        v.name = m.volume;
        v.claim = t->second;
        volumes.push_back(std::move(v));
      } else {
        // ValidateVolumeMounts: field.NotFound (neither a pod volume nor a claim template).
        errors.push_back(
            FieldError{FieldErrorType::kNotFound,
                       pod_path + ".containers[0].volumeMounts[" + std::to_string(i) + "].name",
                       json::value(m.volume), ""});
      }
    }

    const std::int64_t completions =
        find_int(*job_spec, "completions").value_or(find_int(*job_spec, "parallelism").value_or(1));
    const auto backoff = find_int(*job_spec, "backoffLimit").value_or(6);
    const auto deadline = find_int(*job_spec, "activeDeadlineSeconds");
    const auto pod_meta = find_object(*pod_template, "metadata");
    const auto job_meta = find_object(*job_template, "metadata");
    const auto grace = find_int(*pod_spec, "terminationGracePeriodSeconds").value_or(30);
    const bool sshd =
        !container.command.empty() &&
        (container.command[0] == "sshd" ||
         (container.command[0].size() > 5 &&
          container.command[0].compare(container.command[0].size() - 5, 5, "/sshd") == 0));

    const std::size_t rindex = plan.replicated_jobs.size();
    for (std::int64_t j = 0; j < rplan.replicas; ++j) {
      JobPlan job;
      job.name = plan.jobset + "-" + rplan.name + "-" + std::to_string(j);
      job.replicated_job = rindex;
      job.job_index = static_cast<int>(j);
      job.backoff_limit = backoff;
      job.active_deadline_seconds = deadline;
      const std::size_t jindex = plan.jobs.size();
      for (std::int64_t p = 0; p < completions; ++p) {
        PodPlan pod;
        pod.replicated_job = rindex;
        pod.job = jindex;
        pod.job_index = static_cast<int>(j);
        pod.pod_index = static_cast<int>(p);
        pod.hostname = job.name + "-" + std::to_string(p);
        pod.fqdn = pod.hostname + "." + plan.subdomain;
        pod.address = pod_address(plan.pods.size());
        pod.prefix = rplan.name + "-" + std::to_string(j) + "-" + std::to_string(p);
        pod.container = container;
        pod.volumes = volumes;
        pod.grace_seconds = grace;
        pod.holds_namespaces_only = sshd;
        pod.service_account = string_at(*pod_spec, "serviceAccountName");
        // The labels and annotations JobSet and the Job controller put on every pod.
        pod.labels = job_meta != nullptr ? string_map(find_object(*job_meta, "labels"))
                                         : std::map<std::string, std::string>{};
        if (pod_meta != nullptr) {
          for (auto& [k, v] : string_map(find_object(*pod_meta, "labels"))) pod.labels[k] = v;
          pod.annotations = string_map(find_object(*pod_meta, "annotations"));
        }
        const std::string index = std::to_string(p);
        for (auto* m : {&pod.labels, &pod.annotations}) {
          (*m)["jobset.sigs.k8s.io/jobset-name"] = plan.jobset;
          (*m)["jobset.sigs.k8s.io/replicatedjob-name"] = rplan.name;
          (*m)["jobset.sigs.k8s.io/job-index"] = std::to_string(j);
          // JobSet numbers the Jobs of all replicatedJobs in order, as they are made here.
          (*m)["jobset.sigs.k8s.io/job-global-index"] = std::to_string(jindex);
          (*m)["jobset.sigs.k8s.io/replicatedjob-replicas"] = std::to_string(rplan.replicas);
          (*m)["job-name"] = job.name;
          (*m)["batch.kubernetes.io/job-name"] = job.name;
          (*m)["batch.kubernetes.io/job-completion-index"] = index;
        }
        job.pods.push_back(plan.pods.size());
        plan.pods.push_back(std::move(pod));
      }
      rplan.jobs.push_back(jindex);
      plan.jobs.push_back(std::move(job));
    }
    plan.replicated_jobs.push_back(std::move(rplan));
  }

  void check_dependencies() {
    for (std::size_t r = 0; r < plan.replicated_jobs.size(); ++r) {
      const auto& rj = plan.replicated_jobs[r];
      for (std::size_t d = 0; d < rj.depends_on.size(); ++d) {
        const auto& dep = rj.depends_on[d];
        const std::string path = "JobSet.spec.replicatedJobs[" + std::to_string(r) +
                                 "].dependsOn[" + std::to_string(d) + "]";
        bool earlier = false;
        for (std::size_t e = 0; e < r; ++e)
          earlier = earlier || plan.replicated_jobs[e].name == dep.name;
        if (!earlier) {
          invalid(path + ".name", json::value(dep.name),
                  "must name a replicated job listed before this one");
        }
        if (dep.status != "Complete" && dep.status != "Ready") {
          errors.push_back(field_not_supported(path + ".status", json::value(dep.status),
                                               {"Complete", "Ready"}));
        }
      }
    }
  }
};

}  // namespace

std::string pod_address(std::size_t ordinal) {
  return "127.0." + std::to_string(1 + ordinal / 254) + "." + std::to_string(1 + ordinal % 254);
}

Result<Plan> make_plan(const std::vector<json::value>& objects) {
  Reader reader;
  const json::object* jobset = nullptr;
  std::size_t jobsets = 0;
  // ConfigMaps and Secrets first: the JobSet's volumes refer to them.
  for (const auto& object : objects) {
    const auto* o = object.if_object();
    if (o == nullptr) return fail(ErrorCode::kInvalid, "every object must be a JSON object");
    const std::string kind = string_at(*o, "kind");
    if (kind == "ConfigMap") {
      reader.read_config_map(*o);
    } else if (kind == "Secret") {
      reader.read_secret(*o);
    } else if (kind == "TrainJob") {
      reader.read_train_job(*o);
    } else if (kind == "JobSet") {
      jobset = o;
      ++jobsets;
    } else {
      reader.plan.warnings.push_back("a " +
                                     (kind.empty() ? std::string("object without kind") : kind) +
                                     " has no local meaning and is ignored");
    }
  }
  if (jobsets != 1) {
    return fail(ErrorCode::kInvalid,
                "expected exactly one JobSet among the objects, found " + std::to_string(jobsets));
  }
  reader.read_jobset(*jobset);
  if (reader.plan.pods.size() > 254 * 254) {
    reader.errors.push_back(
        field_too_many("JobSet.spec.replicatedJobs", reader.plan.pods.size(), 254 * 254));
  }
  if (!reader.errors.empty()) return tl::unexpected(Error::invalid(std::move(reader.errors)));
  if (reader.plan.train_job.empty()) reader.plan.train_job = reader.plan.jobset;
  return std::move(reader.plan);
}

}  // namespace trainer::local::detail
