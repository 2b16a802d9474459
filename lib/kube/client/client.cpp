// SPDX-License-Identifier: Apache-2.0
//
// kube::Client: creation and the single-request operations (get, create, apply, patch, remove,
// raw). Discovery, list, watch and logs have files of their own.
#include "kube/client/client_impl.hpp"

#include "kube/client/json_body.hpp"
#include "kube/client/paths.hpp"
#include "trainer/json_path.hpp"

#include <boost/json/serialize.hpp>

#include <array>
#include <string_view>
#include <utility>

namespace trainer::kube {
namespace {

using detail::HttpRequest;
using detail::Query;
using trainer::find_object;
using trainer::find_string;

template <class T>
tl::unexpected<Error> error_of(const Result<T>& result) {
  return tl::unexpected(result.error());
}

// dryRun, fieldValidation and fieldManager of a write (reference section 4.5).
Query write_query(const WriteOptions& options) {
  Query query;
  query.add_if("fieldManager", options.field_manager);
  if (options.dry_run) query.add("dryRun", "All");
  query.add("fieldValidation", detail::to_query_value(options.field_validation));
  return query;
}

std::string metadata_string(const boost::json::object& object, std::string_view key) {
  const auto* metadata = find_object(object, "metadata");
  return metadata == nullptr ? std::string() : find_string(*metadata, key).value_or("");
}

// The path of one named object: unlike a collection path, the name may not be empty (a GET
// would otherwise list and a DELETE delete the collection).
Result<std::string> object_path(const Resource& resource, const std::string& ns,
                                std::string_view name, std::string_view subresource = {}) {
  if (auto ok = detail::check_path_segment("name", name); !ok) return tl::unexpected(ok.error());
  return detail::resource_path(resource, ns, name, subresource);
}

const char* patch_content_type(PatchType type) {
  switch (type) {
    case PatchType::kMerge: return "application/merge-patch+json";
    case PatchType::kJson: return "application/json-patch+json";
    case PatchType::kStrategic: return "application/strategic-merge-patch+json";
  }
  return "application/merge-patch+json";
}

const char* propagation_text(Propagation propagation) {
  switch (propagation) {
    case Propagation::kBackground: return "Background";
    case Propagation::kForeground: return "Foreground";
    case Propagation::kOrphan: return "Orphan";
    case Propagation::kDefault: break;
  }
  return nullptr;
}

}  // namespace

namespace detail {

HttpRequest make_request(std::string method, std::string target, const CallOptions& options) {
  HttpRequest request;
  request.method = std::move(method);
  request.target = std::move(target);
  request.headers.emplace_back("Accept", "application/json");
  request.timeout = options.timeout;
  request.cancel = options.cancel;
  request.idempotent = request.method == "GET";
  return request;
}

RequestContext context_for(std::string method, const Resource& resource, std::string_view name) {
  RequestContext context;
  context.method = std::move(method);
  context.resource =
      resource.group.empty() ? resource.resource : resource.resource + "." + resource.group;
  context.name = std::string(name);
  return context;
}

}  // namespace detail

Result<detail::HttpResponse> Client::Impl::send(const detail::HttpRequest& request,
                                                const detail::RequestContext& context) {
  static constexpr std::array<std::string_view, 5> kMethods{"GET", "POST", "PUT", "PATCH",
                                                            "DELETE"};
  std::size_t slot = 0;
  while (slot < kMethods.size() && kMethods[slot] != request.method) ++slot;
  sent[slot].fetch_add(1, std::memory_order_relaxed);
  auto response = transport->send(request);
  if (!response) return response;
  if (response->status >= 200 && response->status < 300) return response;
  const std::string* content_type = response->header("content-type");
  Error error = detail::error_from_response(
      response->status, content_type ? *content_type : std::string(), response->body, context);
  if (error.code == ErrorCode::kUnauthorized || error.code == ErrorCode::kForbidden) {
    // Which identity was refused is the first thing a user needs and the server never says
    // it for 401.
    const std::string credentials = transport->describe_credentials();
    if (!credentials.empty()) error.message += "; the client sent " + credentials;
  }
  return tl::unexpected(std::move(error));
}

Result<boost::json::object> Client::Impl::send_object(detail::HttpRequest request,
                                                      const detail::RequestContext& context) {
  request.decode_json = true;
  auto response = send(request, context);
  if (!response) return error_of(response);
  const std::string what =
      "the answer to " + request.method + " " + request.target.substr(0, request.target.find('?'));
  if (response->json) return detail::object_of(std::move(*response->json), what);
  if (!response->json_error.empty()) {
    return fail(ErrorCode::kParse, what + " is not JSON: " + response->json_error);
  }
  return detail::parse_object(response->body, what);
}

std::string Client::Impl::namespace_or_default(std::string_view ns) const {
  if (!ns.empty()) return std::string(ns);
  return config.namespace_.empty() ? std::string("default") : config.namespace_;
}

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;
Client::~Client() = default;

Result<Client> Client::create(Config config, ClientOptions options) {
  auto transport = detail::Transport::create(config, options);
  if (!transport) return error_of(transport);
  auto impl = std::make_unique<Impl>();
  impl->config = std::move(config);
  impl->client_options = std::move(options);
  impl->transport = std::move(*transport);
  return Client(std::move(impl));
}

const Config& Client::config() const noexcept {
  return impl_->config;
}

const std::string& Client::default_namespace() const noexcept {
  static const std::string kDefault = "default";
  return impl_->config.namespace_.empty() ? kDefault : impl_->config.namespace_;
}

Result<boost::json::object> Client::get(const Resource& resource, std::string_view ns,
                                        std::string_view name, const CallOptions& options) {
  auto path = object_path(resource, impl_->namespace_or_default(ns), name);
  if (!path) return error_of(path);
  return impl_->send_object(detail::make_request("GET", *path, options),
                            detail::context_for("GET", resource, name));
}

Result<boost::json::object> Client::create(const Resource& resource, std::string_view ns,
                                           const boost::json::object& object,
                                           const WriteOptions& options) {
  // A subresource is posted to the object (`pods/x/eviction`), a new object to the collection.
  const std::string name = options.subresource.empty() ? "" : metadata_string(object, "name");
  auto path =
      detail::resource_path(resource, impl_->namespace_or_default(ns), name, options.subresource);
  if (!path) return error_of(path);
  auto request = detail::make_request("POST", *path + write_query(options).str(), options);
  request.headers.emplace_back("Content-Type", "application/json");
  request.body = boost::json::serialize(object);
  return impl_->send_object(std::move(request),
                            detail::context_for("POST", resource, metadata_string(object, "name")));
}

Result<boost::json::object> Client::apply(const Resource& resource, std::string_view ns,
                                          const boost::json::object& object,
                                          const ApplyOptions& options) {
  const std::string name = metadata_string(object, "name");
  if (name.empty()) return fail(ErrorCode::kInvalidArgument, "apply needs metadata.name");
  if (options.field_manager.empty()) {
    return fail(ErrorCode::kInvalidArgument, "apply needs a field manager");
  }
  std::string target_ns(ns);
  if (target_ns.empty()) target_ns = metadata_string(object, "namespace");
  auto path = detail::resource_path(resource, impl_->namespace_or_default(target_ns), name,
                                    options.subresource);
  if (!path) return error_of(path);
  Query query = write_query(options);
  if (options.force) query.add("force", "true");
  auto request = detail::make_request("PATCH", *path + query.str(), options);
  // The apply content type takes YAML or JSON; JSON needs no YAML emitter. The server refuses
  // managedFields in an apply body, and an object read back from it carries them.
  request.headers.emplace_back("Content-Type", "application/apply-patch+yaml");
  boost::json::object body = object;
  if (auto* metadata = find_object(body, "metadata")) metadata->erase("managedFields");
  request.body = boost::json::serialize(body);
  return impl_->send_object(std::move(request), detail::context_for("PATCH", resource, name));
}

Result<boost::json::object> Client::patch(const Resource& resource, std::string_view ns,
                                          std::string_view name, PatchType type,
                                          std::string_view body, const WriteOptions& options) {
  auto path = object_path(resource, impl_->namespace_or_default(ns), name, options.subresource);
  if (!path) return error_of(path);
  auto request = detail::make_request("PATCH", *path + write_query(options).str(), options);
  request.headers.emplace_back("Content-Type", patch_content_type(type));
  request.body = std::string(body);
  return impl_->send_object(std::move(request), detail::context_for("PATCH", resource, name));
}

Result<boost::json::object> Client::remove(const Resource& resource, std::string_view ns,
                                           std::string_view name, const DeleteOptions& options) {
  auto path = object_path(resource, impl_->namespace_or_default(ns), name);
  if (!path) return error_of(path);
  boost::json::object body{{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (const char* policy = propagation_text(options.propagation)) {
    body["propagationPolicy"] = policy;
  }
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  if (!options.precondition_uid.empty() || !options.precondition_resource_version.empty()) {
    boost::json::object preconditions;
    if (!options.precondition_uid.empty()) preconditions["uid"] = options.precondition_uid;
    if (!options.precondition_resource_version.empty()) {
      preconditions["resourceVersion"] = options.precondition_resource_version;
    }
    body["preconditions"] = std::move(preconditions);
  }
  if (options.dry_run) body["dryRun"] = boost::json::array{"All"};
  auto request = detail::make_request("DELETE", *path, options);
  request.headers.emplace_back("Content-Type", "application/json");
  request.body = boost::json::serialize(body);
  return impl_->send_object(std::move(request), detail::context_for("DELETE", resource, name));
}

Result<RawResponse> Client::raw(const RawRequest& raw) {
  if (raw.path.empty() || raw.path.front() != '/') {
    return fail(ErrorCode::kInvalidArgument, "a raw request's path must start with '/'");
  }
  HttpRequest request;
  request.method = raw.method;
  request.target = raw.path + (raw.query.empty() ? "" : "?" + raw.query);
  request.headers = raw.headers;
  request.body = raw.body;
  request.timeout = raw.timeout;
  request.cancel = raw.cancel;
  request.idempotent = raw.method == "GET";
  detail::RequestContext context;
  context.method = raw.method;
  auto response = impl_->send(request, context);
  if (!response) return error_of(response);
  return RawResponse{response->status, std::move(response->headers), std::move(response->body)};
}

RequestCounts Client::request_counts() const noexcept {
  const auto& sent = impl_->sent;
  const auto at = [&](std::size_t i) { return sent[i].load(std::memory_order_relaxed); };
  return RequestCounts{at(0), at(1), at(2), at(3), at(4), at(5)};
}

}  // namespace trainer::kube
