#pragma once
// The compile technique's package (docs/techniques.md, "compile"): the workload's training
// step exported from its Python twin and compiled ahead of time by Inductor, made once by
// scripts/export_training_step.py with the project's Python and cached by what determines
// it. Python runs here, at prepare; the steps run the package (harness/run/compiled_step.h).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/config/config.h"
#include "workloads/workload.h"

namespace gpubench {

// What the package is made for: the twin, the step's inputs as the loader gives them (one
// batch: a static shape), the precision and the device.
struct CompileRequest {
  PythonTwin twin;
  std::vector<std::int64_t> data_shape, target_shape;
  c10::ScalarType data_dtype = torch::kFloat32, target_dtype = torch::kInt64;
  Precision precision = Precision::Fp32;
  DeviceKind device = DeviceKind::Cpu;
  int threads = 0;  // for the exporter's check against eager autograd
};

// A package ready to load: its cache entry (step.pt2, manifest.json, log.txt).
struct CompiledPackage {
  std::string dir;
  std::string key;
  nlohmann::json key_fields;  // what the key is a hash of
  bool cache_hit = false;
  double prepare_s = 0;  // this config's wait for it: the exporter's run, or reading the cache
  nlohmann::json manifest;
  std::string package_path() const { return dir + "/step.pt2"; }
  // The row's "compile" object: key, hit, times, the exporter's check, torch's version.
  nlohmann::json to_json() const;
};

// The request for `config`'s package: `workload`'s twin, shaped by one batch of its data.
// Throws std::runtime_error for a workload without a twin (the rule table refuses it first).
CompileRequest compile_request(const Workload& workload, const Config& config, const torch::data::Example<>& batch,
                               int threads);

// Everything the package depends on: the twin and its shape, the inputs, the precision,
// the device and the CPU's vector ISA and model (a CPU package is built for the host), the
// LibTorch version, and a hash of the exporter's sources (a changed exporter re-exports).
nlohmann::json compile_key_fields(const CompileRequest& request);

// Where packages are cached: $GPUBENCH_COMPILE_CACHE, else $XDG_CACHE_HOME/gpubench/compile,
// else ~/.cache/gpubench/compile.
std::string compile_cache_dir();

// The cached package for `request`, or a new one from the exporter (run with
// $GPUBENCH_PYTHON, else the Python the build recorded). Throws std::runtime_error with
// the exporter's own reason ("torch.export.export: ...") when it cannot be made: the
// config fails, the matrix goes on. A failure is not cached.
CompiledPackage compiled_package(const CompileRequest& request);

}  // namespace gpubench
