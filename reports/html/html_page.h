#pragma once
// The one HTML document every `gpubench report --html` page is: self-contained (Chart.js,
// scripts and style inlined; no network fetch, no other file), with the data as JSON in a
// <script type="application/json"> element that the page's script reads with JSON.parse
// and shows through textContent only. A report is an untrusted artifact: its strings
// reach the page only inside that JSON, escaped so no string can end the element, and the
// page's Content-Security-Policy runs only the page's own scripts (by hash), fetches
// nothing, and blocks inline handlers, so even markup that got through could not run.
#include <nlohmann/json.hpp>
#include <string>

namespace gpubench {

struct PageOptions {
  // Tests switch it off to show that the escaping alone keeps hostile strings inert.
  bool content_security_policy = true;
};

// Whether this build has Chart.js inlined (found at configure time).
bool html_pages_available();

// "Chart.js v3.9.1 (/usr/share/javascript/chart.js/chart.min.js)", or why there is none.
std::string chartjs_description();

// The page for `data` (as built by report_page_data, compare_page_data or
// history_page_data: an object with a "kind"). Throws UsageError when this build has no
// Chart.js, naming the package to install.
std::string render_page(const nlohmann::json& data, const PageOptions& options = {});

// `data` as JSON text that cannot end or confuse the <script> element holding it: '<',
// '>' and '&' as \u003c \u003e \u0026, U+2028 and U+2029 as \u2028 \u2029 (JSON allows
// them raw, older JavaScript parsers did not), bytes that are not UTF-8 as U+FFFD.
std::string json_for_script_element(const nlohmann::json& data);

// "'sha256-<base64>'" for a CSP source list, from a digest in hex.
std::string csp_hash_source(const std::string& sha256_hex);

}  // namespace gpubench
