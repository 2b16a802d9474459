// SPDX-License-Identifier: Apache-2.0
#include "trainer/log_lines.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

using trainer::LineEnd;
using trainer::LogLineSplitter;
using trainer::LogLineWriter;

namespace {

using Pieces = std::vector<std::pair<std::string, LineEnd>>;

// Feeds `chunks` one after another, then ends the stream.
Pieces split(const std::vector<std::string>& chunks, std::size_t max_piece = 64) {
  LogLineSplitter lines(max_piece);
  Pieces pieces;
  const auto collect = [&](std::string_view text, LineEnd end) {
    pieces.emplace_back(std::string(text), end);
  };
  for (const auto& chunk : chunks) lines.feed(chunk, collect);
  lines.finish(collect);
  CHECK(lines.held() == 0);
  return pieces;
}

}  // namespace

TEST_CASE("log lines: whole lines, and the unfinished rest as the last line", "[log_lines]") {
  CHECK(split({"a\nb", "c\n\nd"}) == Pieces{{"a", LineEnd::kNewline},
                                            {"bc", LineEnd::kNewline},
                                            {"", LineEnd::kNewline},
                                            {"d", LineEnd::kNewline}});
  CHECK(split({}).empty());
}

TEST_CASE("log lines: a progress bar's \\r redraws are pieces as they arrive", "[log_lines]") {
  LogLineSplitter lines;
  Pieces pieces;
  const auto collect = [&](std::string_view text, LineEnd end) {
    pieces.emplace_back(std::string(text), end);
  };
  // tqdm writes `\r` before each state: the state shows once the next redraw starts.
  lines.feed("\rstep 0", collect);
  CHECK(pieces.empty());
  lines.feed("\rstep 1", collect);
  CHECK(pieces == Pieces{{"step 0", LineEnd::kCarriageReturn}});
  lines.feed("\rstep 2\r", collect);  // the `\r` at the end waits for the next byte
  CHECK(pieces.size() == 2);
  lines.feed("done\n", collect);
  CHECK(pieces == Pieces{{"step 0", LineEnd::kCarriageReturn},
                         {"step 1", LineEnd::kCarriageReturn},
                         {"step 2", LineEnd::kCarriageReturn},
                         {"done", LineEnd::kNewline}});
}

TEST_CASE("log lines: \\r\\n ends a line with the \\r kept, also across chunks", "[log_lines]") {
  CHECK(split({"dos\r\nline\r", "\nx\r"}) == Pieces{{"dos\r", LineEnd::kNewline},
                                                    {"line\r", LineEnd::kNewline},
                                                    {"x", LineEnd::kCarriageReturn}});
  CHECK(split({"\r\r\r"}).empty());
}

TEST_CASE("log lines: a line without an end is handed on in pieces of the bound", "[log_lines]") {
  LogLineSplitter lines(4);
  Pieces pieces;
  std::size_t most_held = 0;
  const auto collect = [&](std::string_view text, LineEnd end) {
    pieces.emplace_back(std::string(text), end);
  };
  for (int i = 0; i < 1000; ++i) {
    lines.feed("abc", collect);
    most_held = std::max(most_held, lines.held());
  }
  CHECK(most_held <= 4);
  REQUIRE(pieces.size() == 749);  // 3000 bytes: 749 pieces of 4, the last 4 still held
  for (const auto& [text, end] : pieces) {
    CHECK(text.size() == 4);
    CHECK(end == LineEnd::kNone);
  }
  // A line of exactly the bound is one piece with its end; a `\r` after a cut piece is a redraw.
  lines.feed("\n", collect);
  CHECK(pieces.back() == std::make_pair(std::string("cabc"), LineEnd::kNewline));
  CHECK(split({"abcdef\r", "g"}, 4) == Pieces{{"abcd", LineEnd::kNone},
                                              {"ef", LineEnd::kCarriageReturn},
                                              {"g", LineEnd::kNewline}});
  CHECK(split({"abcd\rx"}, 4) ==
        Pieces{{"abcd", LineEnd::kCarriageReturn}, {"x", LineEnd::kNewline}});
  CHECK(split({"abcde\r"}, 4) == Pieces{{"abcd", LineEnd::kNone}, {"e", LineEnd::kCarriageReturn}});
  CHECK(split({"abcd", "\r"}, 4) ==
        Pieces{{"abcd", LineEnd::kCarriageReturn}});  // held to the end: still a redraw
}

TEST_CASE("log line writer: prefixes, redraws, continued lines, and sources that interleave",
          "[log_lines]") {
  std::string out;
  LogLineWriter writer([&](std::string_view text) { out.append(text); });
  writer.write("a", "[a] ", "one", LineEnd::kNewline);
  writer.write("a", "[a] ", "step 0", LineEnd::kCarriageReturn);
  CHECK(writer.line_open());
  writer.write("a", "[a] ", "step 1", LineEnd::kCarriageReturn);
  writer.write("b", "[b] ", "other", LineEnd::kNewline);  // ends a's redraw line first
  CHECK_FALSE(writer.line_open());
  writer.write("a", "[a] ", "long", LineEnd::kNone);
  writer.write("a", "[a] ", "er", LineEnd::kNone);  // continues without a prefix
  writer.write("b", "[b] ", "x", LineEnd::kNone);
  writer.write("a", "[a] ", "!", LineEnd::kNewline);
  writer.finish();
  writer.finish();
  CHECK(out == "[a] one\n[a] step 0\r[a] step 1\r\n[b] other\n[a] longer\n[b] x\n[a] !\n");
  // Without prefixes one source's pieces are its bytes as they came (a redraw keeps its `\r`).
  std::string bare;
  LogLineWriter plain([&](std::string_view text) { bare.append(text); });
  for (const auto& piece : split({"\rstep 0\rstep 1\r", "\ndone", "x", "y\n"}, 4)) {
    plain.write("a", "", piece.first, piece.second);
  }
  plain.finish();
  CHECK(bare == "step 0\rstep 1\r\ndonexy\n");
}
