// SPDX-License-Identifier: Apache-2.0
//
// A transport with the client's own Authenticator (auth.cpp). In a file of its own so that a
// test that passes its own Authenticator links without auth.cpp's dependencies.
#include "kube/client/auth.hpp"
#include "kube/client/transport.hpp"

namespace trainer::kube::detail {

Result<std::unique_ptr<Transport>> Transport::create(const Config& config,
                                                     const ClientOptions& options) {
  auto authenticator = Authenticator::create(config, options);
  if (!authenticator) return tl::unexpected<Error>(authenticator.error());
  return create(config, options, std::shared_ptr<Authenticator>(std::move(*authenticator)));
}

}  // namespace trainer::kube::detail
