// SPDX-License-Identifier: Apache-2.0
#include "local/plan.hpp"

#include "ssh/base64.hpp"

#include <boost/json.hpp>

#include <utility>

namespace trainer::local::detail {
namespace json = boost::json;
namespace {

const json::object* object_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr ? v->if_object() : nullptr;
}

const json::array* array_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr ? v->if_array() : nullptr;
}

std::string string_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_string()) return {};
  return std::string(v->get_string());
}

std::optional<std::int64_t> int_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<std::int64_t>(v->get_uint64());
  return std::nullopt;
}

bool bool_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_bool() && v->get_bool();
}

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

  void read_config_map(const json::object& o) {
    const auto* meta = object_at(o, "metadata");
    const std::string name = meta != nullptr ? string_at(*meta, "name") : "";
    auto data = string_map(object_at(o, "data"));
    // binaryData is base64 like Secret data; both end up as file contents or env values.
    if (const auto* bin = object_at(o, "binaryData")) {
      for (const auto& kv : *bin) {
        if (!kv.value().is_string()) continue;
        if (auto bytes = trainer::detail::base64_decode(kv.value().get_string())) {
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
    const auto* meta = object_at(o, "metadata");
    const std::string name = meta != nullptr ? string_at(*meta, "name") : "";
    std::map<std::string, std::string> data;
    if (const auto* d = object_at(o, "data")) {
      for (const auto& kv : *d) {
        if (!kv.value().is_string()) continue;
        if (auto bytes = trainer::detail::base64_decode(kv.value().get_string())) {
          data[kv.key()] = *bytes;
        } else {
          // The value is a secret: never echo it.
          invalid("Secret(" + name + ").data." + std::string(kv.key()), json::value("<redacted>"),
                  "not valid base64");
        }
      }
    }
    for (const auto& [k, v] : string_map(object_at(o, "stringData"))) data[k] = v;
    plan.secrets[name] = std::move(data);
  }

  void read_train_job(const json::object& o) {
    if (const auto* meta = object_at(o, "metadata")) plan.train_job = string_at(*meta, "name");
    if (const auto* spec = object_at(o, "spec")) {
      if (auto d = int_at(*spec, "activeDeadlineSeconds")) plan.train_job_deadline_seconds = *d;
      if (bool_at(*spec, "suspend")) plan.suspend = true;
    }
  }

  std::vector<Volume> read_volumes(const json::object& pod_spec, const std::string& path) {
    std::vector<Volume> out;
    const auto* volumes = array_at(pod_spec, "volumes");
    if (volumes == nullptr) return out;
    for (std::size_t i = 0; i < volumes->size(); ++i) {
      const auto* v = (*volumes)[i].if_object();
      const std::string vpath = path + ".volumes[" + std::to_string(i) + "]";
      if (v == nullptr) {
        invalid(vpath, (*volumes)[i], "must be an object");
        continue;
      }
      Volume vol;
      vol.name = string_at(*v, "name");
      if (object_at(*v, "emptyDir") != nullptr) {
        vol.kind = Volume::Kind::kEmptyDir;
      } else if (const auto* pvc = object_at(*v, "persistentVolumeClaim")) {
        vol.kind = Volume::Kind::kClaim;
        vol.claim = string_at(*pvc, "claimName");
      } else if (const auto* hp = object_at(*v, "hostPath")) {
        vol.kind = Volume::Kind::kHostPath;
        vol.host_path = string_at(*hp, "path");
      } else if (const auto* cm = object_at(*v, "configMap")) {
        vol.kind = Volume::Kind::kFiles;
        read_files(*cm, "name", false, vpath + ".configMap", vol);
      } else if (const auto* sec = object_at(*v, "secret")) {
        vol.kind = Volume::Kind::kFiles;
        read_files(*sec, "secretName", true, vpath + ".secret", vol);
      } else {
        errors.push_back(field_not_supported(
            vpath, json::value(vol.name),
            {"emptyDir", "persistentVolumeClaim", "hostPath", "configMap", "secret"}));
        continue;
      }
      out.push_back(std::move(vol));
    }
    return out;
  }

  // ConfigMap/Secret volume: every key (or the listed items) as a file with its mode.
  void read_files(const json::object& src, std::string_view name_key, bool secret,
                  const std::string& path, Volume& vol) {
    const std::string name = string_at(src, name_key);
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
        static_cast<unsigned>(int_at(src, "defaultMode").value_or(0644)) & 07777U;
    if (const auto* items = array_at(src, "items")) {
      for (std::size_t i = 0; i < items->size(); ++i) {
        const auto* item = (*items)[i].if_object();
        if (item == nullptr) continue;
        const std::string key = string_at(*item, "key");
        const auto data = found->second.find(key);
        if (data == found->second.end()) {
          if (!optional) {
            invalid(path + ".items[" + std::to_string(i) + "].key", json::value(key),
                    "no such key in " + name);
          }
          continue;
        }
        const auto mode = int_at(*item, "mode");
        vol.files.push_back({string_at(*item, "path"), data->second,
                             mode ? static_cast<unsigned>(*mode) & 07777U : default_mode});
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
      if (const auto* list = array_at(c, key)) {
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
    if (const auto* env = array_at(c, "env")) out.env = *env;
    if (const auto* env_from = array_at(c, "envFrom")) out.env_from = *env_from;
    if (const auto* mounts = array_at(c, "volumeMounts")) {
      for (const auto& m : *mounts) {
        const auto* mo = m.if_object();
        if (mo == nullptr) continue;
        out.mounts.push_back({string_at(*mo, "name"), string_at(*mo, "mountPath"),
                              string_at(*mo, "subPath"), bool_at(*mo, "readOnly")});
      }
    }
    return out;
  }

  void read_jobset(const json::object& js) {
    const auto* meta = object_at(js, "metadata");
    if (meta != nullptr) {
      plan.jobset = string_at(*meta, "name");
      plan.namespace_ = string_at(*meta, "namespace");
    }
    if (plan.jobset.empty()) required("JobSet.metadata.name", "");
    if (plan.namespace_.empty()) plan.namespace_ = "default";
    const auto* spec = object_at(js, "spec");
    if (spec == nullptr) {
      required("JobSet.spec", "");
      return;
    }
    if (bool_at(*spec, "suspend")) plan.suspend = true;
    plan.subdomain = plan.jobset;
    if (const auto* net = object_at(*spec, "network")) {
      const auto sub = string_at(*net, "subdomain");
      if (!sub.empty()) plan.subdomain = sub;
    }
    if (const auto* fp = object_at(*spec, "failurePolicy")) {
      plan.has_failure_policy = true;
      plan.max_restarts = int_at(*fp, "maxRestarts").value_or(0);
      if (const auto* rules = array_at(*fp, "rules")) {
        for (const auto& r : *rules) {
          const auto* ro = r.if_object();
          if (ro == nullptr) continue;
          FailureRule rule{string_at(*ro, "name"), string_at(*ro, "action"), {}, {}};
          for (const auto* key : {"onJobFailureReasons", "targetReplicatedJobs"}) {
            auto& dst = std::string_view(key) == "onJobFailureReasons"
                            ? rule.on_job_failure_reasons
                            : rule.target_replicated_jobs;
            if (const auto* list = array_at(*ro, key)) {
              for (const auto& s : *list) {
                if (s.is_string()) dst.emplace_back(s.get_string());
              }
            }
          }
          plan.failure_rules.push_back(std::move(rule));
        }
      }
    }
    if (const auto* sp = object_at(*spec, "successPolicy")) {
      const auto op = string_at(*sp, "operator");
      if (!op.empty()) plan.success_operator = op;
      if (const auto* targets = array_at(*sp, "targetReplicatedJobs")) {
        for (const auto& s : *targets) {
          if (s.is_string()) plan.success_targets.emplace_back(s.get_string());
        }
      }
    }
    std::map<std::string, std::string> claim_templates;  // template name -> claim folder name
    if (const auto* vcp = array_at(*spec, "volumeClaimPolicies")) {
      for (const auto& policy : *vcp) {
        const auto* po = policy.if_object();
        const auto* templates = po != nullptr ? array_at(*po, "templates") : nullptr;
        if (templates == nullptr) continue;
        for (const auto& t : *templates) {
          const auto* to = t.if_object();
          const auto* tm = to != nullptr ? object_at(*to, "metadata") : nullptr;
          if (tm != nullptr) claim_templates[string_at(*tm, "name")] = string_at(*tm, "name");
        }
      }
    }
    const auto* rjobs = array_at(*spec, "replicatedJobs");
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
    rplan.replicas = int_at(*rj, "replicas").value_or(1);
    if (rplan.replicas < 0)
      invalid(path + ".replicas", json::value(rplan.replicas), "must be >= 0");
    if (const auto* deps = array_at(*rj, "dependsOn")) {
      for (const auto& d : *deps) {
        const auto* dobj = d.if_object();
        if (dobj != nullptr)
          rplan.depends_on.push_back({string_at(*dobj, "name"), string_at(*dobj, "status")});
      }
    }
    const auto* job_template = object_at(*rj, "template");
    const auto* job_spec = job_template != nullptr ? object_at(*job_template, "spec") : nullptr;
    const auto* pod_template = job_spec != nullptr ? object_at(*job_spec, "template") : nullptr;
    const auto* pod_spec = pod_template != nullptr ? object_at(*pod_template, "spec") : nullptr;
    const std::string pod_path = path + ".template.spec.template.spec";
    if (pod_spec == nullptr) {
      required(pod_path, "");
      return;
    }
    const auto* containers = array_at(*pod_spec, "containers");
    if (containers == nullptr || containers->empty() || !(*containers)[0].is_object()) {
      required(pod_path + ".containers", "one container");
      return;
    }
    if (containers->size() > 1) {
      plan.warnings.push_back(pod_path + ".containers: only the first container (\"" +
                              string_at((*containers)[0].get_object(), "name") +
                              "\") runs locally; the others are ignored");
    }
    if (const auto* init = array_at(*pod_spec, "initContainers");
        init != nullptr && !init->empty()) {
      plan.warnings.push_back(pod_path + ".initContainers: init containers do not run locally");
    }
    const auto container =
        read_container((*containers)[0].get_object(), pod_path + ".containers[0]");
    auto volumes = read_volumes(*pod_spec, pod_path);
    // JobSet wires a volumeClaimPolicies template into pods that mount a volume of its name.
    for (const auto& m : container.mounts) {
      bool found = false;
      for (const auto& v : volumes) found = found || v.name == m.volume;
      if (found) continue;
      if (const auto t = claim_templates.find(m.volume); t != claim_templates.end()) {
        Volume v;
        v.kind = Volume::Kind::kClaim;
        v.name = m.volume;
        v.claim = t->second;
        volumes.push_back(std::move(v));
      } else {
        invalid(pod_path + ".containers[0].volumeMounts", json::value(m.volume),
                "no volume of this name in the pod or in spec.volumeClaimPolicies");
      }
    }

    const std::int64_t completions =
        int_at(*job_spec, "completions").value_or(int_at(*job_spec, "parallelism").value_or(1));
    const auto backoff = int_at(*job_spec, "backoffLimit").value_or(6);
    const auto deadline = int_at(*job_spec, "activeDeadlineSeconds");
    const auto pod_meta = object_at(*pod_template, "metadata");
    const auto job_meta = object_at(*job_template, "metadata");
    const auto grace = int_at(*pod_spec, "terminationGracePeriodSeconds").value_or(30);
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
        pod.labels = job_meta != nullptr ? string_map(object_at(*job_meta, "labels"))
                                         : std::map<std::string, std::string>{};
        if (pod_meta != nullptr) {
          for (auto& [k, v] : string_map(object_at(*pod_meta, "labels"))) pod.labels[k] = v;
          pod.annotations = string_map(object_at(*pod_meta, "annotations"));
        }
        const std::string index = std::to_string(p);
        for (auto* m : {&pod.labels, &pod.annotations}) {
          (*m)["jobset.sigs.k8s.io/jobset-name"] = plan.jobset;
          (*m)["jobset.sigs.k8s.io/replicatedjob-name"] = rplan.name;
          (*m)["jobset.sigs.k8s.io/job-index"] = std::to_string(j);
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
