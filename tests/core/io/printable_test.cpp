#include "core/io/printable.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

TEST(Printable, ControlBytesAreEscapedAndUtf8PassesUnchanged) {
  EXPECT_EQ(printable("mlp/cpu/fp32"), "mlp/cpu/fp32");
  EXPECT_EQ(printable("a\x1b[31mred\x07"), "a\\x1b[31mred\\x07");  // ESC, BEL
  EXPECT_EQ(printable("tab\there\rback\x7f"), "tab\\x09here\\x0dback\\x7f");
  EXPECT_EQ(printable("line\nnext"), "line\nnext") << "newlines are the printers' own";
  EXPECT_EQ(printable("caf\xc3\xa9 \xe2\x9c\x93"), "caf\xc3\xa9 \xe2\x9c\x93");
  EXPECT_EQ(printable("csi\xc2\x9b" "2J"), "csi\\xc2\\x9b2J") << "C1 controls (U+009B is CSI)";
  EXPECT_EQ(printable("bad\xff\xc3"), "bad\\xff\\xc3") << "not UTF-8, and a sequence cut short";
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf") << "an overlong '/'";
}

// Well-formed UTF-8 passes whole; what is not (RFC 3629) is escaped byte by byte.
TEST(Printable, Utf8Validity) {
  EXPECT_EQ(printable(""), "");
  EXPECT_EQ(printable("r\xc3\xa9sultat.json"), "r\xc3\xa9sultat.json");
  EXPECT_EQ(printable("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");
  EXPECT_EQ(printable("bad\xff.json"), "bad\\xff.json");
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80") << "a surrogate";
  EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80") << "past U+10FFFF";
}

// What a terminal or viewer obeys unseen: U+202E (right-to-left override) makes
// "Result: 3 regressions<RLO>" read otherwise, U+2028/U+2029 start lines, U+009B is CSI.
TEST(Printable, LineSeparatorsAndBidirectionalControlsAreEscaped) {
  EXPECT_EQ(printable("a\xe2\x80\xae" "b"), "a\\xe2\\x80\\xaeb") << "U+202E";
  EXPECT_EQ(printable("a\xe2\x80\xa8" "b\xe2\x80\xa9" "c"), "a\\xe2\\x80\\xa8b\\xe2\\x80\\xa9c") << "U+2028, U+2029";
  EXPECT_EQ(printable("\xe2\x81\xa6x\xe2\x81\xa9"), "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9") << "U+2066, U+2069";
  EXPECT_EQ(printable("\xe2\x80\x8f\xd8\x9c"), "\\xe2\\x80\\x8f\\xd8\\x9c") << "U+200F, U+061C";
  EXPECT_EQ(printable("\xc2\x85"), "\\xc2\\x85") << "U+0085, a newline to some";
  EXPECT_EQ(printable("\xe2\x80\x94 \xe2\x80\xa6 \xe2\x81\xb0"), "\xe2\x80\x94 \xe2\x80\xa6 \xe2\x81\xb0")
      << "their neighbours (an em dash, an ellipsis, a superscript 0) are text";
}

// One line of output whatever the text: a reason or a path cannot start a line that reads
// as the program's own.
TEST(Printable, OneLineShowsNewlinesEscaped) {
  EXPECT_EQ(one_line("x\nResult: 0 regressions"), "x\\nResult: 0 regressions");
  EXPECT_EQ(one_line("a\rb\xe2\x80\xa8" "c"), "a\\x0db\\xe2\\x80\\xa8c");
  EXPECT_EQ(one_line("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(printable(one_line("a\n\x1b")), one_line("a\n\x1b")) << "printable of it changes nothing";
}

}  // namespace
}  // namespace gpubench
