// SPDX-License-Identifier: Apache-2.0
//
// Quantity against the behaviour of k8s.io/apimachinery/pkg/api/resource v0.36: the expected
// texts below are what Kubernetes' ParseQuantity(...).String() returns for the same input.
#include <catch2/catch.hpp>

#include "trainer/quantity.hpp"

#include <cstdint>
#include <limits>
#include <regex>
#include <string>

namespace {

using trainer::ErrorCode;
using trainer::Quantity;
using F = Quantity::Format;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

const char* const kFormatWrong =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const char* const kSuffix = "unable to parse quantity's suffix";
const char* const kNumeric = "unable to parse numeric part of quantity";

Quantity q(const std::string& text) {
  auto r = Quantity::parse(text);
  INFO(text << ": " << (r ? std::string() : r.error().message));
  REQUIRE(r.has_value());
  return *r;
}

struct Case {
  const char* in;
  const char* out;
  F format;
};

}  // namespace

TEST_CASE("Quantity parses and prints like Kubernetes String()", "[quantity]") {
  const Case cases[] = {
      // The examples in Kubernetes' Quantity documentation and our header.
      {"1500m", "1500m", F::kDecimalSI},
      {"1.5", "1500m", F::kDecimalSI},
      {"0.1", "100m", F::kDecimalSI},
      {"1e3", "1e3", F::kDecimalExponent},
      {"1000", "1k", F::kDecimalSI},
      {"2Gi", "2Gi", F::kBinarySI},
      {"1024Mi", "1Gi", F::kBinarySI},
      {"1536Mi", "1536Mi", F::kBinarySI},
      {"100M", "100M", F::kDecimalSI},
      {"0.5Gi", "512Mi", F::kBinarySI},
      {"1.5Gi", "1536Mi", F::kBinarySI},
      {"12e6", "12e6", F::kDecimalExponent},
      {"-1500m", "-1500m", F::kDecimalSI},
      {"5n", "5n", F::kDecimalSI},
      // Zero in every spelling prints "0", keeping the parsed format.
      {"0", "0", F::kDecimalSI},
      {"0n", "0", F::kDecimalSI},
      {"0m", "0", F::kDecimalSI},
      {"0Ki", "0", F::kBinarySI},
      {"0Ti", "0", F::kBinarySI},
      {"0e5", "0", F::kDecimalExponent},
      {"00", "0", F::kDecimalSI},
      {"-0", "0", F::kDecimalSI},
      {"0.000", "0", F::kDecimalSI},
      // Every suffix.
      {"4u", "4u", F::kDecimalSI},
      {"3m", "3m", F::kDecimalSI},
      {"8k", "8k", F::kDecimalSI},
      {"50k", "50k", F::kDecimalSI},
      {"7M", "7M", F::kDecimalSI},
      {"6G", "6G", F::kDecimalSI},
      {"5T", "5T", F::kDecimalSI},
      {"300T", "300T", F::kDecimalSI},
      {"2P", "2P", F::kDecimalSI},
      {"1E", "1E", F::kDecimalSI},
      {"12E", "12E", F::kDecimalSI},
      {"1Ki", "1Ki", F::kBinarySI},
      {"7Mi", "7Mi", F::kBinarySI},
      {"5Ti", "5Ti", F::kBinarySI},
      {"100Ti", "100Ti", F::kBinarySI},
      {"4Pi", "4Pi", F::kBinarySI},
      {"3Ei", "3Ei", F::kBinarySI},
      // Re-canonicalised: trailing zeros move into the largest suffix.
      {"1000M", "1G", F::kDecimalSI},
      {"0.001T", "1G", F::kDecimalSI},
      {"1000u", "1m", F::kDecimalSI},
      {"1.08", "1080m", F::kDecimalSI},
      {"1080000000n", "1080m", F::kDecimalSI},
      {"5000m", "5", F::kDecimalSI},
      {"0.5", "500m", F::kDecimalSI},
      {"100.0350k", "100035", F::kDecimalSI},
      {"10.0350M", "10035k", F::kDecimalSI},
      {"1.01E", "1010P", F::kDecimalSI},
      {"2.5P", "2500T", F::kDecimalSI},
      {".001", "1m", F::kDecimalSI},
      {".0001k", "100m", F::kDecimalSI},
      {"307200Ki", "300Mi", F::kBinarySI},
      {"1025024Mi", "1001Gi", F::kBinarySI},
      {"1024Gi", "1Ti", F::kBinarySI},
      {"1024Ki", "1Mi", F::kBinarySI},
      {"0.5Mi", "512Ki", F::kBinarySI},
      {"1025Ki", "1025Ki", F::kBinarySI},
      // Decimal exponents print as e<multiple of 3>, none for e0.
      {"1e4", "10e3", F::kDecimalExponent},
      {"1E4", "10e3", F::kDecimalExponent},
      {"1.2e3", "1200", F::kDecimalExponent},
      {"1.3E+6", "1300e3", F::kDecimalExponent},
      {"1.40e9", "1400e6", F::kDecimalExponent},
      {".001e12", "1e9", F::kDecimalExponent},
      {"0.001e0", "1e-3", F::kDecimalExponent},
      {"1000e-12", "1e-9", F::kDecimalExponent},
      {"0.5e-1", "50e-3", F::kDecimalExponent},
      {"1e300", "1e300", F::kDecimalExponent},
      {"1e301", "10e300", F::kDecimalExponent},
      // BinarySI below 1024 or with a fraction prints as DecimalSI, format kept.
      {"100.035Ki", "102435840m", F::kBinarySI},
      {"0.05Gi", "53687091200m", F::kBinarySI},
      {".001Ki", "1024m", F::kBinarySI},
      {".000001Ki", "1024u", F::kDecimalSI},  // below 1: DecimalSI from parse on
      {".000000001Ki", "1024n", F::kDecimalSI},
      {"0.5Ki", "512", F::kBinarySI},
      // Finer than 1n rounds up (away from zero) to the next nano; a tiny BinarySI becomes
      // DecimalSI.
      {"0.0000000001", "1n", F::kDecimalSI},
      {"0.0000000005", "1n", F::kDecimalSI},
      {"0.9n", "1n", F::kDecimalSI},
      {"3.001n", "4n", F::kDecimalSI},
      {"1.1E-9", "2e-9", F::kDecimalExponent},
      {"0.5e-9", "1e-9", F::kDecimalExponent},
      {"0.00000012345", "124n", F::kDecimalSI},
      {"-0.00000012345", "-124n", F::kDecimalSI},
      {".000000000001Ki", "2n", F::kDecimalSI},
      {"1e-2000000000", "1e-9", F::kDecimalExponent},
      // BinarySI caps at 2^63-1; decimal formats do not cap.
      {"9Ei", "9223372036854775807", F::kBinarySI},
      {"9223372036854775807Ki", "9223372036854775807", F::kBinarySI},
      {"-9Ei", "-9223372036854775807", F::kBinarySI},
      // Kubernetes' TestParseQuantity boundaries around int64.
      {"9999999999999999999", "9999999999999999999", F::kDecimalSI},
      {"1000000000000000000", "1E", F::kDecimalSI},
      {"-1000000000000000000.0", "-1E", F::kDecimalSI},
      {"10000000000000000000000m", "10E", F::kDecimalSI},
      {"10.0000000000000000001E", "10000000000000000000100m", F::kDecimalSI},
      {"-9223372036854775808", "-9223372036854775808", F::kDecimalSI},
      {"9223372036854775807.1", "9223372036854775807100m", F::kDecimalSI},
      {"-9223372036854775809000m", "-9223372036854775809", F::kDecimalSI},
      // Kubernetes has no DecimalSI suffix past E and prints the bare mantissa.
      {"1000E", "1", F::kDecimalSI},
      {"10E", "10E", F::kDecimalSI},
      // Bare signs and dots are zero, as Kubernetes' scanner reads them.
      {".", "0", F::kDecimalSI},
      {"+", "0", F::kDecimalSI},
      {"-", "0", F::kDecimalSI},
      {".Ti", "0", F::kBinarySI},
      // Go's int32(exponent) wrap: 2^32 + 1 is exponent 1.
      {"1e4294967297", "10", F::kDecimalExponent},
  };
  for (const Case& c : cases) {
    const Quantity v = q(c.in);
    INFO(c.in);
    CHECK(v.to_string() == c.out);
    CHECK(v.format() == c.format);
    // The canonical text parses back to an equal value (except Kubernetes' suffix-less 1000E).
    if (std::string(c.in) != "1000E") CHECK(q(v.canonical_string()) == v);
  }
}

TEST_CASE("Quantity keeps the parsed text where Kubernetes caches it", "[quantity]") {
  // Kubernetes' int64 fast path stores the input as the String() result when the digits look
  // canonical, even if the spelling is not.
  const Case cached[] = {
      {"+1", "+1", F::kDecimalSI},
      {"01", "01", F::kDecimalSI},
      {"1.500", "1.500", F::kDecimalSI},
      {"1E3", "1E3", F::kDecimalExponent},
      {"1e+3", "1e+3", F::kDecimalExponent},
      {"1e0", "1e0", F::kDecimalExponent},
      {"1.", "1.", F::kDecimalSI},
      {"1.G", "1.G", F::kDecimalSI},
      {"+1Ki", "+1Ki", F::kBinarySI},
      {"01Ki", "01Ki", F::kBinarySI},
      {"+10Ti", "+10Ti", F::kBinarySI},
      {"-1E", "-1E", F::kDecimalSI},
      {"100.035k", "100.035k", F::kDecimalSI},
      {"10.035M", "10.035M", F::kDecimalSI},
      {"1E6", "1E6", F::kDecimalExponent},
  };
  for (const Case& c : cached) {
    INFO(c.in);
    CHECK(q(c.in).to_string() == c.out);
    CHECK(q(c.in).format() == c.format);
  }
  CHECK(q("+1").canonical_string() == "1");
  CHECK(q("1.500").canonical_string() == "1500m");
  CHECK(q("1E3").canonical_string() == "1e3");
  CHECK(q("1e0").canonical_string() == "1");
  CHECK(q("1.G").canonical_string() == "1G");
  CHECK(q("01Ki").canonical_string() == "1Ki");
  CHECK(q("100.035k").canonical_string() == "100035");
  CHECK(q("10.035M").canonical_string() == "10035k");
  CHECK(q("1E6").canonical_string() == "1e6");

  // Not cached: 8 is a multiple of 8, 100Ti leaves the fast path, 1000 ends in 000, 0.5 starts
  // with a zero digit, 1.5 has scale -1.
  CHECK(q("+8Ki").to_string() == "8Ki");
  CHECK(q("+100Ti").to_string() == "100Ti");
  CHECK(q("+1000").to_string() == "1k");
  CHECK(q("+0.5").to_string() == "500m");
  CHECK(q("+1.5").to_string() == "1500m");

  // Any arithmetic forgets the text.
  Quantity a = q("+1");
  a += Quantity();
  CHECK(a.to_string() == "1");
  Quantity b = q("1.500");
  b *= 1;
  CHECK(b.to_string() == "1500m");
  CHECK((-q("+1")).to_string() == "-1");
}

TEST_CASE("Quantity rejects what Kubernetes rejects, with its messages", "[quantity]") {
  struct Bad {
    const char* in;
    const char* message;
  };
  const Bad bad[] = {
      {"", kFormatWrong},
      {"1.1.M", kFormatWrong},
      {"1+1.0M", kFormatWrong},
      {"0.1am", kFormatWrong},
      {"aoeu", kFormatWrong},
      {" 1", kFormatWrong},
      {"1 ", kFormatWrong},
      {"1e3.5", kFormatWrong},
      {"1Mi ", kFormatWrong},
      {"1e-3x", kFormatWrong},
      {"1_000", kFormatWrong},
      {"0x10", kFormatWrong},
      {"1i", kSuffix},
      {"0.1mi", kSuffix},
      {".5i", kSuffix},
      {"-3.01i", kSuffix},
      {"-3.01e-", kSuffix},
      {"1e", kSuffix},
      {"1K", kSuffix},
      {"1kk", kSuffix},
      {"1KiB", kFormatWrong},
      {"1mm", kSuffix},
      {"--1", kSuffix},
      {"1e+", kSuffix},
      {"1e99999999999999999999", kSuffix},
      {"1Ee3", kSuffix},
      {"-.Pi", kNumeric},
      {".Ei", kNumeric},
      {".e-10", kNumeric},
  };
  for (const Bad& b : bad) {
    INFO(b.in);
    const auto r = Quantity::parse(b.in);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == ErrorCode::kParse);
    CHECK(r.error().message == b.message);
  }
}

TEST_CASE("Quantity refuses magnitudes of 10^kMaxDigits and more", "[quantity]") {
  CHECK(q("1e999").to_string() == "1e999");
  const auto big = Quantity::parse("1e1000");
  REQUIRE_FALSE(big.has_value());
  CHECK(big.error().code == ErrorCode::kLimit);
  CHECK(big.error().message == "quantity too large: the magnitude must be below 10^1000");
  CHECK_FALSE(Quantity::parse("-0.1e1001").has_value());
  CHECK(Quantity::parse("0.1e1000").has_value());
  CHECK_FALSE(Quantity::parse("1e2000000000").has_value());
  CHECK_FALSE(Quantity::parse("1" + std::string(1000, '0')).has_value());
  CHECK(Quantity::parse("1" + std::string(999, '0')).has_value());
}

TEST_CASE("Quantity value() and milli_value() round away from zero", "[quantity]") {
  struct V {
    const char* in;
    std::int64_t value;
    std::int64_t milli;
  };
  const V cases[] = {
      {"0", 0, 0},
      {"2500m", 3, 2500},
      {"0.7", 1, 700},
      {"1n", 1, 1},
      {"1u", 1, 1},
      {"1m", 1, 1},
      {"1001u", 1, 2},
      {"1.5", 2, 1500},
      {"2", 2, 2000},
      {"1Ki", 1024, 1024000},
      {"1.5Gi", 1610612736, 1610612736000},
      {"12e6", 12000000, 12000000000},
      {"100.035Ki", 102436, 102435840},
      {"-0.5", -1, -500},
      {"-2.5", -3, -2500},
      {"-2500m", -3, -2500},
      {"-1n", -1, -1},
      {"-1001u", -1, -2},
      // Past the int64 range: saturation (Kubernetes overflows there).
      {"9Ei", kMax, kMax},
      {"-9Ei", -kMax, kMin},
      {"9223372036854775807", kMax, kMax},
      {"9223372036854775808", kMax, kMax},
      {"-9223372036854775808", kMin, kMin},
      {"-9223372036854775809", kMin, kMin},
      {"9223372036854775806.1", kMax, kMax},
      {"1e300", kMax, kMax},
      {"-1e300", kMin, kMin},
      {"9223372036854775", 9223372036854775, 9223372036854775000},
      {"9223372036854776", 9223372036854776, kMax},
  };
  for (const V& c : cases) {
    INFO(c.in);
    const Quantity v = q(c.in);
    CHECK(v.value() == c.value);
    CHECK(v.milli_value() == c.milli);
  }
  CHECK(Quantity::kMaxMilliValue == 9223372036854775);
  CHECK(Quantity::from_int(Quantity::kMaxMilliValue).milli_value() ==
        Quantity::kMaxMilliValue * 1000);
  CHECK(Quantity::from_int(kMin).value() == kMin);
  CHECK(Quantity::from_int(kMax).value() == kMax);
  CHECK(Quantity::from_milli(kMin).value() == -9223372036854776);
  CHECK(Quantity::from_milli(kMin).milli_value() == kMin);
}

TEST_CASE("Quantity::from_int and from_milli", "[quantity]") {
  CHECK(Quantity().to_string() == "0");
  CHECK(Quantity().format() == F::kDecimalSI);
  CHECK(Quantity().is_zero());
  CHECK(Quantity::from_int(5).to_string() == "5");
  CHECK(Quantity::from_int(3000).to_string() == "3k");
  CHECK(Quantity::from_int(1024, F::kBinarySI).to_string() == "1Ki");
  CHECK(Quantity::from_int(1000, F::kBinarySI).to_string() == "1k");
  CHECK(Quantity::from_int(5, F::kBinarySI).to_string() == "5");
  CHECK(Quantity::from_int(1025, F::kBinarySI).to_string() == "1025");
  CHECK(Quantity::from_int(300 * 1024 * 1024, F::kBinarySI).to_string() == "300Mi");
  CHECK(Quantity::from_int(1000000000, F::kDecimalExponent).to_string() == "1e9");
  CHECK(Quantity::from_int(-7).to_string() == "-7");
  CHECK(Quantity::from_int(kMin).to_string() == "-9223372036854775808");
  CHECK(Quantity::from_int(0, F::kBinarySI).format() == F::kBinarySI);
  CHECK(Quantity::from_milli(1500).to_string() == "1500m");
  CHECK(Quantity::from_milli(2000).to_string() == "2");
  CHECK(Quantity::from_milli(500, F::kBinarySI).to_string() == "500m");
  CHECK(Quantity::from_milli(80, F::kDecimalExponent).to_string() == "80e-3");
  CHECK(Quantity::from_milli(1234567, F::kBinarySI).to_string() == "1234567m");
  CHECK(Quantity::from_milli(-1500).to_string() == "-1500m");
  CHECK(Quantity::from_milli(-1500).sign() == -1);
  CHECK(Quantity::from_milli(1).sign() == 1);
  CHECK(Quantity::from_milli(0).sign() == 0);
}

TEST_CASE("Quantity add and sub are exact and keep the receiver's format", "[quantity]") {
  CHECK((q("1") + q("500m")).to_string() == "1500m");
  CHECK((q("1Gi") + q("512Mi")).to_string() == "1536Mi");
  CHECK((q("1Ki") + q("1k")).to_string() == "2024");  // BinarySI, 2024 not a multiple of 1024
  CHECK((q("1Ki") + q("1k")).format() == F::kBinarySI);
  CHECK((q("1k") + q("1Ki")).to_string() == "2024");
  CHECK((q("1k") + q("1Ki")).format() == F::kDecimalSI);
  CHECK((q("1Ki") + q("1Ki")).to_string() == "2Ki");
  CHECK((q("1k") + q("24")).to_string() == "1024");
  CHECK((q("1e3") + q("1k")).to_string() == "2e3");
  CHECK((q("1Gi") + q("1m")).to_string() == "1073741824001m");
  CHECK((q("10") + q("1e1")).to_string() == "20");
  CHECK((q("10") + q("1")).to_string() == "11");
  CHECK((q("100m") - q("100m")).to_string() == "0");
  CHECK((q("1") - q("1500m")).to_string() == "-500m");
  CHECK((q("-1") - q("-1500m")).to_string() == "500m");
  CHECK((q("10Ki") - q("1k")).to_string() == "9240");
  CHECK((q("1n") + q("1E")).to_string() == "1000000000000000000000000001n");
  CHECK((q("1E") - q("1n")).to_string() == "999999999999999999999999999n");
  CHECK((q("9Ei") + q("9Ei")).to_string() == "18446744073709551614");
  CHECK((q("1e300") - q("1e300")).is_zero());

  // Adding to or subtracting from zero takes the other operand's format (Kubernetes
  // TestQuantityAddZeroPreservesSuffix / SubZeroPreservesSuffix).
  for (const char* text : {"100m", "1Gi"}) {
    INFO(text);
    const Quantity v = q(text);
    CHECK((v + q("0")).to_string() == text);
    CHECK((q("0") + v).to_string() == text);
    CHECK((v - q("0")).to_string() == text);
    CHECK((q("0") - v).to_string() == (-v).to_string());
  }
  Quantity z = q("0Ki");
  z += q("1k");
  CHECK(z.format() == F::kDecimalSI);
  Quantity y = q("1Ki");
  y -= q("1Ki");
  CHECK(y.format() == F::kBinarySI);
  y += q("2k");  // y is zero again, so it adopts DecimalSI
  CHECK(y.to_string() == "2k");

  // Self-assignment forms.
  Quantity s = q("1500m");
  s += s;
  CHECK(s.to_string() == "3");
  const Quantity& alias = s;  // clang's -Wself-assign-overloaded refuses a literal `s -= s`
  s -= alias;
  CHECK(s.is_zero());

  // Sums of many values across scales cancel exactly (Kubernetes TestAddSubRoundTripAcrossScales).
  Quantity acc;
  std::uint64_t seed = 12345;
  for (int i = 0; i < 200; ++i) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto v = static_cast<std::int64_t>(seed >> 1);
    Quantity part = i % 2 == 0 ? Quantity::from_milli(v) : Quantity::from_int(v);
    part *= (i % 3) - 1;
    acc += part;
    acc -= part;
    acc += part;
    acc -= part;
  }
  CHECK(acc.is_zero());
}

TEST_CASE("Quantity multiplication by an integer is exact", "[quantity]") {
  CHECK((q("10") * 10).to_string() == "100");
  CHECK((q("10") * -10).to_string() == "-100");
  CHECK((q("-50") * -50).to_string() == "2500");
  CHECK((q("50") * 0).is_zero());
  CHECK((q("1Gi") * 0).format() == F::kBinarySI);
  CHECK((q("500m") * 3).to_string() == "1500m");
  CHECK((q("500m") * 2).to_string() == "1");
  CHECK((q("512Mi") * 2).to_string() == "1Gi");
  CHECK((q("512Mi") * 3).to_string() == "1536Mi");
  CHECK((q("1e3") * 1000).to_string() == "1e6");
  CHECK((q("3n") * 7).to_string() == "21n");
  // Past int64, where Kubernetes switches to inf.Dec.
  CHECK((Quantity::from_int(kMax) * 2).to_string() == "18446744073709551614");
  CHECK((Quantity::from_int(kMax) * 10).to_string() == "92233720368547758070");
  CHECK((Quantity::from_int(kMin) * -1).to_string() == "9223372036854775808");
  CHECK((Quantity::from_int(kMin) * kMin).to_string() == "85070591730234615865843651857942052864");
  CHECK((Quantity::from_int(kMin) * 2).value() == kMin);
  CHECK((Quantity::from_int(kMax) * 2).value() == kMax);
  CHECK((q("1E") * 1000).to_string() == "1");  // 1e21 DecimalSI: Kubernetes has no suffix
  CHECK((q("1E") * 1000).compare(q("1e21")) == 0);
  CHECK((q("1Ei") * 1024).to_string() == "1");  // 1024^7 BinarySI: no suffix either
  CHECK((q("1Ei") * 1536).to_string() == "1536Ei");
}

TEST_CASE("Quantity compares by value regardless of format", "[quantity]") {
  CHECK(q("0").compare(q("0")) == 0);
  CHECK(q("100m").compare(q("50m")) == 1);
  CHECK(q("50m").compare(q("100m")) == -1);
  CHECK(q("10000T").compare(q("100Gi")) == 1);
  CHECK(q("1Ki") == q("1024"));
  CHECK(q("1k") != q("1Ki"));
  CHECK(q("1k") < q("1Ki"));
  CHECK(q("1Ki") > q("1k"));
  CHECK(q("1.5") == q("1500m"));
  CHECK(q("1.5") == q("1500000u"));
  CHECK(q("1e3") == q("1k"));
  CHECK(q("0Ki") == q("0m"));
  CHECK(q("-1") < q("0"));
  CHECK(q("-1") < q("-999m"));
  CHECK(q("-2") < q("-1"));
  CHECK(q("-1n") < q("1n"));
  CHECK(q("1.01") > q("1.001"));
  CHECK(q("1.1") > q("1.09"));
  CHECK(q("10") > q("9.999"));
  CHECK(q("1e300") > q("9Ei"));
  CHECK(q("-1e300") < q("-9Ei"));
  CHECK(q("1n") <= q("1n"));
  CHECK(q("1n") >= q("0.5n"));  // 0.5n rounds up to 1n
  CHECK(q("2n") == q("1.5n"));  // 1.5n rounds up to 2n
}

TEST_CASE("Quantity::matches_schema_pattern is the CRD schema's regular expression", "[quantity]") {
  // Checked against std::regex running kSchemaPattern itself (ECMAScript accepts it unchanged).
  const std::regex pattern(Quantity::kSchemaPattern);
  const char* const texts[] = {
      "0",    "1",    "+1",   "-1",    "1.",    ".5",   "1.5", "-.5",  "+1.5e3", "1e",   "1E",
      "1e3",  "1E+3", "1e-3", "1e.5",  "1e1.5", "1e1.", "1e+", "1Ki",  "1Mi",    "1Ei",  "1ki",
      "1Kii", "1KiB", "1n",   "1u",    "1m",    "1k",   "1K",  "1M",   "1G",     "1T",   "1P",
      "1E",   "1i",   "1mi",  ".",     "-",     "+",    "",    " 1",   "1 ",     "1..5", "1.5.",
      "--1",  "+-1",  "0x10", "1_000", "1e3k",  "1kE3", ".e3", "5.Gi", "1\n",    "١"};
  for (const char* text : texts) {
    INFO(text);
    CHECK(Quantity::matches_schema_pattern(text) == std::regex_match(text, pattern));
  }
  // Where the pattern and Kubernetes' parser disagree, in both directions.
  CHECK_FALSE(Quantity::matches_schema_pattern("."));
  CHECK(Quantity::parse(".").has_value());
  CHECK(Quantity::matches_schema_pattern("1e1.5"));
  CHECK_FALSE(Quantity::parse("1e1.5").has_value());
}
