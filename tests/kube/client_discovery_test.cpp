// SPDX-License-Identifier: Apache-2.0
// Discovery documents (aggregated and legacy) and kubectl's resource names.
#include "kube/client/discovery.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch.hpp>

using namespace trainer::kube;
using namespace trainer::kube::detail;

TEST_CASE("an aggregated discovery list gives every resource but subresources") {
  const auto list = boost::json::parse(R"({"kind":"APIGroupDiscoveryList","items":[
    {"metadata":{"name":""},"versions":[{"version":"v1","resources":[
      {"resource":"pods","responseKind":{"group":"","version":"","kind":"Pod"},"scope":"Namespaced",
       "singularResource":"pod","verbs":["get","list"],"shortNames":["po"],
       "subresources":[{"subresource":"log"}]},
      {"resource":"namespaces","responseKind":{"kind":"Namespace"},"scope":"Cluster",
       "singularResource":"namespace","shortNames":["ns"]}]}]},
    {"metadata":{"name":"trainer.kubeflow.org"},"versions":[{"version":"v1alpha1","resources":[
      {"resource":"trainjobs","responseKind":{"kind":"TrainJob"},"scope":"Namespaced",
       "singularResource":"trainjob","verbs":["get"]}]}]}]})")
                        .get_object();
  const auto resources = parse_aggregated_discovery(list);
  REQUIRE(resources.size() == 3);
  CHECK(resources[0].resource == "pods");
  CHECK(resources[0].namespaced);
  CHECK(resources[0].short_names == std::vector<std::string>{"po"});
  CHECK_FALSE(resources[1].namespaced);
  CHECK(resources[2].api_version() == "trainer.kubeflow.org/v1alpha1");
  CHECK(resources[2].kind_group() == "trainjob.trainer.kubeflow.org");
  CHECK(resources[0].kind_group() == "pod");

  CHECK(find_kind(resources, "trainer.kubeflow.org/v1alpha1", "TrainJob")->resource == "trainjobs");
  CHECK(find_kind(resources, "v1", "Pod")->resource == "pods");
  CHECK_FALSE(find_kind(resources, "trainer.kubeflow.org/v1", "TrainJob"));
  for (const char* name : {"trainjobs", "trainjob", "TrainJob", "trainjobs.trainer.kubeflow.org",
                           "trainjob.v1alpha1.trainer.kubeflow.org"}) {
    CAPTURE(name);
    REQUIRE(find_named(resources, name));
    CHECK(find_named(resources, name)->kind == "TrainJob");
  }
  CHECK(find_named(resources, "po")->kind == "Pod");
  CHECK(find_named(resources, "ns")->kind == "Namespace");
  CHECK_FALSE(find_named(resources, "trainjobs.apps"));
  CHECK_FALSE(find_named(resources, "nothing"));
}

TEST_CASE("legacy discovery documents") {
  const auto list =
      boost::json::parse(R"({"kind":"APIResourceList","groupVersion":"jobset.x-k8s.io/v1alpha2",
    "resources":[{"name":"jobsets","singularName":"jobset","namespaced":true,"kind":"JobSet","verbs":["get"]},
                 {"name":"jobsets/status","singularName":"","namespaced":true,"kind":"JobSet"}]})")
          .get_object();
  const auto resources = parse_resource_list(list);
  REQUIRE(resources.size() == 1);
  CHECK(resources[0].group == "jobset.x-k8s.io");
  CHECK(resources[0].version == "v1alpha2");
  CHECK(resources[0].singular == "jobset");

  const auto groups = parse_group_versions(boost::json::parse(R"({"kind":"APIGroupList","groups":[
    {"name":"a","versions":[{"groupVersion":"a/v1beta1","version":"v1beta1"},{"groupVersion":"a/v1","version":"v1"}],
     "preferredVersion":{"groupVersion":"a/v1","version":"v1"}}]})")
                                               .get_object());
  CHECK(groups == std::vector<std::pair<std::string, std::string>>{{"a", "v1"}, {"a", "v1beta1"}});
  CHECK(parse_group_versions(
            boost::json::parse(R"({"kind":"APIVersions","versions":["v1"]})").get_object()) ==
        std::vector<std::pair<std::string, std::string>>{{"", "v1"}});
  CHECK(is_aggregated_discovery(
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"));
  CHECK_FALSE(is_aggregated_discovery("application/json"));
}
