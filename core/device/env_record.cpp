#include "core/device/env_record.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <set>
#include <thread>

#include <ATen/Version.h>
#include <torch/torch.h>

#include "core/device/torch_cuda.h"
#include <torch/version.h>

namespace gpubench {
namespace {

std::string first_line_value(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    const auto sep = line.find_first_of(":=", key.size());
    if (sep == std::string::npos) continue;
    auto value = line.substr(sep + 1);
    value.erase(0, value.find_first_not_of(" \t\""));
    value.erase(value.find_last_not_of(" \t\"") + 1);
    return value;
  }
  return "unknown";
}

std::string os_description() {
  utsname name{};
  const std::string kernel = uname(&name) == 0 ? std::string(name.sysname) + " " + name.release : "unknown kernel";
  return first_line_value("/etc/os-release", "PRETTY_NAME") + " (" + kernel + ")";
}

// CUPTI needs a driver and a device; without them say so once here (the collector on a
// CUDA config records its own status, including another profiler holding CUPTI).
nlohmann::json cupti_availability(const CudaRuntimeInfo& cuda) {
  if (!cuda.available) return {{"compiled", true}, {"status", "unavailable"}, {"reason", cuda.reason}};
  return {{"compiled", true}, {"status", "per_config"}, {"reason", "collected on CUDA configs: see results[].cupti"}};
}

}  // namespace

std::string loaded_blas() {
  // Touch BLAS so a lazily loaded library is mapped before we look.
  (void)torch::mm(torch::ones({2, 2}), torch::ones({2, 2}));
  std::ifstream maps("/proc/self/maps");
  std::string line;
  std::set<std::string> found;
  while (std::getline(maps, line)) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    const std::string file = path.substr(path.rfind('/') + 1);
    // CPU BLAS only: LibTorch's CUDA libraries map cuBLAS too.
    const bool cpu_blas = (file.find("blas") != std::string::npos && file.find("cublas") == std::string::npos) ||
                          file.find("mkl_core") != std::string::npos;
    if (!cpu_blas) continue;
    char resolved[PATH_MAX];
    found.insert(realpath(path.c_str(), resolved) ? resolved : path);
  }
  std::string text;
  for (const auto& path : found) text += (text.empty() ? "" : ", ") + path;
  if (!text.empty()) return text;
  // Not a library of its own: the pip wheel links MKL into libtorch_cpu (BLAS_INFO=mkl).
  const std::string config = at::show_config();
  const auto key = config.find("BLAS_INFO=");
  if (key == std::string::npos) return "none found in /proc/self/maps nor in LibTorch's build config";
  const auto value = key + std::string("BLAS_INFO=").size();
  return config.substr(value, config.find_first_of(", \n", value) - value) + " (linked into LibTorch)";
}

nlohmann::json to_json(const CudaRuntimeInfo& cuda) {
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& gpu : cuda.devices)
    devices.push_back({{"name", gpu.name},
                       {"memory_bytes", gpu.memory_bytes},
                       {"compute_capability", std::to_string(gpu.compute_major) + "." + std::to_string(gpu.compute_minor)}});
  return {{"compiled", true},  // every build links cudart
          {"available", cuda.available},
          {"reason", cuda.reason},
          {"device_count", cuda.device_count},
          {"runtime_version", cuda.runtime_version},
          {"driver_version", cuda.driver_version},
          {"devices", devices}};
}

nlohmann::json record_environment(const CudaRuntimeInfo& cuda) {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  nlohmann::json env = {{"hostname", host},
          {"cpu_model", first_line_value("/proc/cpuinfo", "model name")},
          {"cores", std::thread::hardware_concurrency()},
          {"threads", at::get_num_threads()},
          {"interop_threads", at::get_num_interop_threads()},
          {"torch_version", TORCH_VERSION},
          {"torch_cuda", true},
          {"torch_build", torch_build_versions()},
          {"blas", loaded_blas()},
          {"cuda", to_json(cuda)},
          {"cupti", cupti_availability(cuda)},
          {"compiler", std::string("g++ ") + __VERSION__},
          {"os", os_description()}};
  // Until a GPU run of the project's own lands, a report with CUDA rows says what they are.
  if (cuda.available) env["gpu_validation"] = kGpuValidation;
  return env;
}

}  // namespace gpubench
