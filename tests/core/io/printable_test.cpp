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

}  // namespace
}  // namespace gpubench
