// SPDX-License-Identifier: Apache-2.0
#include "trainer/tuning.hpp"

#include <catch2/catch.hpp>

using trainer::tuning::parse_metrics_line;
using Pairs = std::vector<std::pair<std::string, double>>;

TEST_CASE("parse_metrics_line: Katib's name=value filter") {
  const std::vector<std::string> names{"loss", "accuracy", "val-loss"};
  CHECK(parse_metrics_line("loss=0.25", names) == Pairs{{"loss", 0.25}});
  // several pairs, spaces around '=', other names and text ignored
  CHECK(parse_metrics_line("epoch 3: loss = 0.5, accuracy=0.9 lr=0.1", names) ==
        Pairs{{"loss", 0.5}, {"accuracy", 0.9}});
  // exponents, signs, leading dot
  CHECK(parse_metrics_line("loss=1e-3 accuracy=+.5", names) ==
        Pairs{{"loss", 1e-3}, {"accuracy", 0.5}});
  CHECK(parse_metrics_line("loss=-2.5E+2", names) == Pairs{{"loss", -250}});
  // '-' is a name character: val-loss is one name; a '/' separates
  CHECK(parse_metrics_line("val-loss=0.3 train/loss=0.2", names) ==
        Pairs{{"val-loss", 0.3}, {"loss", 0.2}});
  // the value stops where the number does; a dangling exponent or dot is left out
  CHECK(parse_metrics_line("loss=3e accuracy=1.", names) == Pairs{{"loss", 3}, {"accuracy", 1}});
  // not numbers: skipped
  CHECK(parse_metrics_line("loss=nan accuracy=", names).empty());
  CHECK(parse_metrics_line("loss: 0.1", names).empty());
  // a name must be the whole run of name characters
  CHECK(parse_metrics_line("myloss=0.1 loss_total=2", names).empty());
  CHECK(parse_metrics_line("", names).empty());
  CHECK(parse_metrics_line("loss=0.1", {}).empty());
  // timestamps before the pairs do not matter
  CHECK(parse_metrics_line("2024-01-01T00:00:00Z loss=0.125", names) == Pairs{{"loss", 0.125}});
}
