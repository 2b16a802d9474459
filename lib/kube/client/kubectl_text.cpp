// SPDX-License-Identifier: Apache-2.0
//
// kube::kubectl_text: the line kubectl prints for an error (reference section 5.4).
#include "trainer/kube.hpp"

namespace trainer::kube {
namespace {

bool starts_with(const std::string& text, std::string_view prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

std::string kubectl_text(const Error& error) {
  if (error.http_status != 0) {
    if (error.http_status == 401 || error.reason == "Unauthorized") {
      return "error: You must be logged in to the server (" + error.message + ")";
    }
    // status_error.cpp already wrote kubectl's whole text for Invalid (it needs details.kind).
    if (error.reason == "Invalid" || (error.reason.empty() && error.http_status == 422)) {
      return error.message;
    }
    if (error.reason.empty()) return "Error from server: " + error.message;
    return "Error from server (" + error.reason + "): " + error.message;
  }
  // Transport errors already carry kubectl's text.
  if (starts_with(error.message, "The connection to the server ") ||
      starts_with(error.message, "Unable to connect to the server: ") ||
      starts_with(error.message, "error: ")) {
    return error.message;
  }
  return "error: " + error.message;
}

}  // namespace trainer::kube
