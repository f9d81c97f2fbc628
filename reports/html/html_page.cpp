#include "reports/html/html_page.h"

#include <stdexcept>

#include "core/config/errors.h"
#include "core/io/json_text.h"
#include "reports/html/page_assets.h"

namespace gpubench {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  throw std::invalid_argument(std::string("not a hex digit: ") + c);
}

std::string base64(const std::string& bytes) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += alphabet[(v >> shift) & 63];
  }
  if (i < bytes.size()) {
    const bool two = i + 1 < bytes.size();
    const unsigned v =
        (static_cast<unsigned char>(bytes[i]) << 16) | (two ? static_cast<unsigned char>(bytes[i + 1]) << 8 : 0);
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += two ? alphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// default-src 'none' forbids every fetch (scripts, styles, images, fonts, frames, XHR) and
// every inline script or style but what is named: the two script elements and the style
// element, by hash. No 'unsafe-inline': an onerror= attribute that reached the markup
// would not run. (Chart.js draws on canvases and loads nothing.)
std::string content_security_policy(const PageAssets& assets) {
  return "default-src 'none'; script-src " + csp_hash_source(std::string(assets.guard_script.sha256_hex)) + " " +
         csp_hash_source(std::string(assets.main_script.sha256_hex)) + "; style-src " +
         csp_hash_source(std::string(assets.style.sha256_hex)) + "; base-uri 'none'; form-action 'none'";
}

}  // namespace

bool html_pages_available() { return page_assets().has_chartjs; }

std::string chartjs_description() {
  const PageAssets& assets = page_assets();
  if (!assets.has_chartjs)
    return "no Chart.js: this gpubench was built without it (Debian's libjs-chart.js was not found at configure "
           "time; install it, as scripts/setup.sh does, and rebuild, or set -DGPUBENCH_CHARTJS=PATH to a Chart.js 3 "
           "chart.min.js)";
  return std::string(assets.chartjs_banner) + " (" + std::string(assets.chartjs_path) + ")";
}

std::string json_for_script_element(const nlohmann::json& data) {
  // Outside strings, dumped JSON holds only {}[],:" digits and literals: every character
  // replaced here is inside a string, where the \u form means the same.
  const std::string text = json_text(data);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<')
      out += "\\u003c";
    else if (c == '>')
      out += "\\u003e";
    else if (c == '&')
      out += "\\u0026";
    else if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
             (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string csp_hash_source(const std::string& sha256_hex) {
  if (sha256_hex.size() != 64) throw std::invalid_argument("a SHA-256 digest has 64 hex digits: '" + sha256_hex + "'");
  std::string bytes;
  for (std::size_t i = 0; i < sha256_hex.size(); i += 2)
    bytes += static_cast<char>(hex_digit(sha256_hex[i]) * 16 + hex_digit(sha256_hex[i + 1]));
  return "'sha256-" + base64(bytes) + "'";
}

std::string render_page(const nlohmann::json& data, const PageOptions& options) {
  const PageAssets& assets = page_assets();
  if (!assets.has_chartjs) throw UsageError("--html cannot be written: " + chartjs_description());
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  if (options.content_security_policy)
    page += "<meta http-equiv=\"Content-Security-Policy\" content=\"" + content_security_policy(assets) + "\">\n";
  page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  page += "<meta name=\"generator\" content=\"gpubench " GPUBENCH_VERSION "\">\n";
  page += "<title>gpubench report</title>\n<script>";
  page += assets.guard_script.text;
  page += "</script>\n<style>";
  page += assets.style.text;
  page += "</style>\n</head>\n<body>\n<noscript>This page draws its tables and charts with JavaScript.</noscript>\n";
  page += "<pre id=\"page-errors\" hidden></pre>\n<main id=\"page\"></main>\n";
  page += "<script type=\"application/json\" id=\"gpubench-data\">";
  page += json_for_script_element(data);
  page += "</script>\n<script>";
  page += assets.main_script.text;
  page += "</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace gpubench
