#pragma once
// A table fitted to the terminal's width. A report table holds a dozen columns and long
// verdicts; printed as is it runs to ~300 columns and wraps into noise. Here the columns that
// matter come first, and as the width runs out the least important ones are shortened or
// dropped in a stated order (a footer names what was hidden). Notes (verdicts, warnings,
// reasons) go on their own indented lines under their row, wrapped at the width. Columns
// that must stay (a config id) are never cut: a row wider than the terminal with only those
// left overflows rather than mislead.
#include <cstddef>
#include <string>
#include <vector>

namespace gpubench {

inline constexpr std::size_t kDefaultTerminalColumns = 80;

struct FitColumn {
  std::string header;
  std::vector<std::string> cells;  // one per row
  // The shortened form, where there is one (both empty: none).
  std::string short_header;
  std::vector<std::string> short_cells;
};

// One step of giving up width: shorten a column (to its short form), drop it, or move it
// under each row as a note ("header: cell"; a long free-text column loses nothing this way).
struct FitStep {
  enum class Action { Shorten, Drop, ToNotes };
  std::size_t column;
  Action action;
};

// The table: header, a rule under it (no wider than `width`), then each row with its notes
// (`notes[row]`, may be absent or empty) under it, indented and wrapped. Steps apply in
// order only while the table is wider than `width`; columns no step drops always show.
std::string fit_table(const std::vector<FitColumn>& columns, const std::vector<FitStep>& steps, std::size_t width,
                      const std::vector<std::vector<std::string>>& notes = {});

// Columns from rows of cells, the first row the headers (no short forms).
std::vector<FitColumn> columns_from_rows(const std::vector<std::vector<std::string>>& rows);

// `text` wrapped at word boundaries to lines of at most `width` characters (a longer word
// stands alone), every line starting with `indent`. Newlines in `text` start new lines.
std::string wrap_text(const std::string& text, std::size_t width, const std::string& indent = "");

// The columns a terminal gives `text` (UTF-8): a code point each, none for a combining
// mark, two for an East Asian wide character or an emoji; not its bytes.
std::size_t display_width(const std::string& text);

}  // namespace gpubench
