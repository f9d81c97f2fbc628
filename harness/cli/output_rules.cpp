#include "cli/output_rules.h"

#include <filesystem>
#include <string>
#include <vector>

#include "config/errors.h"
#include "io/atomic_file.h"
#include "run/child_process.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

struct NamedPath {
  std::string what;  // "--out", "--data mlp", "the gpubench executable"
  std::string path;
  bool output = false;
  bool folder = false;  // what lies inside it counts (--hta-dir, a --data folder)
};

fs::path resolved(const std::string& path) {
  std::error_code error;
  const fs::path canonical = fs::weakly_canonical(fs::absolute(path), error);
  return error ? fs::absolute(path).lexically_normal() : canonical;
}

// Whether `inner` is `outer` or lies inside it (`outer` a folder), component by component.
bool within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty() && std::next(o) == outer.end()) break;  // a trailing slash
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

void refuse_overlaps(const std::vector<NamedPath>& paths) {
  for (const NamedPath& output : paths) {
    // A device or FIFO (/dev/null, /dev/stdout) is written through, never replaced: two
    // outputs may share one, and an input cannot be one.
    if (!output.output || written_in_place(output.path)) continue;
    const fs::path out = resolved(output.path);
    for (const NamedPath& other : paths) {
      if (&other == &output) continue;
      const fs::path path = resolved(other.path);
      std::string relation;
      if (out == path) relation = "is";
      else if (other.folder && within(out, path)) relation = "lies inside";
      else if (output.folder && within(path, out)) relation = "is a folder holding";  // --hta-dir around an input
      if (relation.empty()) continue;
      const std::string fix = other.output ? "expected two separate paths" : "it would overwrite an input; expected a path outside it";
      throw UsageError(output.what + " '" + output.path + "' " + relation + " " + other.what + " ('" + other.path +
                       "'): " + fix);
    }
  }
}

}  // namespace

void check_outputs(const CliOptions& options) {
  std::vector<NamedPath> paths = {{"--out", options.out, true}};
  if (!options.trace.empty()) paths.push_back({"--trace", options.trace, true});
  if (!options.settings.hta_dir.empty()) paths.push_back({"--hta-dir", options.settings.hta_dir, true, true});
  if (!options.ceilings.empty()) paths.push_back({"--ceilings", options.ceilings});
  for (const auto& [workload, path] : options.settings.data_paths)
    paths.push_back({"--data " + workload, path, false, fs::is_directory(path)});
  paths.push_back({"the gpubench executable", self_executable()});
  refuse_overlaps(paths);  // first: then --hta-dir is never created for a refused run
  check_writable(options.out, "--out");
  if (!options.trace.empty()) check_writable(options.trace, "--trace");
  if (!options.settings.hta_dir.empty()) check_writable_folder(options.settings.hta_dir, "--hta-dir");
}

}  // namespace gpubench
