// SPDX-License-Identifier: Apache-2.0
#include "api/time_text.hpp"

#include <cstdio>
#include <ctime>

namespace trainer::detail {

std::string format_rfc3339(std::chrono::system_clock::time_point t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string format_rfc3339_micro(std::chrono::system_clock::time_point t) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  const std::string seconds = format_rfc3339(t);  // ...SSZ
  char frac[32];
  std::snprintf(frac, sizeof frac, ".%06lld",
                static_cast<long long>(((micros % 1000000) + 1000000) % 1000000));
  return seconds.substr(0, seconds.size() - 1) + frac + "Z";
}

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)
  const auto digits = [&](std::size_t pos, std::size_t n, int& out) {
    if (pos + n > text.size()) return false;
    out = 0;
    for (std::size_t i = pos; i < pos + n; ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      out = out * 10 + (text[i] - '0');
    }
    return true;
  };
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(0, 4, year) || text.size() < 20 || text[4] != '-' || !digits(5, 2, month) ||
      text[7] != '-' || !digits(8, 2, day) || (text[10] != 'T' && text[10] != 't') ||
      !digits(11, 2, hour) || text[13] != ':' || !digits(14, 2, minute) || text[16] != ':' ||
      !digits(17, 2, second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  std::size_t pos = 19;
  long long nanos = 0;
  if (text[pos] == '.') {
    ++pos;
    int count = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (count < 9) nanos = nanos * 10 + (text[pos] - '0');
      ++count;
      ++pos;
    }
    if (count == 0) return std::nullopt;
    for (int i = count; i < 9; ++i) nanos *= 10;
  }
  int offset_seconds = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z') && pos + 1 == text.size()) {
    // UTC
  } else if (pos + 6 == text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int oh = 0, om = 0;
    if (!digits(pos + 1, 2, oh) || text[pos + 3] != ':' || !digits(pos + 4, 2, om) || oh > 23 ||
        om > 59) {
      return std::nullopt;
    }
    offset_seconds = (oh * 3600 + om * 60) * (text[pos] == '-' ? -1 : 1);
  } else {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  const std::time_t t = ::timegm(&tm);
  return std::chrono::system_clock::from_time_t(t - offset_seconds) +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(
             std::chrono::nanoseconds(nanos));
}

std::string human_duration(std::chrono::milliseconds elapsed) {
  const auto fmt = [](const char* format, long long a, long long b = 0) {
    char buf[48];
    std::snprintf(buf, sizeof buf, format, a, b);
    return std::string(buf);
  };
  // Truncated toward zero, as Go's int(d.Seconds()).
  const long long seconds = static_cast<long long>(elapsed.count() / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return fmt("%llds", seconds);
  const long long minutes = seconds / 60;
  if (minutes < 10) {
    const long long s = seconds % 60;
    return s == 0 ? fmt("%lldm", minutes) : fmt("%lldm%llds", minutes, s);
  }
  if (minutes < 60 * 3) return fmt("%lldm", minutes);
  const long long hours = minutes / 60;
  if (hours < 8) {
    const long long m = minutes % 60;
    return m == 0 ? fmt("%lldh", hours) : fmt("%lldh%lldm", hours, m);
  }
  if (hours < 48) return fmt("%lldh", hours);
  if (hours < 24 * 8) {
    const long long h = hours % 24;
    return h == 0 ? fmt("%lldd", hours / 24) : fmt("%lldd%lldh", hours / 24, h);
  }
  if (hours < 24 * 365 * 2) return fmt("%lldd", hours / 24);
  if (hours < 24 * 365 * 8) {
    const long long d = (hours / 24) % 365;
    return d == 0 ? fmt("%lldy", hours / 24 / 365) : fmt("%lldy%lldd", hours / 24 / 365, d);
  }
  return fmt("%lldy", hours / 24 / 365);
}

}  // namespace trainer::detail
