#include "reports/fit_table.h"

#include <algorithm>
#include <sstream>

#include "core/io/printable.h"

namespace gpubench {
namespace {

// A cell on one line, safe for the terminal.
std::string cell_line(const std::string& text) {
  std::string line = printable(text);
  std::replace(line.begin(), line.end(), '\n', ' ');
  return line;
}

struct Shown {
  std::size_t column;
  bool shortened;
};

std::string header_of(const FitColumn& c, bool shortened) { return shortened ? c.short_header : c.header; }
std::string cell_of(const FitColumn& c, bool shortened, std::size_t row) {
  const auto& cells = shortened ? c.short_cells : c.cells;
  return row < cells.size() ? cell_line(cells[row]) : std::string();
}

std::vector<std::size_t> widths_of(const std::vector<FitColumn>& columns, const std::vector<Shown>& shown, std::size_t rows) {
  std::vector<std::size_t> widths;
  for (const Shown& s : shown) {
    std::size_t w = display_width(header_of(columns[s.column], s.shortened));
    for (std::size_t r = 0; r < rows; ++r) w = std::max(w, display_width(cell_of(columns[s.column], s.shortened, r)));
    widths.push_back(w);
  }
  return widths;
}

std::size_t total_width(const std::vector<std::size_t>& widths) {
  std::size_t total = 0;
  for (std::size_t w : widths) total += w + 2;
  return total ? total - 2 : 0;
}

// Columns a terminal gives one code point (wcwidth's answer for the common cases, without
// depending on the process locale): 0 for combining marks and zero-width characters, 2 for
// East Asian wide and fullwidth forms and emoji, 1 otherwise. Names from outside (class
// folders, file paths in a reason) can hold any of them.
std::size_t code_point_width(char32_t c) {
  const auto in = [c](char32_t low, char32_t high) { return c >= low && c <= high; };
  if (in(0x0300, 0x036F) || in(0x1AB0, 0x1AFF) || in(0x1DC0, 0x1DFF) || in(0x200B, 0x200F) || in(0x20D0, 0x20FF) ||
      in(0xFE00, 0xFE0F) || in(0xFE20, 0xFE2F) || c == 0xFEFF)
    return 0;
  if (in(0x1100, 0x115F) || in(0x2E80, 0x303E) || in(0x3041, 0x33FF) || in(0x3400, 0x4DBF) || in(0x4E00, 0x9FFF) ||
      in(0xA000, 0xA4CF) || in(0xAC00, 0xD7A3) || in(0xF900, 0xFAFF) || in(0xFE30, 0xFE4F) || in(0xFF00, 0xFF60) ||
      in(0xFFE0, 0xFFE6) || in(0x1F300, 0x1F64F) || in(0x1F900, 0x1F9FF) || in(0x20000, 0x3FFFD))
    return 2;
  return 1;
}

std::string pad_line(const std::vector<std::string>& cells, const std::vector<std::size_t>& widths) {
  std::string line;
  for (std::size_t c = 0; c < cells.size(); ++c)
    line += (c ? "  " : "") + cells[c] + std::string(widths[c] - display_width(cells[c]), ' ');
  line.erase(line.find_last_not_of(' ') + 1);
  return line + "\n";
}

}  // namespace

std::size_t display_width(const std::string& text) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80 ? 1 : lead >> 5 == 0x6 ? 2 : lead >> 4 == 0xE ? 3 : lead >> 3 == 0x1E ? 4 : 1;
    char32_t point = length == 1 ? lead : lead & (0xFF >> (length + 1));
    for (std::size_t k = 1; k < length && i + k < text.size(); ++k)
      point = (point << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    width += code_point_width(point);
    i += length;
  }
  return width;
}

std::vector<FitColumn> columns_from_rows(const std::vector<std::vector<std::string>>& rows) {
  std::vector<FitColumn> columns;
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t c = 0; c < rows[r].size(); ++c) {
      if (columns.size() <= c) columns.resize(c + 1);
      if (r == 0) columns[c].header = rows[r][c];
      else {
        columns[c].cells.resize(r - 1);
        columns[c].cells.push_back(rows[r][c]);
      }
    }
  return columns;
}

std::string wrap_text(const std::string& text, std::size_t width, const std::string& indent) {
  std::string out;
  std::istringstream paragraphs(printable(text));
  for (std::string paragraph; std::getline(paragraphs, paragraph);) {
    std::istringstream words(paragraph);
    std::string line = indent;
    bool empty = true;
    for (std::string word; words >> word;) {
      if (!empty && display_width(line) + 1 + display_width(word) > width) {
        out += line + "\n";
        line = indent;
        empty = true;
      }
      line += (empty ? "" : " ") + word;
      empty = false;
    }
    if (!empty) out += line + "\n";
  }
  return out;
}

std::string fit_table(const std::vector<FitColumn>& columns, const std::vector<FitStep>& steps, std::size_t width,
                      const std::vector<std::vector<std::string>>& notes) {
  std::size_t rows = 0;
  for (const FitColumn& c : columns) rows = std::max(rows, c.cells.size());
  std::vector<Shown> shown;
  for (std::size_t c = 0; c < columns.size(); ++c) shown.push_back({c, false});
  std::vector<std::string> hidden;
  std::vector<std::size_t> to_notes;
  for (const FitStep& step : steps) {
    if (total_width(widths_of(columns, shown, rows)) <= width) break;
    const auto at = std::find_if(shown.begin(), shown.end(), [&](const Shown& s) { return s.column == step.column; });
    if (at == shown.end()) continue;
    if (step.action == FitStep::Action::Shorten) {
      at->shortened = !columns[step.column].short_header.empty();
      continue;
    }
    if (step.action == FitStep::Action::Drop) hidden.push_back(columns[step.column].header);
    else to_notes.push_back(step.column);
    shown.erase(at);
  }
  const std::vector<std::size_t> widths = widths_of(columns, shown, rows);
  std::vector<std::string> cells;
  for (const Shown& s : shown) cells.push_back(header_of(columns[s.column], s.shortened));
  std::string text = pad_line(cells, widths);
  text += std::string(std::min(total_width(widths), width), '-') + "\n";
  for (std::size_t r = 0; r < rows; ++r) {
    cells.clear();
    for (const Shown& s : shown) cells.push_back(cell_of(columns[s.column], s.shortened, r));
    text += pad_line(cells, widths);
    for (const std::size_t c : to_notes)
      if (const std::string cell = cell_of(columns[c], false, r); !cell.empty() && cell != "-")
        text += wrap_text(columns[c].header + ": " + cell, width, "    ");
    if (r < notes.size())
      for (const std::string& note : notes[r]) text += wrap_text(note, width, "    ");
  }
  if (!hidden.empty()) {
    std::string names;
    for (const std::string& name : hidden) names += (names.empty() ? "" : ", ") + name;
    text += wrap_text("(hidden at " + std::to_string(width) + " columns: " + names +
                          "; a wider terminal, COLUMNS=N or --format markdown shows them)",
                      width);
  }
  return text;
}

}  // namespace gpubench
