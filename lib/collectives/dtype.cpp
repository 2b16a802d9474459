// SPDX-License-Identifier: Apache-2.0
// Data types, their names, half-precision conversions and host-side element-wise kernels.
#include "collectives/comm_impl.hpp"

#include <cstring>

namespace trainer::collectives {

std::size_t size_of(DataType type) noexcept {
  switch (type) {
    case DataType::kInt8:
    case DataType::kUInt8: return 1;
    case DataType::kFloat16:
    case DataType::kBFloat16: return 2;
    case DataType::kInt32:
    case DataType::kFloat32: return 4;
    case DataType::kInt64:
    case DataType::kFloat64: return 8;
  }
  return 0;
}

const char* to_string(DataType type) noexcept {
  switch (type) {
    case DataType::kInt8: return "int8";
    case DataType::kUInt8: return "uint8";
    case DataType::kInt32: return "int32";
    case DataType::kInt64: return "int64";
    case DataType::kFloat16: return "float16";
    case DataType::kBFloat16: return "bfloat16";
    case DataType::kFloat32: return "float32";
    case DataType::kFloat64: return "float64";
  }
  return "?";
}

const char* to_string(ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::kSum: return "sum";
    case ReduceOp::kProd: return "prod";
    case ReduceOp::kMin: return "min";
    case ReduceOp::kMax: return "max";
    case ReduceOp::kAvg: return "avg";
  }
  return "?";
}

const char* to_string(Backend backend) noexcept {
  switch (backend) {
    case Backend::kMpi: return "mpi";
    case Backend::kNccl: return "nccl";
  }
  return "?";
}

const char* to_string(MemoryKind memory) noexcept {
  switch (memory) {
    case MemoryKind::kHost: return "host";
    case MemoryKind::kCuda: return "cuda";
  }
  return "?";
}

namespace {

std::uint32_t float_bits(float f) noexcept {
  std::uint32_t x = 0;
  std::memcpy(&x, &f, sizeof x);
  return x;
}

float bits_float(std::uint32_t x) noexcept {
  float f = 0;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

}  // namespace

Float16 Float16::from_float(float value) noexcept {
  const std::uint32_t x = float_bits(value);
  const auto sign = static_cast<std::uint16_t>((x >> 16U) & 0x8000U);
  const std::uint32_t absx = x & 0x7FFFFFFFU;
  Float16 h;
  if (absx >= 0x7F800000U) {  // inf or NaN (NaN stays a quiet NaN)
    h.bits = static_cast<std::uint16_t>(sign | 0x7C00U | (absx > 0x7F800000U ? 0x200U : 0U) |
                                        ((absx >> 13U) & 0x3FFU));
    return h;
  }
  if (absx >= 0x477FF000U) {  // >= 65520 rounds to infinity
    h.bits = static_cast<std::uint16_t>(sign | 0x7C00U);
    return h;
  }
  if (absx < 0x38800000U) {     // below the smallest normal half (2^-14)
    if (absx <= 0x33000000U) {  // <= 2^-25: rounds (to even) to zero
      h.bits = sign;
      return h;
    }
    const std::uint32_t exp = absx >> 23U;
    const std::uint32_t mant = (absx & 0x7FFFFFU) | 0x800000U;
    const std::uint32_t shift = 126U - exp;
    std::uint32_t r = mant >> shift;
    const std::uint32_t rem = mant & ((1U << shift) - 1U);
    const std::uint32_t halfway = 1U << (shift - 1U);
    if (rem > halfway || (rem == halfway && (r & 1U) != 0U)) ++r;
    h.bits = static_cast<std::uint16_t>(sign | r);
    return h;
  }
  const std::uint32_t rebased = absx - 0x38000000U;  // exponent bias 127 -> 15
  std::uint32_t r = rebased >> 13U;
  const std::uint32_t rem = rebased & 0x1FFFU;
  if (rem > 0x1000U || (rem == 0x1000U && (r & 1U) != 0U)) ++r;
  h.bits = static_cast<std::uint16_t>(sign | r);
  return h;
}

float Float16::to_float() const noexcept {
  const std::uint32_t sign = (static_cast<std::uint32_t>(bits) & 0x8000U) << 16U;
  const std::uint32_t exp = (static_cast<std::uint32_t>(bits) >> 10U) & 0x1FU;
  const std::uint32_t mant = static_cast<std::uint32_t>(bits) & 0x3FFU;
  if (exp == 0) {
    const float v = static_cast<float>(mant) * 5.9604644775390625e-8F;  // 2^-24
    return sign != 0 ? -v : v;
  }
  if (exp == 31) return bits_float(sign | 0x7F800000U | (mant << 13U));
  return bits_float(sign | ((exp + 112U) << 23U) | (mant << 13U));
}

BFloat16 BFloat16::from_float(float value) noexcept {
  const std::uint32_t x = float_bits(value);
  BFloat16 b;
  if ((x & 0x7FFFFFFFU) > 0x7F800000U) {  // NaN: keep it quiet
    b.bits = static_cast<std::uint16_t>((x >> 16U) | 0x40U);
    return b;
  }
  b.bits = static_cast<std::uint16_t>((x + 0x7FFFU + ((x >> 16U) & 1U)) >> 16U);
  return b;
}

float BFloat16::to_float() const noexcept {
  return bits_float(static_cast<std::uint32_t>(bits) << 16U);
}

namespace detail {
namespace {

template <class T>
T apply(ReduceOp op, T a, T b) noexcept {
  switch (op) {
    case ReduceOp::kProd: return static_cast<T>(a * b);
    case ReduceOp::kMin: return b < a ? b : a;
    case ReduceOp::kMax: return a < b ? b : a;
    case ReduceOp::kSum:
    case ReduceOp::kAvg: break;
  }
  return static_cast<T>(a + b);
}

template <class T>
void reduce_typed(const void* in, const void* acc, void* out, std::size_t count,
                  ReduceOp op) noexcept {
  const T* a = static_cast<const T*>(in);
  const T* b = static_cast<const T*>(acc);
  T* c = static_cast<T*>(out);
  switch (op) {  // one loop per op so the compiler vectorises the common ones
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      for (std::size_t i = 0; i < count; ++i) c[i] = static_cast<T>(a[i] + b[i]);
      return;
    case ReduceOp::kProd:
      for (std::size_t i = 0; i < count; ++i) c[i] = static_cast<T>(a[i] * b[i]);
      return;
    case ReduceOp::kMin:
      for (std::size_t i = 0; i < count; ++i) c[i] = a[i] < b[i] ? a[i] : b[i];
      return;
    case ReduceOp::kMax:
      for (std::size_t i = 0; i < count; ++i) c[i] = b[i] < a[i] ? a[i] : b[i];
      return;
  }
}

template <class H>
void reduce_half(const void* in, const void* acc, void* out, std::size_t count,
                 ReduceOp op) noexcept {
  const H* a = static_cast<const H*>(in);
  const H* b = static_cast<const H*>(acc);
  H* c = static_cast<H*>(out);
  for (std::size_t i = 0; i < count; ++i) {
    c[i] = H::from_float(apply(op, a[i].to_float(), b[i].to_float()));
  }
}

template <class T>
void divide_typed(void* buf, std::size_t count, int divisor) noexcept {
  T* p = static_cast<T*>(buf);
  const auto d = static_cast<T>(divisor);
  for (std::size_t i = 0; i < count; ++i) p[i] = static_cast<T>(p[i] / d);
}

template <class H>
void divide_half(void* buf, std::size_t count, int divisor) noexcept {
  H* p = static_cast<H*>(buf);
  const auto d = static_cast<float>(divisor);
  for (std::size_t i = 0; i < count; ++i) p[i] = H::from_float(p[i].to_float() / d);
}

}  // namespace

void reduce_host(const void* in, const void* acc, void* out, std::size_t count, DataType type,
                 ReduceOp op) noexcept {
  switch (type) {
    case DataType::kInt8: reduce_typed<std::int8_t>(in, acc, out, count, op); return;
    case DataType::kUInt8: reduce_typed<std::uint8_t>(in, acc, out, count, op); return;
    case DataType::kInt32: reduce_typed<std::int32_t>(in, acc, out, count, op); return;
    case DataType::kInt64: reduce_typed<std::int64_t>(in, acc, out, count, op); return;
    case DataType::kFloat16: reduce_half<Float16>(in, acc, out, count, op); return;
    case DataType::kBFloat16: reduce_half<BFloat16>(in, acc, out, count, op); return;
    case DataType::kFloat32: reduce_typed<float>(in, acc, out, count, op); return;
    case DataType::kFloat64: reduce_typed<double>(in, acc, out, count, op); return;
  }
}

void divide_host(void* buf, std::size_t count, DataType type, int divisor) noexcept {
  switch (type) {
    case DataType::kInt8: divide_typed<std::int8_t>(buf, count, divisor); return;
    case DataType::kUInt8: divide_typed<std::uint8_t>(buf, count, divisor); return;
    case DataType::kInt32: divide_typed<std::int32_t>(buf, count, divisor); return;
    case DataType::kInt64: divide_typed<std::int64_t>(buf, count, divisor); return;
    case DataType::kFloat16: divide_half<Float16>(buf, count, divisor); return;
    case DataType::kBFloat16: divide_half<BFloat16>(buf, count, divisor); return;
    case DataType::kFloat32: divide_typed<float>(buf, count, divisor); return;
    case DataType::kFloat64: divide_typed<double>(buf, count, divisor); return;
  }
}

}  // namespace detail
}  // namespace trainer::collectives
