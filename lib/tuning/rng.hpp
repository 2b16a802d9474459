// SPDX-License-Identifier: Apache-2.0
//
// Seeded random numbers that are the same with every standard library: std::mt19937_64's
// output sequence is fixed by the standard, but its distributions are not, so the mappings
// from 64-bit words to numbers are written here (docs/tuning.md, "Random numbers").
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>

namespace trainer::tuning::detail {

/// A double in [0, 1): the top 53 bits of one word times 2^-53.
[[nodiscard]] double unit(std::mt19937_64& rng);
/// An index in [0, n) for n >= 1: floor(unit * n) from one word (n is at most 100 here, so the
/// bias is below 2^-46).
[[nodiscard]] std::size_t index(std::mt19937_64& rng, std::size_t n);
/// A standard normal value by Box-Muller from two words.
[[nodiscard]] double normal(std::mt19937_64& rng);
/// splitmix64 of `x`: derives independent stream seeds (one per trial) from the job's seed.
[[nodiscard]] std::uint64_t mix(std::uint64_t x);

}  // namespace trainer::tuning::detail
