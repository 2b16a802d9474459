// SPDX-License-Identifier: Apache-2.0
// API paths and query strings (reference 4.1).
#include "kube/client/paths.hpp"

#include <catch2/catch.hpp>

using trainer::ErrorCode;
using trainer::kube::Resource;
using namespace trainer::kube::detail;

namespace {
Resource trainjobs() {
  Resource r;
  r.group = "trainer.kubeflow.org";
  r.version = "v1alpha1";
  r.resource = "trainjobs";
  r.kind = "TrainJob";
  return r;
}
Resource namespaces() {
  Resource r;
  r.version = "v1";
  r.resource = "namespaces";
  r.kind = "Namespace";
  r.namespaced = false;
  return r;
}
}  // namespace

TEST_CASE("paths of the core group, named groups, namespaces and subresources") {
  CHECK(*resource_path(trainjobs(), "team-a", "") ==
        "/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/trainjobs");
  CHECK(*resource_path(trainjobs(), "team-a", "x", "status") ==
        "/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/trainjobs/x/status");
  CHECK(*resource_path(trainjobs(), "", "") == "/apis/trainer.kubeflow.org/v1alpha1/trainjobs");
  CHECK(*resource_path(namespaces(), "ignored", "ns1") == "/api/v1/namespaces/ns1");
  CHECK(*resource_path(namespaces(), "", "system:x") == "/api/v1/namespaces/system%3Ax");
}

TEST_CASE("names that are not path segments are refused before sending") {
  for (const char* bad : {"", ".", "..", "a/b", "a%2F"}) {
    const auto path = resource_path(trainjobs(), "ns", bad);
    if (std::string(bad).empty()) {
      CHECK(path.has_value());  // empty name: the collection
      continue;
    }
    REQUIRE_FALSE(path);
    CHECK(path.error().code == ErrorCode::kInvalidArgument);
  }
  CHECK_FALSE(resource_path(trainjobs(), "..", "x"));
  CHECK_FALSE(resource_path(trainjobs(), "ns", "x", "a/b"));
  CHECK_FALSE(resource_path(trainjobs(), "ns", "", "status"));
  CHECK(check_path_segment("name", "a/b").error().message == "name \"a/b\" may not contain '/'");
}

TEST_CASE("query values are percent-encoded") {
  Query q;
  CHECK(q.str().empty());
  q.add("fieldSelector", "metadata.name=a b").add_if("labelSelector", "").add("limit", "5");
  CHECK(q.str() == "?fieldSelector=metadata.name%3Da%20b&limit=5");
  CHECK(url_escape("app in (a,b)") == "app%20in%20%28a%2Cb%29");
  CHECK(url_escape("A-z_0.9~") == "A-z_0.9~");
}
