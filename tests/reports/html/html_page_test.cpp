// The page document: data escaped so no report string can end its element, the CSP that
// runs only the page's own scripts, and the refusal without Chart.js.
#include "reports/html/html_page.h"

#include <gtest/gtest.h>

#include "reports/html/page_assets.h"

namespace gpubench {
namespace {

using nlohmann::json;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const std::string kHostile = "</script><script>alert(1)</script>\"><img src=x onerror=alert(2)>&amp;<!--\u2028\u2029";

TEST(JsonForScriptElement, EscapesWhatCouldEndOrConfuseTheElement) {
  const json data = {{"config_id", kHostile}, {kHostile, {kHostile, 1.5}}};
  const std::string text = json_for_script_element(data);
  for (const char* raw : {"<", ">", "&", "\u2028", "\u2029"}) EXPECT_EQ(text.find(raw), std::string::npos) << raw;
  EXPECT_NE(text.find("\\u003c/script\\u003e"), std::string::npos);
  EXPECT_NE(text.find("\\u2028\\u2029"), std::string::npos);
  EXPECT_EQ(json::parse(text), data);  // the same data once parsed (JSON.parse reads it so)
}

TEST(JsonForScriptElement, ShowsBytesThatAreNotUtf8AsReplacementCharacters) {
  const std::string text = json_for_script_element(json{{"cpu_model", std::string("AMD \xff\xfe EPYC")}});
  EXPECT_EQ(json::parse(text)["cpu_model"], "AMD \xEF\xBF\xBD\xEF\xBF\xBD EPYC");
}

TEST(CspHashSource, IsTheBase64OfTheDigest) {
  // SHA-256 of the empty string.
  EXPECT_EQ(csp_hash_source("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='");
  EXPECT_THROW(csp_hash_source("abc"), std::invalid_argument);
}

TEST(RenderPage, HoldsExactlyItsOwnThreeScriptElements) {
  if (!html_pages_available()) GTEST_SKIP() << chartjs_description();
  const std::string page = render_page(json{{"kind", "report"}, {"title", kHostile}, {"rows", {kHostile}}});
  EXPECT_EQ(count(page, "</script"), 3u);  // guard, data, main: a report string never adds one
  EXPECT_EQ(count(page, "<script"), 3u);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("\u2028"), std::string::npos);
}

TEST(RenderPage, ContentSecurityPolicyAllowsOnlyThePagesOwnScriptsAndFetchesNothing) {
  if (!html_pages_available()) GTEST_SKIP() << chartjs_description();
  const PageAssets& assets = page_assets();
  const std::string page = render_page(json{{"kind", "report"}});
  const std::string csp = "default-src 'none'; script-src " +
                          csp_hash_source(std::string(assets.guard_script.sha256_hex)) + " " +
                          csp_hash_source(std::string(assets.main_script.sha256_hex)) + "; style-src " +
                          csp_hash_source(std::string(assets.style.sha256_hex));
  EXPECT_NE(page.find(csp), std::string::npos);
  EXPECT_EQ(page.find("unsafe-inline"), std::string::npos);
  // Self-contained: no URL to fetch (Chart.js's banner names its site in a comment only).
  EXPECT_EQ(page.find(" src="), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_NE(page.find("http-equiv=\"Content-Security-Policy\""), std::string::npos);
  EXPECT_EQ(render_page(json{{"kind", "report"}}, PageOptions{false}).find("http-equiv"), std::string::npos);
}

TEST(RenderPage, InlinesChartJs3FromTheBuild) {
  if (!html_pages_available()) GTEST_SKIP() << chartjs_description();
  const PageAssets& assets = page_assets();
  EXPECT_EQ(assets.chartjs_banner.substr(0, 11), "Chart.js v3");
  EXPECT_EQ(assets.main_script.text.substr(0, 3), "/*!");  // Chart.js's banner comes first
  EXPECT_GT(assets.main_script.text.size(), 150000u);
  EXPECT_NE(chartjs_description().find("Chart.js v3"), std::string::npos);
}

}  // namespace
}  // namespace gpubench
