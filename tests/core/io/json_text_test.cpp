#include "core/io/json_text.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

// JSON allows DEL, C1 controls, U+2028/U+2029 and the bidirectional controls raw in a
// string; `--format json` on a terminal then obeyed them. They are written escaped, and the
// document reads back to the same value.
TEST(JsonText, HiddenControlsAreWrittenAsEscapes) {
  const nlohmann::json value = {{"reason", "csi\xc2\x9b" "2J rlo\xe2\x80\xae ls\xe2\x80\xa8 ps\xe2\x80\xa9 del\x7f lri\xe2\x81\xa6"},
                                {"name", "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80"}};
  const std::string text = json_text(value);
  EXPECT_EQ(text.find("\xc2\x9b"), std::string::npos) << text;
  EXPECT_EQ(text.find("\xe2\x80\xae"), std::string::npos) << text;
  EXPECT_EQ(text.find("\x7f"), std::string::npos) << text;
  for (const char* escape : {"\\u009b", "\\u202e", "\\u2028", "\\u2029", "\\u007f", "\\u2066"})
    EXPECT_NE(text.find(escape), std::string::npos) << escape << " in " << text;
  EXPECT_NE(text.find("caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80"), std::string::npos) << "text stays text: " << text;
  EXPECT_EQ(nlohmann::json::parse(text), value);
  EXPECT_EQ(nlohmann::json::parse(json_text(value, 2)), value);
}

TEST(JsonText, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  EXPECT_EQ(json_text(nlohmann::json("bad\xff")), "\"bad\xef\xbf\xbd\"");
}

}  // namespace
}  // namespace gpubench
