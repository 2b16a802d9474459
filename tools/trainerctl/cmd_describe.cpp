// SPDX-License-Identifier: Apache-2.0
// `trainerctl describe trainjob NAME`: a TrainJob as kubectl describe shows objects: its runtime,
// nodes, conditions, jobs and trainer status, then the JobSet and the pods it runs, and the
// events of the three.
#include "cluster_flags.hpp"
#include "commands.hpp"
#include "resource_args.hpp"

#include "api/time_text.hpp"
#include "table_printer.hpp"
#include "trainer/json_path.hpp"

#include "trainer/cluster.hpp"
#include "trainer/plugin_support.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace trainerctl {
namespace {

namespace json = boost::json;
namespace cluster = trainer::cluster;
namespace kube = trainer::kube;

using trainer::find_array;
using trainer::find_object;

// A scalar as text ("" when absent), strings unquoted.
std::string text_at(const json::object* object, std::string_view key) {
  if (object == nullptr) return {};
  const auto* value = object->if_contains(key);
  if (value == nullptr || value->is_null()) return {};
  if (value->is_string()) return std::string(value->get_string());
  return json::serialize(*value);
}

std::string or_none(const std::string& text) {
  return text.empty() ? "<none>" : text;
}

void field(int indent, const std::string& label, const std::string& value) {
  const std::string key = std::string(static_cast<std::size_t>(indent), ' ') + label + ":";
  std::printf("%-22s%s\n", key.c_str(), value.c_str());
}

void map_field(const std::string& label, const json::object* map) {
  if (map == nullptr || map->empty()) {
    field(0, label, "<none>");
    return;
  }
  bool first = true;
  for (const auto& entry : *map) {
    const std::string line = std::string(entry.key()) + "=" +
                             (entry.value().is_string() ? std::string(entry.value().get_string())
                                                        : json::serialize(entry.value()));
    field(0, first ? label : std::string(), line);
    first = false;
  }
}

// Rows of a sub-table, indented by two spaces as kubectl describe indents them.
void sub_table(const std::vector<TextRow>& lines) {
  const std::string text = tab_write(lines);
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    std::printf("  %s\n", text.substr(start, end - start).c_str());
    start = end + 1;
  }
}

void describe_trainjob(const json::object& job) {
  const auto* meta = find_object(job, "metadata");
  const auto* spec = find_object(job, "spec");
  const auto* status = find_object(job, "status");
  field(0, "Name", text_at(meta, "name"));
  field(0, "Namespace", text_at(meta, "namespace"));
  map_field("Labels", meta != nullptr ? find_object(*meta, "labels") : nullptr);
  map_field("Annotations", meta != nullptr ? find_object(*meta, "annotations") : nullptr);
  field(0, "API Version", text_at(&job, "apiVersion"));
  field(0, "Kind", text_at(&job, "kind"));
  field(0, "Created", text_at(meta, "creationTimestamp"));
  const auto* ref = spec != nullptr ? find_object(*spec, "runtimeRef") : nullptr;
  const std::string runtime_kind = text_at(ref, "kind");
  field(0, "Runtime",
        (runtime_kind.empty() ? "ClusterTrainingRuntime" : runtime_kind) + " " +
            text_at(ref, "name"));
  field(0, "Suspend", or_none(text_at(spec, "suspend")).c_str());
  field(0, "Managed By", or_none(text_at(spec, "managedBy")));
  const auto* trainer = spec != nullptr ? find_object(*spec, "trainer") : nullptr;
  field(0, "Nodes",
        text_at(trainer, "numNodes").empty() ? "<runtime's>" : text_at(trainer, "numNodes"));
  if (trainer != nullptr) {
    std::puts("Trainer:");
    if (!text_at(trainer, "image").empty()) field(2, "Image", text_at(trainer, "image"));
    if (!text_at(trainer, "numProcPerNode").empty()) {
      field(2, "Procs Per Node", text_at(trainer, "numProcPerNode"));
    }
    if (!text_at(trainer, "command").empty()) field(2, "Command", text_at(trainer, "command"));
    if (!text_at(trainer, "args").empty()) field(2, "Args", text_at(trainer, "args"));
    if (!text_at(trainer, "resourcesPerNode").empty()) {
      field(2, "Resources Per Node", text_at(trainer, "resourcesPerNode"));
    }
  }

  std::puts("Conditions:");
  const auto* conditions = status != nullptr ? find_array(*status, "conditions") : nullptr;
  if (conditions == nullptr || conditions->empty()) {
    std::puts("  <none>");
  } else {
    std::vector<TextRow> lines{{"Type", "Status", "Reason", "Last Transition", "Message"}};
    for (const auto& c : *conditions) {
      const auto* condition = c.if_object();
      lines.push_back({text_at(condition, "type"), text_at(condition, "status"),
                       text_at(condition, "reason"), text_at(condition, "lastTransitionTime"),
                       text_at(condition, "message")});
    }
    sub_table(lines);
  }

  std::puts("Jobs Status:");
  const auto* jobs = status != nullptr ? find_array(*status, "jobsStatus") : nullptr;
  if (jobs == nullptr || jobs->empty()) {
    std::puts("  <none>");
  } else {
    std::vector<TextRow> lines{{"Name", "Active", "Ready", "Succeeded", "Failed", "Suspended"}};
    for (const auto& j : *jobs) {
      const auto* item = j.if_object();
      lines.push_back({text_at(item, "name"), text_at(item, "active"), text_at(item, "ready"),
                       text_at(item, "succeeded"), text_at(item, "failed"),
                       text_at(item, "suspended")});
    }
    sub_table(lines);
  }

  const auto* trainer_status = status != nullptr ? find_object(*status, "trainerStatus") : nullptr;
  if (trainer_status == nullptr) {
    field(0, "Trainer Status", "<none>");
  } else {
    std::puts("Trainer Status:");
    if (!text_at(trainer_status, "progressPercentage").empty()) {
      field(2, "Progress", text_at(trainer_status, "progressPercentage") + "%");
    }
    if (!text_at(trainer_status, "estimatedRemainingSeconds").empty()) {
      field(2, "Remaining", text_at(trainer_status, "estimatedRemainingSeconds") + "s");
    }
    if (const auto* metrics = find_array(*trainer_status, "metrics")) {
      for (const auto& m : *metrics) {
        field(2, "Metric " + text_at(m.if_object(), "name"), text_at(m.if_object(), "value"));
      }
    }
    field(2, "Last Updated", text_at(trainer_status, "lastUpdatedTime"));
  }
}

// The JobSet of the TrainJob (same name) and its pods; what cannot be read is said inline.
// Adds what events are about to `involved`: the JobSet and each pod found.
void describe_children(kube::Client& client, const std::string& ns, const std::string& name,
                       std::vector<cluster::InvolvedObject>& involved) {
  std::puts("JobSet:");
  auto jobsets = client.resource_for(trainer::kJobSetApiVersion, trainer::kJobSetKind);
  if (!jobsets) {
    std::printf("  <unknown: %s>\n", jobsets.error().message.c_str());
  } else if (auto jobset = client.get(*jobsets, ns, name); !jobset) {
    std::printf("  %s\n", jobset.error().code == trainer::ErrorCode::kNotFound
                              ? "<none>"
                              : ("<unknown: " + jobset.error().message + ">").c_str());
  } else {
    involved.push_back(
        {trainer::kJobSetKind, ns, name, text_at(find_object(*jobset, "metadata"), "uid")});
    const auto* status = find_object(*jobset, "status");
    std::string state = "Running";
    if (const auto* conditions = status != nullptr ? find_array(*status, "conditions") : nullptr) {
      for (const auto& c : *conditions) {
        if (text_at(c.if_object(), "status") == "True") state = text_at(c.if_object(), "type");
      }
    }
    field(2, "Name", name);
    field(2, "State", state);
    if (const auto* replicated =
            status != nullptr ? find_array(*status, "replicatedJobsStatus") : nullptr) {
      std::vector<TextRow> lines{{"Replicated Job", "Active", "Ready", "Succeeded", "Failed"}};
      for (const auto& r : *replicated) {
        const auto* item = r.if_object();
        lines.push_back({text_at(item, "name"), text_at(item, "active"), text_at(item, "ready"),
                         text_at(item, "succeeded"), text_at(item, "failed")});
      }
      sub_table(lines);
    }
  }

  std::puts("Pods:");
  auto pods = client.resource_for("v1", "Pod");
  if (!pods) {
    std::printf("  <unknown: %s>\n", pods.error().message.c_str());
    return;
  }
  kube::ListOptions options;
  options.label_selector = "jobset.sigs.k8s.io/jobset-name=" + name;
  auto listed = client.list(*pods, ns, options);
  if (!listed) {
    std::printf("  <unknown: %s>\n", listed.error().message.c_str());
    return;
  }
  const auto* items = find_array(*listed, "items");
  if (items == nullptr || items->empty()) {
    std::puts("  <none>");
    return;
  }
  std::vector<TextRow> lines{{"Name", "Replicated Job", "Index", "Phase", "Node"}};
  for (const auto& p : *items) {
    const auto* pod = p.if_object();
    if (pod == nullptr) continue;
    const auto* meta = find_object(*pod, "metadata");
    const auto* labels = meta != nullptr ? find_object(*meta, "labels") : nullptr;
    const auto* annotations = meta != nullptr ? find_object(*meta, "annotations") : nullptr;
    std::string index = text_at(labels, "batch.kubernetes.io/job-completion-index");
    if (index.empty()) index = text_at(annotations, "batch.kubernetes.io/job-completion-index");
    lines.push_back({text_at(meta, "name"),
                     text_at(labels, "jobset.sigs.k8s.io/replicatedjob-name"), index,
                     text_at(find_object(*pod, "status"), "phase"),
                     text_at(find_object(*pod, "spec"), "nodeName")});
    involved.push_back({"Pod", ns, text_at(meta, "name"), text_at(meta, "uid")});
  }
  sub_table(lines);
}

// How long ago `key` of `object` was (a metav1.Time or MicroTime), as kubectl prints it;
// `<unknown>` when it is not there.
std::string age_of(const json::object* object, std::string_view key) {
  const auto when = trainer::detail::parse_rfc3339(text_at(object, key));
  if (!when) return "<unknown>";
  return trainer::detail::human_duration(std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now() - *when));
}

// kubectl describe's Events section: the TrainJob's events and those of its JobSet and pods
// (their messages start with `jobset/<name>: ` or `pod/<name>: `), oldest first.
void describe_events(kube::Client& client, const json::object& job,
                     const std::vector<cluster::InvolvedObject>& involved) {
  auto events = cluster::events(client, involved);
  if (!events) {
    field(0, "Events", "<unknown: " + events.error().message + ">");
    return;
  }
  if (events->empty()) {
    field(0, "Events", "<none>");
    return;
  }
  const std::string job_name = text_at(find_object(job, "metadata"), "name");
  std::vector<TextRow> lines{{"  Type", "Reason", "Age", "From", "Message"},
                             {"  ----", "------", "----", "----", "-------"}};
  for (const auto& event : *events) {
    const auto* regarding = find_object(event, "involvedObject");
    const std::string kind = text_at(regarding, "kind");
    const std::string name = text_at(regarding, "name");
    // kubectl's Age: since the first occurrence, or `<last> (xN over <first>)` for a repeat.
    std::string first = age_of(&event, "eventTime");
    if (text_at(&event, "eventTime").empty()) first = age_of(&event, "firstTimestamp");
    std::string age = first;
    const auto* series = find_object(event, "series");
    const std::string count = text_at(&event, "count");
    if (series != nullptr) {
      age = age_of(series, "lastObservedTime") + " (x" + text_at(series, "count") + " over " +
            first + ")";
    } else if (!count.empty() && count != "0" && count != "1") {
      age = age_of(&event, "lastTimestamp") + " (x" + count + " over " + first + ")";
    }
    std::string from = text_at(find_object(event, "source"), "component");
    if (from.empty()) from = text_at(&event, "reportingComponent");
    std::string message = text_at(&event, "message");
    message.erase(0, message.find_first_not_of(" \t\r\n"));
    message.erase(message.find_last_not_of(" \t\r\n") + 1);
    if (kind != "TrainJob" || name != job_name) {
      std::string about = kind;
      for (auto& c : about) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      message = about + "/" + name + ": " + message;
    }
    lines.push_back(
        {"  " + text_at(&event, "type"), text_at(&event, "reason"), age, from, message});
  }
  std::puts("Events:");
  std::fputs(tab_write(lines, 0, 2).c_str(), stdout);
}

int run_describe(const Parsed& args) {
  auto targets = parse_resource_args(args.args(), "describe", args.given("selector"));
  if (!targets) return usage_error("describe", targets.error().message);
  auto client = connect(args);
  if (!client) return report_cluster_error(client.error());
  auto resources = resolve(*client, *targets);
  if (!resources) return report_cluster_error(resources.error());
  for (const auto& resource : *resources) {
    if (!is_trainjob(resource)) {
      return usage_error("describe", "describe shows TrainJobs; for " + resource.resource +
                                         ", `trainerctl get " + resource.resource +
                                         "/NAME -o yaml` shows the object");
    }
  }
  const std::string ns = namespace_of(args, *client);
  std::vector<json::object> jobs;
  std::vector<trainer::Error> errors;
  for (const auto& target : *targets) {
    if (!target.name.empty()) {
      auto job = cluster::get(*client, cluster::Kind::kTrainJob, ns, target.name);
      if (job) {
        jobs.push_back(std::move(*job));
      } else {
        errors.push_back(std::move(job.error()));
      }
      continue;
    }
    cluster::GetOptions options;
    options.label_selector = args.value("selector");
    auto listed = cluster::list(*client, cluster::Kind::kTrainJob, ns, options);
    if (!listed) {
      errors.push_back(std::move(listed.error()));
      continue;
    }
    if (auto* items = find_array(*listed, "items")) {
      for (const auto& item : *items) {
        if (item.is_object()) jobs.push_back(item.get_object());
      }
    }
  }
  if (jobs.empty() && errors.empty()) {
    std::fprintf(stderr, "No resources found in %s namespace.\n", ns.c_str());
    return kExitOk;
  }
  const bool show_events = args.enabled("show-events");
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    // kubectl separates described objects with two blank lines.
    if (i > 0) std::fputs("\n\n", stdout);
    const auto& job = jobs[i];
    const auto* meta = find_object(job, "metadata");
    const std::string name = text_at(meta, "name");
    std::vector<cluster::InvolvedObject> involved{{"TrainJob", ns, name, text_at(meta, "uid")}};
    describe_trainjob(job);
    describe_children(*client, ns, name, involved);
    if (show_events) describe_events(*client, job, involved);
    std::fflush(stdout);
  }
  for (const auto& error : errors) report_cluster_error(error);
  return errors.empty() ? kExitOk : kExitFailed;
}

}  // namespace

const Command& describe_command() {
  static const Command command{
      "describe",
      "show TrainJobs on a cluster in detail, with their JobSets, pods and events",
      "Each TrainJob's runtime, nodes, trainer, conditions, jobs status and trainer status,\n"
      "then the JobSet the controller made for it, that JobSet's pods, and the events of all of\n"
      "them as kubectl describe lists events, oldest first (a JobSet's or pod's message starts\n"
      "with jobset/NAME: or pod/NAME:). trainjob NAME..., trainjob/NAME..., or trainjobs (every\n"
      "TrainJob of the namespace, or those of -l).",
      {{"TYPE[/NAME]", true, false, {}, {"trainjobs"}}, {"NAME", false, true}},
      with_cluster_flags({{"selector", 'l', "SELECTOR", "label selector (app=x,tier!=y)"},
                          {"show-events",
                           '\0',
                           "",
                           "list the events (--show-events=false leaves them out)",
                           {},
                           "true"}}),
      run_describe};
  return command;
}

}  // namespace trainerctl
