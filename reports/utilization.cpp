#include "reports/utilization.h"

#include <fmt/format.h>

#include "harness/ceilings/ceilings_file.h"
#include "reports/vendor_peaks.h"

namespace gpubench {
namespace {

std::string peak_precision(const std::string& precision) {
  if (precision == "amp-fp16") return "fp16";
  if (precision == "amp-bf16" || precision == "bf16") return "bf16";
  if (precision == "tf32") return "tf32";
  if (precision == "fp8") return "fp8";
  return "fp32";
}

int peak_devices(const nlohmann::json& row) {
  const auto& config = row["config"];
  if (config.value("device", "") != "cuda") return 1;  // the CPU ceiling is the whole CPU's
  if (config.value("parallel", "") == "ddp") return config.value("world_size", 1);
  if (config.value("parallel", "") == "dp") return row.value("parallel", nlohmann::json::object()).value("devices", 1);
  return 1;
}

std::string gpu_name(const nlohmann::json& env) {
  const auto devices = env.value("cuda", nlohmann::json::object()).value("devices", nlohmann::json::array());
  return devices.empty() ? "" : devices[0].value("name", "");
}

nlohmann::json utilization_of(const nlohmann::json& row, const nlohmann::json& env, const nlohmann::json& ceilings) {
  const std::string device = row["config"].value("device", "cpu");
  const std::string precision = peak_precision(row["config"].value("precision", "fp32"));
  const int devices = peak_devices(row);
  const double achieved = row["throughput"]["tflops_per_s"].value("median", 0.0);
  nlohmann::json u = {{"tflops_per_s", achieved}, {"peak_precision", precision}, {"devices", devices}};
  nlohmann::json notes = nlohmann::json::array();
  const std::string ceiling_key = "matmul_tflops." + device + "." + precision;
  if (const auto measured = ceilings.is_null() ? std::nullopt : find_ceiling(ceilings, ceiling_key); measured && *measured > 0) {
    u["measured_peak_tflops"] = *measured * devices;
    u["mfu_vs_measured"] = achieved / (*measured * devices);
  } else {
    notes.push_back(ceilings.is_null() ? "no --ceilings file: no measured peak" : ceiling_key + " not in the ceilings file");
  }
  if (device == "cuda") {
    const std::string name = gpu_name(env);
    if (const auto vendor = vendor_peak(name, precision)) {
      u["vendor_peak_tflops"] = vendor->tflops * devices;
      u["mfu_vs_vendor"] = achieved / (vendor->tflops * devices);
      u["vendor_peak_source"] = vendor->source;
    } else {
      notes.push_back(fmt::format("no datasheet peak known for '{}' {}", name, precision));
    }
  }
  if (precision == "fp8")
    notes.push_back("against the FP8 peak, although only the blocks' Linear matmuls run in FP8 (attention and the LM "
                    "head run in bf16, at half that peak): the ceiling this row could reach lies below it");
  if (u.value("mfu_vs_measured", 0.0) > 1)
    notes.push_back("above the measured peak: gpubench-bench's square matmuls ran a slower path than this "
                    "workload's, so that ceiling is no upper bound here");
  if (!notes.empty()) u["notes"] = notes;
  return u;
}

}  // namespace

void apply_utilization(nlohmann::json& results, const nlohmann::json& env, const nlohmann::json& ceilings) {
  for (auto& row : results) {
    if (row.value("status", "") != "ok" || !row.contains("throughput") || !row["throughput"].contains("tflops_per_s") ||
        !row.contains("config"))
      continue;
    // A model without a FLOP count (a TorchScript module nobody counted) has no MFU: a 0%
    // would read as a measurement.
    if (row.value("flops", nlohmann::json::object()).value("training_per_sample", 1.0) <= 0) {
      row["utilization"] = {{"tflops_per_s", 0.0},
                            {"peak_precision", peak_precision(row["config"].value("precision", "fp32"))},
                            {"devices", peak_devices(row)},
                            {"notes", {"no FLOP count for this model (" +
                                       row["flops"].value("convention", std::string("unknown")) + "): no MFU"}}};
      continue;
    }
    row["utilization"] = utilization_of(row, env, ceilings);
  }
}

}  // namespace gpubench
