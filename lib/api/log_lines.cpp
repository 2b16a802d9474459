// SPDX-License-Identifier: Apache-2.0
// LogLineSplitter and LogLineWriter (include/trainer/log_lines.hpp).
#include "trainer/log_lines.hpp"

#include <algorithm>
#include <utility>

namespace trainer {

LogLineSplitter::LogLineSplitter(std::size_t max_piece)
    : max_piece_(std::max<std::size_t>(max_piece, 1)) {}

void LogLineSplitter::emit(LineEnd end, const PieceFn& on_piece) {
  on_piece(pending_, end);
  pending_.clear();
  continued_ = end == LineEnd::kNone;
}

void LogLineSplitter::carriage_return(const PieceFn& on_piece) {
  // A `\r` that starts a line (tqdm writes one before every redraw) has nothing to redraw.
  if (!pending_.empty() || continued_) emit(LineEnd::kCarriageReturn, on_piece);
}

void LogLineSplitter::append(std::string_view text, const PieceFn& on_piece) {
  while (!text.empty()) {
    if (pending_.size() >= max_piece_) emit(LineEnd::kNone, on_piece);
    const auto take = std::min(text.size(), max_piece_ - pending_.size());
    pending_.append(text.substr(0, take));
    text.remove_prefix(take);
  }
}

void LogLineSplitter::feed(std::string_view data, const PieceFn& on_piece) {
  if (held_return_ && !data.empty()) {
    held_return_ = false;
    if (data.front() == '\n') {
      pending_.push_back('\r');
      emit(LineEnd::kNewline, on_piece);
      data.remove_prefix(1);
    } else {
      carriage_return(on_piece);
    }
  }
  while (!data.empty()) {
    const auto at = data.find_first_of("\r\n");
    append(data.substr(0, at), on_piece);
    if (at == std::string_view::npos) return;
    if (data[at] == '\n') {
      emit(LineEnd::kNewline, on_piece);
      data.remove_prefix(at + 1);
    } else if (at + 1 == data.size()) {
      held_return_ = true;
      return;
    } else if (data[at + 1] == '\n') {
      // `\r\n` ends a line, and the `\r` stays in its text as it always did.
      pending_.push_back('\r');
      emit(LineEnd::kNewline, on_piece);
      data.remove_prefix(at + 2);
    } else {
      carriage_return(on_piece);
      data.remove_prefix(at + 1);
    }
  }
}

void LogLineSplitter::finish(const PieceFn& on_piece) {
  if (held_return_) {
    held_return_ = false;
    carriage_return(on_piece);
  } else if (!pending_.empty() || continued_) {
    emit(LineEnd::kNewline, on_piece);
  }
  pending_.clear();
  continued_ = false;
}

LogLineWriter::LogLineWriter(std::function<void(std::string_view)> out) : out_(std::move(out)) {}

void LogLineWriter::write(std::string_view source, std::string_view prefix, std::string_view text,
                          LineEnd end) {
  if (open_ && source != source_) finish();
  if (at_start_) out_(prefix);
  out_(text);
  switch (end) {
    case LineEnd::kNewline:
      out_("\n");
      open_ = false;
      at_start_ = true;
      return;
    case LineEnd::kCarriageReturn:
      out_("\r");
      at_start_ = true;
      break;
    case LineEnd::kNone: at_start_ = false; break;
  }
  if (!open_ || source_ != source) source_.assign(source.data(), source.size());
  open_ = true;
}

void LogLineWriter::finish() {
  if (!open_) return;
  out_("\n");
  open_ = false;
  at_start_ = true;
}

}  // namespace trainer
