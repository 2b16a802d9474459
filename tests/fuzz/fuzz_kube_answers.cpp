// SPDX-License-Identifier: Apache-2.0
//
// fuzz_kube_answers: what an API server (or anything on the other end of a kubeconfig's server
// URL) sends back, and the kubeconfig files the client reads, through the client's own parsers:
// - byte 0 % 3 == 0: a watch stream, cut into chunks whose sizes the next bytes give, framed by
//   WatchFramer and decoded as events; an ERROR event's Status becomes an Error;
// - 1: a non-2xx answer (HTTP status from bytes 1-2, a JSON or text content type from byte 3)
//   classified as client-go does, then printed as kubectl prints it;
// - 2: a kubeconfig text merged as kubectl merges it.
// Invariants: no crash, leak or hang; every Error has a code other than kOk and kubectl_text
// gives a non-empty line.
#include "kube/client/kubeconfig_merge.hpp"
#include "kube/client/status_error.hpp"
#include "kube/client/watch_stream.hpp"
#include "trainer/kube.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace kd = trainer::kube::detail;

namespace {

void check(const trainer::Error& e) {
  if (e.code == trainer::ErrorCode::kOk || trainer::kube::kubectl_text(e).empty()) std::abort();
}

void watch_stream(const std::uint8_t* data, std::size_t size) {
  const std::size_t header = size < 8 ? size : 8;
  std::string_view rest(reinterpret_cast<const char*>(data) + header, size - header);
  kd::WatchFramer framer;
  std::size_t h = 0;
  while (!rest.empty()) {
    const std::size_t chunk = header == 0 ? rest.size() : 1 + data[h++ % header] % 64;
    const auto piece = rest.substr(0, chunk);
    rest.remove_prefix(piece.size());
    auto fed = framer.feed(piece, [](boost::json::value&& doc) {
      auto event = kd::decode_event(std::move(doc));
      if (!event) {
        check(event.error());
        return true;
      }
      if (event->type == "ERROR") check(kd::error_from_status(event->object, 500));
      return true;
    });
    if (!fed) {
      check(fed.error());
      return;
    }
  }
}

void answer(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return;
  const long status = 300 + (data[1] << 8 | data[2]) % 300;
  const std::string_view content_type =
      data[3] % 2 == 0 ? "application/json" : "text/plain; charset=utf-8";
  const std::string_view body(reinterpret_cast<const char*>(data) + 4, size - 4);
  const kd::RequestContext context{"GET", "trainjobs.trainer.kubeflow.org", "x"};
  check(kd::error_from_response(status, content_type, body, context));
}

void kubeconfig(const std::uint8_t* data, std::size_t size) {
  kd::MergedKubeconfig merged;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto r = kd::merge_kubeconfig_text(merged, "/fuzz/kubeconfig", text);
  if (!r) check(r.error());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  switch (data[0] % 3) {
    case 0: watch_stream(data + 1, size - 1); break;
    case 1: answer(data, size); break;
    default: kubeconfig(data, size); break;
  }
  return 0;
}
