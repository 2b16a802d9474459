// SPDX-License-Identifier: Apache-2.0
// Status answers as trainer::Error (reference 5.3) and kubectl's error lines (5.4).
#include "kube/client/status_error.hpp"
#include "trainer/kube.hpp"

#include <catch2/catch.hpp>

using trainer::Error;
using trainer::ErrorCode;
using trainer::FieldErrorType;
using trainer::kube::kubectl_text;
using trainer::kube::detail::error_from_response;
using trainer::kube::detail::RequestContext;

namespace {
const RequestContext kGet{"GET", "trainjobs.trainer.kubeflow.org", "x"};
}

TEST_CASE("a NotFound Status keeps the server's reason and message") {
  const Error e = error_from_response(
      404, "application/json",
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
      R"("message":"trainjobs.trainer.kubeflow.org \"x\" not found","reason":"NotFound",)"
      R"("details":{"name":"x","group":"trainer.kubeflow.org","kind":"trainjobs"},"code":404})",
      kGet);
  CHECK(e.code == ErrorCode::kNotFound);
  CHECK(e.http_status == 404);
  CHECK(e.reason == "NotFound");
  CHECK(kubectl_text(e) ==
        R"(Error from server (NotFound): trainjobs.trainer.kubeflow.org "x" not found)");
}

TEST_CASE("an Invalid Status with one cause is one kubectl line and one field error") {
  const Error e = error_from_response(
      422, "application/json",
      R"({"kind":"Status","status":"Failure","reason":"Invalid","code":422,)"
      R"("message":"TrainJob.trainer.kubeflow.org \"x\" is invalid: spec.trainer.numNodes: Invalid value: 0: must be greater than or equal to 1",)"
      R"("details":{"name":"x","group":"trainer.kubeflow.org","kind":"TrainJob","causes":[)"
      R"({"reason":"FieldValueInvalid","message":"Invalid value: 0: must be greater than or equal to 1","field":"spec.trainer.numNodes"}]}})",
      kGet);
  CHECK(e.code == ErrorCode::kInvalid);
  REQUIRE(e.fields.size() == 1);
  CHECK(e.fields[0].path == "spec.trainer.numNodes");
  CHECK(e.fields[0].type == FieldErrorType::kInvalid);
  CHECK(e.fields[0].to_string() ==
        "spec.trainer.numNodes: Invalid value: 0: must be greater than or equal to 1");
  CHECK(kubectl_text(e) ==
        "The TrainJob \"x\" is invalid: spec.trainer.numNodes: Invalid value: 0: must be "
        "greater than or equal to 1");
}

TEST_CASE("several causes are '* ' lines under the header, duplicates dropped") {
  const Error e = error_from_response(
      422, "application/json",
      R"({"kind":"Status","status":"Failure","reason":"Invalid","code":422,"message":"m",)"
      R"("details":{"name":"x","kind":"TrainJob","causes":[)"
      R"({"reason":"FieldValueRequired","message":"Required value","field":"spec.a"},)"
      R"({"reason":"FieldValueRequired","message":"Required value","field":"spec.a"},)"
      R"({"reason":"FieldValueNotSupported","message":"Unsupported value: \"z\"","field":"spec.b"}]}})",
      kGet);
  REQUIRE(e.fields.size() == 3);
  CHECK(e.fields[0].type == FieldErrorType::kRequired);
  CHECK(e.fields[2].type == FieldErrorType::kNotSupported);
  CHECK(kubectl_text(e) ==
        "The TrainJob \"x\" is invalid: \n* spec.a: Required value\n* spec.b: Unsupported "
        "value: \"z\"");
}

TEST_CASE("an Invalid Status without details is 'The request is invalid'") {
  const Error e = error_from_response(
      422, "application/json",
      R"({"kind":"Status","status":"Failure","reason":"Invalid","message":"bad","code":422})",
      kGet);
  CHECK(kubectl_text(e) == "The request is invalid: bad");
}

TEST_CASE("codes map to trainer error codes") {
  const auto status = [](int code, const char* reason) {
    return error_from_response(code, "application/json",
                               std::string(R"({"kind":"Status","status":"Failure","code":)") +
                                   std::to_string(code) + R"(,"reason":")" + reason +
                                   R"(","message":"m"})",
                               kGet);
  };
  CHECK(status(401, "Unauthorized").code == ErrorCode::kUnauthorized);
  CHECK(status(403, "Forbidden").code == ErrorCode::kForbidden);
  CHECK(status(409, "AlreadyExists").code == ErrorCode::kConflict);
  CHECK(status(409, "Conflict").code == ErrorCode::kConflict);
  CHECK(status(504, "Timeout").code == ErrorCode::kTimeout);
  CHECK(status(500, "ServerTimeout").code == ErrorCode::kTimeout);
  CHECK(status(410, "Expired").code == ErrorCode::kServer);
  CHECK(trainer::kube::detail::is_expired(status(410, "Expired")));
  CHECK(status(400, "BadRequest").code == ErrorCode::kServer);
  CHECK(status(500, "InternalError").code == ErrorCode::kServer);
}

TEST_CASE("a Status of success or a foreign body is synthesized from the code") {
  const Error not_found = error_from_response(404, "text/plain", "404 page not found\n", kGet);
  CHECK(not_found.code == ErrorCode::kNotFound);
  CHECK(not_found.reason == "NotFound");
  CHECK(not_found.message ==
        "the server could not find the requested resource (get trainjobs.trainer.kubeflow.org x)");

  const Error conflict = error_from_response(409, "", "", {"POST", "pods", ""});
  CHECK(conflict.reason == "AlreadyExists");
  CHECK(conflict.message == "the server reported a conflict (post pods)");

  const Error internal =
      error_from_response(502, "application/octet-stream", " bad gateway ", {"GET", "", ""});
  CHECK(internal.reason == "InternalError");
  CHECK(internal.message ==
        "an error on the server (\"unknown\") has prevented the request from succeeding");
  const Error internal_text = error_from_response(500, "text/plain", " boom\n", {"GET", "", ""});
  CHECK(internal_text.message ==
        "an error on the server (\"boom\") has prevented the request from succeeding");
  CHECK(kubectl_text(internal_text) ==
        "Error from server (InternalError): an error on the server (\"boom\") has prevented the "
        "request from succeeding");

  const Error forbidden = error_from_response(403, "text/plain", "no way", {"GET", "", ""});
  CHECK(forbidden.code == ErrorCode::kForbidden);
  CHECK(forbidden.message == "no way");

  const Error teapot = error_from_response(418, "", "", {"GET", "", ""});
  CHECK(teapot.reason.empty());
  CHECK(teapot.code == ErrorCode::kServer);
  CHECK(kubectl_text(teapot) ==
        "Error from server: the server responded with the status code 418 but did not return "
        "more information");
}

TEST_CASE("kubectl_text of 401 and of errors that did not come from a server") {
  Error unauthorized = error_from_response(
      401, "application/json",
      R"({"kind":"Status","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})",
      kGet);
  CHECK(kubectl_text(unauthorized) == "error: You must be logged in to the server (Unauthorized)");

  CHECK(kubectl_text(Error(ErrorCode::kIo,
                           "The connection to the server 127.0.0.1:6443 was refused - did you "
                           "specify the right host or port?")) ==
        "The connection to the server 127.0.0.1:6443 was refused - did you specify the right "
        "host or port?");
  CHECK(kubectl_text(Error(ErrorCode::kInvalidArgument, "context \"x\" does not exist")) ==
        "error: context \"x\" does not exist");
  CHECK(kubectl_text(Error(ErrorCode::kIo, "error: already prefixed")) ==
        "error: already prefixed");
}
