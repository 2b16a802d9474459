// SPDX-License-Identifier: Apache-2.0
//
// Log streams cut into lines with bounded memory, and lines of several sources written with
// their prefixes: what `trainerctl logs` (cluster pods), `trainerctl run` (local pods) and a local
// run's `run.log` share (docs/local.md, "Logs"). A stream is cut at `\n`, at a `\r` that is not
// part of `\r\n` (a progress bar's redraw shows as it redraws) and after kMaxLogLinePiece bytes
// of one line, never by time: the same output is cut the same way on every run.
//
//   trainer::LogLineSplitter lines;                    // one per stream
//   trainer::LogLineWriter out([](std::string_view s) { std::fwrite(s.data(), 1, s.size(), stdout);
//   }); lines.feed(chunk, [&](std::string_view text, trainer::LineEnd end) {
//     out.write("pod-a", "[pod-a] ", text, end);
//   });
//   lines.finish(...);  out.finish();                  // at the end of the stream
//
// Thread safety: none; each object belongs to one thread at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace trainer {

/// The most bytes of one line a splitter holds: a longer line is handed on in pieces of this
/// size (LineEnd::kNone), so an endless line costs this much memory per stream (docs/yaml.md,
/// "Limits").
inline constexpr std::size_t kMaxLogLinePiece = 64 * 1024;

/// How a piece of a log line ended.
enum class LineEnd {
  kNewline,         ///< the line ended: at `\n` (not part of the text; a `\r` just before it
                    ///< is), or at the end of the stream
  kCarriageReturn,  ///< at a `\r` not followed by `\n` (not part of the text): a redraw
  kNone,            ///< cut at kMaxLogLinePiece bytes: the line goes on in the next piece
};

/// Cuts one byte stream into pieces of lines, holding at most `max_piece` bytes.
class LogLineSplitter {
 public:
  /// The callback's `text` is borrowed for the call.
  using PieceFn = std::function<void(std::string_view text, LineEnd end)>;

  /// `max_piece` (at least 1) bounds the bytes held; tests pass small values.
  explicit LogLineSplitter(std::size_t max_piece = kMaxLogLinePiece);

  /// Appends `data` and calls `on_piece` for every piece it completes, in order. A `\r` at the
  /// very end of `data` is held until the next byte tells whether `\n` follows. A `\r` at the
  /// start of a line (nothing before it since the last `\n` or `\r`) gives no piece.
  void feed(std::string_view data, const PieceFn& on_piece);

  /// The end of the stream: what is held becomes its last line (kNewline, or kCarriageReturn for
  /// a held `\r`); nothing when nothing is held. The splitter is then empty and may be fed again.
  void finish(const PieceFn& on_piece);

  /// Bytes held now: at most `max_piece` (one more while a `\r\n` is handed on).
  [[nodiscard]] std::size_t held() const noexcept { return pending_.size(); }

 private:
  void emit(LineEnd end, const PieceFn& on_piece);
  void carriage_return(const PieceFn& on_piece);
  void append(std::string_view text, const PieceFn& on_piece);

  std::string pending_;
  std::size_t max_piece_;
  bool held_return_ = false;  ///< a `\r` ended the last feed: `\n` may follow
  bool continued_ = false;    ///< the last piece was kNone: a `\r` now ends a line, not nothing
};

/// Writes pieces of lines of several sources (pods) to one output as text: a line starts with its
/// source's prefix; a kNewline piece ends with `\n`, a kCarriageReturn piece with `\r` (a terminal
/// redraws the line in place), a kNone piece with nothing, so that source's next piece continues
/// the line without a prefix. A piece of another source first ends a line left open with `\n`,
/// so sources never share a line. Holds no text: its state is the open line's source.
class LogLineWriter {
 public:
  /// `out` receives the text to write; it is borrowed for the call.
  explicit LogLineWriter(std::function<void(std::string_view)> out);

  void write(std::string_view source, std::string_view prefix, std::string_view text, LineEnd end);

  /// Ends a line left open (`\n`), as at the end of the output.
  void finish();

  /// Whether the last piece left a line open (kCarriageReturn or kNone): something else written
  /// to the same terminal now would overwrite or join it.
  [[nodiscard]] bool line_open() const noexcept { return open_; }

 private:
  std::function<void(std::string_view)> out_;
  std::string source_;  ///< the source of the open line
  bool open_ = false;
  bool at_start_ = true;  ///< the cursor is at the start of a line (after `\n` or `\r`)
};

}  // namespace trainer
