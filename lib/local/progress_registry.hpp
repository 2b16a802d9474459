// SPDX-License-Identifier: Apache-2.0
//
// The executor's side of a local ProgressServer: tokens issued per pod attempt (bound to the
// projected token's audience, ended with the attempt) and the TrainJobs whose posts it takes.
// Upstream asks the API server (TokenReview) whether a token is a live pod's of the TrainJob;
// here the run that issued the token knows.
#pragma once

#include "serving/certificates.hpp"
#include "serving/progress_endpoint.hpp"

#include "trainer/local_progress.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace trainer::local {

class ProgressServer::Impl {
 public:
  /// Receives a validated `trainerStatus` (what the cluster's server-side apply would store).
  using Sink = std::function<void(const boost::json::object&)>;

  Impl(ProgressServerOptions options, serving::CertificateSet certificates);

  /// A fresh token for `audience`, for pod attempt `pod` of the run in `run_dir`, valid for
  /// `lifetime` or until revoked.
  [[nodiscard]] Result<std::string> issue_token(const std::string& audience,
                                                const std::string& run_dir, const std::string& pod,
                                                std::chrono::seconds lifetime);
  /// Ends the tokens of a pod attempt (it exited), or of every pod of a run (`pod` empty).
  void revoke(const std::string& run_dir, const std::string& pod = {});

  /// Posts for TrainJob `ns`/`name` go to `sink` until `detach`. Errors: kConflict when
  /// another run holds that TrainJob.
  [[nodiscard]] Result<void> attach(const std::string& ns, const std::string& name, Sink sink);
  void detach(const std::string& ns, const std::string& name);

  // The progress endpoint's backend.
  [[nodiscard]] serving::ProgressResult authenticate(const std::string& token,
                                                     const std::string& ns,
                                                     const std::string& name) const;
  [[nodiscard]] serving::ProgressResult apply(const std::string& ns, const std::string& name,
                                              const boost::json::object& trainer_status) const;

  ProgressServerOptions options;
  serving::CertificateSet certificates;
  std::unique_ptr<serving::HttpsServer> server;

 private:
  struct Token {
    std::string audience;
    std::string run_dir;
    std::string pod;
    std::chrono::steady_clock::time_point expires;
  };
  mutable std::mutex mu_;
  std::map<std::string, Token> tokens_;
  std::map<std::pair<std::string, std::string>, Sink> jobs_;
};

}  // namespace trainer::local
