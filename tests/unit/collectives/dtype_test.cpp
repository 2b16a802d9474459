// SPDX-License-Identifier: Apache-2.0
#include "collectives/comm_impl.hpp"
#include "trainer/collectives.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace tc = trainer::collectives;
using tc::BFloat16;
using tc::DataType;
using tc::Float16;
using tc::ReduceOp;

TEST_CASE("data type sizes and names", "[collectives]") {
  CHECK(tc::size_of(DataType::kInt8) == 1);
  CHECK(tc::size_of(DataType::kUInt8) == 1);
  CHECK(tc::size_of(DataType::kInt32) == 4);
  CHECK(tc::size_of(DataType::kInt64) == 8);
  CHECK(tc::size_of(DataType::kFloat16) == 2);
  CHECK(tc::size_of(DataType::kBFloat16) == 2);
  CHECK(tc::size_of(DataType::kFloat32) == 4);
  CHECK(tc::size_of(DataType::kFloat64) == 8);
  CHECK(std::string(tc::to_string(DataType::kBFloat16)) == "bfloat16");
  CHECK(std::string(tc::to_string(ReduceOp::kAvg)) == "avg");
  CHECK(std::string(tc::to_string(tc::Backend::kNccl)) == "nccl");
  CHECK(std::string(tc::to_string(tc::MemoryKind::kCuda)) == "cuda");
}

TEST_CASE("float16 round-trips every non-NaN bit pattern", "[collectives]") {
  for (std::uint32_t b = 0; b <= 0xFFFFU; ++b) {
    Float16 h;
    h.bits = static_cast<std::uint16_t>(b);
    const float f = h.to_float();
    if (std::isnan(f)) {
      CHECK(std::isnan(Float16::from_float(f).to_float()));
      continue;
    }
    REQUIRE(Float16::from_float(f).bits == h.bits);
  }
}

TEST_CASE("float16 rounding", "[collectives]") {
  CHECK(Float16::from_float(1.0F).bits == 0x3C00);
  CHECK(Float16::from_float(-2.0F).bits == 0xC000);
  CHECK(Float16::from_float(65504.0F).bits == 0x7BFF);               // largest finite
  CHECK(Float16::from_float(65520.0F).bits == 0x7C00);               // rounds to infinity
  CHECK(Float16::from_float(1.0F + 0x1.0p-11F).bits == 0x3C00);      // tie -> even
  CHECK(Float16::from_float(1.0F + 3 * 0x1.0p-11F).bits == 0x3C02);  // tie -> even (up)
  CHECK(Float16::from_float(0x1.0p-24F).bits == 0x0001);             // smallest subnormal
  CHECK(Float16::from_float(0x1.0p-25F).bits == 0x0000);             // tie -> even (zero)
  CHECK(Float16::from_float(0x1.8p-25F).bits == 0x0001);
  CHECK(Float16::from_float(std::numeric_limits<float>::infinity()).bits == 0x7C00);
  for (int i = -2048; i <= 2048; ++i) {  // every integer up to 2048 is exact
    REQUIRE(Float16::from_float(static_cast<float>(i)).to_float() == static_cast<float>(i));
  }
}

TEST_CASE("bfloat16 conversions", "[collectives]") {
  CHECK(BFloat16::from_float(1.0F).bits == 0x3F80);
  CHECK(BFloat16::from_float(1.0F + 0x1.0p-8F).bits == 0x3F80);      // tie -> even
  CHECK(BFloat16::from_float(1.0F + 3 * 0x1.0p-8F).bits == 0x3F82);  // tie -> even (up)
  CHECK(std::isnan(BFloat16::from_float(std::numeric_limits<float>::quiet_NaN()).to_float()));
  for (int i = -256; i <= 256; ++i) {
    REQUIRE(BFloat16::from_float(static_cast<float>(i)).to_float() == static_cast<float>(i));
  }
}

TEST_CASE("host reductions and the avg division", "[collectives]") {
  std::int32_t a[3] = {1, -7, 5};
  std::int32_t b[3] = {2, 3, -9};
  tc::detail::reduce_host(a, b, 3, DataType::kInt32, ReduceOp::kSum);
  CHECK((b[0] == 3 && b[1] == -4 && b[2] == -4));
  tc::detail::divide_host(b, 3, DataType::kInt32, 3);  // truncation toward zero
  CHECK((b[0] == 1 && b[1] == -1 && b[2] == -1));

  std::uint8_t u[2] = {200, 3};
  std::uint8_t v[2] = {100, 4};
  tc::detail::reduce_host(u, v, 2, DataType::kUInt8, ReduceOp::kMax);
  CHECK((v[0] == 200 && v[1] == 4));
  tc::detail::reduce_host(u, v, 2, DataType::kUInt8, ReduceOp::kMin);
  CHECK((v[0] == 200 && v[1] == 3));

  Float16 h[2] = {Float16::from_float(1.5F), Float16::from_float(-2.0F)};
  Float16 g[2] = {Float16::from_float(2.0F), Float16::from_float(3.0F)};
  tc::detail::reduce_host(h, g, 2, DataType::kFloat16, ReduceOp::kProd);
  CHECK(g[0].to_float() == 3.0F);
  CHECK(g[1].to_float() == -6.0F);
  tc::detail::divide_host(g, 2, DataType::kFloat16, 4);
  CHECK(g[0].to_float() == 0.75F);
  CHECK(g[1].to_float() == -1.5F);

  double d[2] = {1.0, 2.0};
  tc::detail::divide_host(d, 2, DataType::kFloat64, 3);
  CHECK(d[0] == 1.0 / 3.0);
}

TEST_CASE("backends report what is compiled in", "[collectives]") {
#if defined(TRAINER_HAVE_MPI)
  CHECK(tc::backend_compiled(tc::Backend::kMpi));
#endif
  CHECK(tc::cuda_available() == tc::cuda_available());
}
