// SPDX-License-Identifier: Apache-2.0
// Second translation unit of the wrapper test: includes trainer.hpp together with every C++ core
// header (see capi_all_headers.hpp) and uses the wrapper, so that any non-inline definition in
// trainer.hpp becomes a duplicate symbol at link time.
// Its own header first: it includes nothing but trainer.hpp, so trainer.hpp is also compiled
// standalone here.
#include "cpp_wrapper_second_tu.hpp"

#include "capi_all_headers.hpp"

trainer::Result<std::string> second_tu_round_trip(std::string_view yaml) {
  return trainer::abi::DocumentList::parse(yaml).and_then(
      [](trainer::abi::DocumentList list) -> trainer::Result<std::string> {
        if (list.empty()) return trainer::fail(trainer::ErrorCode::kNotFound, "no document");
        auto doc = list[0];
        return doc.apply_defaults().and_then(
            [&] { return doc.encode(trainer::abi::Format::kJson); });
      });
}

trainer::Error second_tu_to_error(const trainer_error* err, trainer_status status) {
  return trainer::abi::to_error(err, status);
}
