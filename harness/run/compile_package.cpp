#include "harness/run/compile_package.h"

#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <ATen/Version.h>
#include <torch/version.h>

#include "core/io/atomic_file.h"
#include "core/io/json_text.h"
#include "harness/run/child_process.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;

// The exporter may compile for minutes on a loaded CPU; a hung one ends the config, not the matrix.
constexpr double kExporterTimeoutS = 3600;
constexpr int kExporterFailed = 3;  // scripts/export_training_step.py: error.txt holds the reason

// FNV-1a, 64 bits: a key that is the same in every build (std::hash need not be).
std::string fnv1a_hex(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const unsigned char byte : text) hash = (hash ^ byte) * 0x100000001b3ULL;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

std::string environment_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

std::string scripts_dir() { return environment_or("GPUBENCH_SCRIPTS_DIR", GPUBENCH_DEFAULT_SCRIPTS_DIR); }

// The exporter and the twins it imports: a change to any of them is a new package.
std::string exporter_sources_hash() {
  std::string sources;
  for (const char* file : {"export_training_step.py", "compile_twins.py", "reference_models.py"})
    sources += read_file(scripts_dir() + "/" + file, "the compile exporter");
  return fnv1a_hex(sources);
}

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::string dtype_name(c10::ScalarType type) { return type == torch::kInt64 ? "int64" : "float32"; }

std::string comma_list(const std::vector<std::int64_t>& sizes) {
  std::string text;
  for (const std::int64_t size : sizes) text += (text.empty() ? "" : ",") + std::to_string(size);
  return text;
}

std::string read_text_or(const std::string& path, const std::string& fallback) {
  std::ifstream file(path);
  if (!file) return fallback;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// An entry made by this key's exporter run, whole: the package beside its manifest.
bool cached(const std::string& dir, const std::string& key) {
  std::error_code error;
  if (!fs::exists(dir + "/step.pt2", error)) return false;
  const nlohmann::json manifest = nlohmann::json::parse(read_text_or(dir + "/manifest.json", ""), nullptr, false);
  return manifest.is_object() && manifest.value("cache_key", "") == key;
}

std::vector<std::string> exporter_command(const CompileRequest& request, const std::string& key, const std::string& out) {
  const std::string python = environment_or("GPUBENCH_PYTHON", GPUBENCH_DEFAULT_PYTHON);
  if (python.empty())
    throw std::runtime_error("compile needs the project's Python (torch " TORCH_VERSION
                             ") to export the step: set GPUBENCH_PYTHON, or build with scripts/build.sh, which records it");
  return {python,
          scripts_dir() + "/export_training_step.py",
          "--model", request.twin.name,
          "--shape", request.twin.shape.dump(),
          "--data-shape", comma_list(request.data_shape),
          "--data-dtype", dtype_name(request.data_dtype),
          "--target-shape", comma_list(request.target_shape),
          "--target-dtype", dtype_name(request.target_dtype),
          "--precision", to_string(request.precision),
          "--device", to_string(request.device),
          "--cache-key", key,
          "--threads", std::to_string(request.threads),
          "--out", out};
}

// Runs the exporter into a fresh folder of the cache and moves it to `entry` whole, so a
// reader never sees half an entry; a failure leaves its log beside the entry's name.
void export_into(const CompileRequest& request, const std::string& key, const std::string& entry) {
  std::string staging = entry + ".staging-XXXXXX";
  if (::mkdtemp(staging.data()) == nullptr)
    throw std::runtime_error("compile cache: cannot make a folder beside '" + entry + "'");
  const ChildOutcome outcome = run_child_process(exporter_command(request, key, staging), kExporterTimeoutS);
  std::error_code error;
  if (outcome.exit_code != 0 || outcome.timed_out || outcome.signal != 0) {
    const std::string why = outcome.exit_code == kExporterFailed && !outcome.timed_out
                                ? read_text_or(staging + "/error.txt", "no reason written")
                                : "the exporter ended with " + outcome.describe();
    fs::rename(staging + "/log.txt", entry + ".failed.log", error);
    fs::remove_all(staging, error);
    throw std::runtime_error("compile: " + why + " (log: " + entry + ".failed.log)");
  }
  fs::rename(staging, entry, error);
  if (error) fs::remove_all(staging, error);  // another process made the entry first: theirs is the same package
}

}  // namespace

CompileRequest compile_request(const Workload& workload, const Config& config, const torch::data::Example<>& batch,
                               int threads) {
  const std::optional<PythonTwin> twin = workload.python_twin();
  if (!twin) throw std::runtime_error("compile: " + workload.name() + " has no Python twin to export");
  CompileRequest request;
  request.twin = *twin;
  request.data_shape = batch.data.sizes().vec();
  request.target_shape = batch.target.sizes().vec();
  request.data_dtype = batch.data.scalar_type();
  request.target_dtype = batch.target.scalar_type();
  request.precision = config.precision;
  request.device = config.device;
  request.threads = threads;
  return request;
}

nlohmann::json compile_key_fields(const CompileRequest& request) {
  return {{"twin", request.twin.name},
          {"shape", request.twin.shape},
          {"data", {{"shape", request.data_shape}, {"dtype", dtype_name(request.data_dtype)}}},
          {"target", {{"shape", request.target_shape}, {"dtype", dtype_name(request.target_dtype)}}},
          {"precision", to_string(request.precision)},
          {"device", to_string(request.device)},
          {"cpu_capability", at::get_cpu_capability()},
          {"cpu_model", cpu_model_name()},
          {"torch", TORCH_VERSION},
          {"exporter_sources", exporter_sources_hash()}};
}

std::string compile_cache_dir() {
  if (const char* dir = std::getenv("GPUBENCH_COMPILE_CACHE"); dir != nullptr && *dir != '\0') return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
    return std::string(xdg) + "/gpubench/compile";
  return environment_or("HOME", ".") + "/.cache/gpubench/compile";
}

CompiledPackage compiled_package(const CompileRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  CompiledPackage package;
  package.key_fields = compile_key_fields(request);
  package.key = fnv1a_hex(json_text(package.key_fields));
  const std::string cache = compile_cache_dir();
  std::error_code error;
  fs::create_directories(cache, error);
  if (error) throw std::runtime_error("compile cache '" + cache + "': " + error.message());
  package.dir = cache + "/" + request.twin.name + "-" + to_string(request.precision) + "-" + package.key;
  package.cache_hit = cached(package.dir, package.key);
  if (!package.cache_hit) export_into(request, package.key, package.dir);
  if (!cached(package.dir, package.key))
    throw std::runtime_error("compile: the exporter wrote no package with key " + package.key + " into " + package.dir);
  package.manifest = nlohmann::json::parse(read_file(package.dir + "/manifest.json", "the compiled step's manifest"));
  package.prepare_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return package;
}

nlohmann::json CompiledPackage::to_json() const {
  return {{"cache_key", key},
          {"cache_hit", cache_hit},
          {"cache_dir", dir},
          {"key_fields", key_fields},
          {"prepare_s", prepare_s},
          {"export_s", manifest.value("export_s", 0.0)},
          {"compile_s", manifest.value("compile_s", 0.0)},
          {"exporter_torch_version", manifest.value("torch_version", "")},
          {"attention", manifest.value("attention", "")},
          {"check", manifest.value("check", nlohmann::json::object())}};
}

}  // namespace gpubench
