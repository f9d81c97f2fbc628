#pragma once
// What every `gpubench report --html` page inlines, compiled into the binary at build time
// (reports/html/EmbedPageAssets.cmake generates the definition): Chart.js and the page's
// own scripts and style, each with the SHA-256 the page's Content-Security-Policy names.
// Build time, not read from /usr/share at write time, so a page is the same wherever the
// binary runs (the GPU machine gets a packed binary, not the Debian package), and the
// scripts a test drove in Chromium are the scripts a user's page carries.
#include <string_view>

namespace gpubench {

struct PageAsset {
  std::string_view text;
  std::string_view sha256_hex;  // of `text`, as CSP's 'sha256-...' needs it (in base64 there)
};

struct PageAssets {
  PageAsset guard_script;  // its own <script>, first: records any later error in the DOM
  PageAsset main_script;   // Chart.js, then the page scripts
  PageAsset style;
  bool has_chartjs;                 // false: the build found no Chart.js; pages are refused
  std::string_view chartjs_banner;  // "Chart.js v3.9.1"
  std::string_view chartjs_path;    // where the build read it
};

const PageAssets& page_assets();

}  // namespace gpubench
