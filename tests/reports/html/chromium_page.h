#pragma once
// Opens a page in headless Chromium and reads back what its scripts left in the DOM:
// --dump-dom prints the document after the load event, and the pages finish drawing
// before it (synchronous Chart.js, no animation), so the body's data-* counts and the html
// element's data-page-errors are final. Each run gets its own profile folder, so tests can
// run in parallel.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <map>
#include <regex>
#include <string>

namespace gpubench::test_support {

struct PageLoad {
  int exit_code = -1;
  std::string dom;
  std::map<std::string, std::string> html, body;  // attributes of the two elements
  double wall_s = 0;
};

inline std::map<std::string, std::string> tag_attributes(const std::string& dom, const std::string& tag,
                                                         std::size_t from = 0) {
  std::map<std::string, std::string> out;
  const std::size_t start = dom.find("<" + tag, from);
  if (start == std::string::npos) return out;
  const std::string element = dom.substr(start, dom.find('>', start) - start);
  static const std::regex attribute(R"re(([a-z-]+)(="([^"]*)")?)re");
  for (auto it = std::sregex_iterator(element.begin() + 1 + tag.size(), element.end(), attribute);
       it != std::sregex_iterator(); ++it)
    out[(*it)[1]] = (*it)[3];
  return out;
}

inline std::string run_stdout(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 65536> buffer{};
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  pclose(pipe);
  return out;
}

class Chromium {
 public:
  Chromium(std::string executable, std::string work_dir) : exe_(std::move(executable)), dir_(std::move(work_dir)) {}

  bool usable() const { return !exe_.empty() && access(exe_.c_str(), X_OK) == 0; }

  // `hash` selects the page's modes (#all: draw every chart now; #check: count empty and
  // blank charts). stderr (Chromium's own D-Bus chatter) goes to a log beside the page.
  PageLoad open(const std::string& page, const std::string& hash, int height = 1000) {
    PageLoad load;
    const auto start = std::chrono::steady_clock::now();
    load.dom =
        run_stdout(command(page, hash, height, "--dump-dom") + " 2>>'" + dir_ + "/chromium.log'; echo \"exit=$?\"");
    load.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::size_t tail = load.dom.rfind("exit=");
    if (tail != std::string::npos) {
      load.exit_code = std::stoi(load.dom.substr(tail + 5));
      load.dom.erase(tail);
    }
    load.html = tag_attributes(load.dom, "html");
    const std::size_t head_end = load.dom.find("</head>");
    load.body = tag_attributes(load.dom, "body", head_end == std::string::npos ? 0 : head_end);
    return load;
  }

  // A full-page-width screenshot of the page with every chart drawn; the PNG's size.
  long screenshot(const std::string& page, const std::string& png, int height) {
    run_stdout(command(page, "all", height, "--hide-scrollbars --screenshot='" + png + "'") + " >/dev/null 2>>'" +
               dir_ + "/chromium.log'");
    FILE* file = std::fopen(png.c_str(), "rb");
    if (file == nullptr) return 0;
    std::fseek(file, 0, SEEK_END);
    const long size = std::ftell(file);
    std::fclose(file);
    return size;
  }

 private:
  std::string exe_, dir_;
  int runs_ = 0;

  std::string command(const std::string& page, const std::string& hash, int height, const std::string& action) {
    const std::string profile = dir_ + "/profile-" + std::to_string(++runs_);
    return "timeout 180 '" + exe_ + "' --headless=new --disable-gpu --no-sandbox --no-first-run --disable-extensions " +
           "--user-data-dir='" + profile + "' --window-size=1400," + std::to_string(height) + " " + action +
           " 'file://" + page + (hash.empty() ? "" : "#" + hash) + "'";
  }
};

}  // namespace gpubench::test_support
