#include "reports/html/report_page_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "core/config/errors.h"
#include "reports/compare/report_loader.h"
#include "reports/json_fields.h"
#include "reports/report_format.h"
#include "reports/report_rows.h"
#include "reports/step_phases.h"

namespace gpubench {
namespace {

using json_fields::array_or_empty;
using json_fields::number;
using json_fields::object_or_empty;
using json_fields::rounded;
using json_fields::text;
using nlohmann::json;

// A loss curve of thousands of steps is drawn from at most this many points (every k-th).
constexpr std::size_t kMaxLossPoints = 400;

std::string cuda_version(double encoded) {  // 13000 -> "13.0", as cudaRuntimeGetVersion encodes it
  const long v = static_cast<long>(encoded);
  return v <= 0 ? "none" : fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

std::string gpu_text(const json& cuda) {
  std::string text_out;
  for (const json& device : array_or_empty(cuda, "devices")) {
    if (!text_out.empty()) text_out += ", ";
    text_out += text(device, "name", "?");
    if (const auto bytes = number(device, "memory_bytes")) text_out += " (" + format_bytes(*bytes) + ")";
  }
  if (!text_out.empty()) return text_out;
  const std::string reason = text(cuda, "reason");
  return reason.empty() ? "none" : "none: " + reason;
}

void add_row(json& rows, const std::string& label, const std::string& value) {
  if (!value.empty()) rows.push_back(json::array({label, value}));
}

json phases_of(const json& row) {
  static const std::vector<std::string> order = {"data", "h2d", "forward", "backward", "optimizer", "other"};
  const json phases = step_phases(row);
  if (!phases.is_object()) return json::object();
  std::vector<std::string> keys = order;
  for (const auto& [key, value] : phases.items())
    if (std::find(order.begin(), order.end(), key) == order.end()) keys.push_back(key);
  json out = json::array();
  for (const std::string& key : keys)
    if (const auto ms = number(object_or_empty(phases, key.c_str()), "median_ms"))
      out.push_back(json::array({key, rounded(ms)}));
  return out;
}

json loss_of(const json& row) {
  const json& curve = array_or_empty(object_or_empty(row, "loss"), "curve");
  const std::size_t every = std::max<std::size_t>(1, (curve.size() + kMaxLossPoints - 1) / kMaxLossPoints);
  json values = json::array();
  for (std::size_t i = 0; i < curve.size(); i += every)
    values.push_back(curve[i].is_number() ? rounded(curve[i].get<double>()) : json());
  return {{"every", every}, {"values", values}};
}

// The console table's cells (report_rows.h), or "?" with the reason when the row has a
// field of a type no report has (row_cells reads them strictly): one odd row does not
// take the page down.
RowCells safe_cells(const json& row, const json& comparisons, std::string& problem) {
  try {
    return row_cells(row, comparisons);
  } catch (const json::exception& error) {
    problem = std::string("this row has a field of an unexpected type: ") + error.what();
  }
  RowCells cells;
  cells.config_id = text(row, "config_id", "?");
  cells.workload = text(object_or_empty(row, "config"), "workload");
  cells.status = text(row, "status", "?");
  cells.samples_per_s = cells.step_ms = cells.utilization = cells.phases = cells.loss = cells.peak_memory =
      cells.speedup = "?";
  return cells;
}

json row_data(const json& row, const json& comparisons) {
  std::string problem;
  const RowCells cells = safe_cells(row, comparisons, problem);
  const json& throughput = object_or_empty(row, "throughput");
  const json& utilization = object_or_empty(row, "utilization");
  const json& memory = object_or_empty(row, "memory");
  const json& verdict = object_or_empty(row, "verdict");
  json warnings = json::array();
  for (const json& w : array_or_empty(row, "warnings"))
    if (w.is_string()) warnings.push_back(w);
  if (!problem.empty()) warnings.push_back(problem);
  return {{"id", result_key(row)},
          {"workload", cells.workload},
          {"device", text(object_or_empty(row, "config"), "device")},
          {"status", cells.status},
          {"reason", text(row, "reason")},
          {"cells",
           {{"samples_per_s", cells.samples_per_s},
            {"step_ms", cells.step_ms},
            {"utilization", cells.utilization},
            {"phases", cells.phases},
            {"loss", cells.loss},
            {"peak_memory", cells.peak_memory},
            {"speedup", cells.speedup}}},
          {"samples_per_s", json_fields::summary_points(object_or_empty(throughput, "samples_per_s"))},
          {"tokens_per_s", json_fields::summary_points(object_or_empty(throughput, "tokens_per_s"))},
          {"tflops_per_s", rounded(number(utilization, "tflops_per_s"))},
          {"mfu_vs_vendor", rounded(number(utilization, "mfu_vs_vendor"))},
          {"mfu_vs_measured", rounded(number(utilization, "mfu_vs_measured"))},
          {"phases", phases_of(row)},
          {"phase_source", row.contains("device_phases") ? "device" : "host"},
          {"memory",
           {{"host_peak_rss_bytes", rounded(number(memory, "host_peak_rss_bytes"))},
            {"cuda_peak_allocated_bytes", rounded(number(memory, "cuda_peak_allocated_bytes"))},
            {"cuda_peak_reserved_bytes", rounded(number(memory, "cuda_peak_reserved_bytes"))}}},
          {"verdict", {{"kind", text(verdict, "kind")}, {"text", text(verdict, "text")}}},
          {"warnings", warnings},
          {"loss", loss_of(row)}};
}

// A comparison as the charts need it; the report's strings pass as they are (escaped by
// the page), numbers rounded.
json comparison_data(const json& c) {
  json interval = nullptr;
  const json& ci = array_or_empty(c, "speedup_ci95");
  if (ci.size() == 2 && ci[0].is_number() && ci[1].is_number())
    interval = json::array({rounded(ci[0].get<double>()), rounded(ci[1].get<double>())});
  return {{"kind", text(c, "kind")},
          {"workload", text(c, "workload")},
          {"baseline", text(c, "baseline")},
          {"candidate", text(c, "candidate")},
          {"speedup", rounded(number(c, "speedup"))},
          {"speedup_ci95", interval},
          {"memory_ratio", rounded(number(c, "memory_ratio"))},
          {"memory_metric", text(c, "memory_metric")},
          {"loss_ratio", rounded(number(c, "loss_ratio"))},
          {"technique", text(c, "technique")},
          {"position", text(c, "position")},
          {"recipe", text(c, "recipe")},
          {"device", text(c, "device")},
          {"ranks", rounded(number(c, "ranks"))},
          {"efficiency", rounded(number(c, "efficiency"))}};
}

// Ablations grouped per recipe, in report order: the whole recipe against its plain row,
// and per part the two positions (as format_ablation_blocks prints them).
json ablation_groups(const json& comparisons) {
  json groups = json::array();
  const auto group_of = [&](const std::string& recipe) -> json& {
    for (json& g : groups)
      if (g["recipe"] == recipe) return g;
    groups.push_back({{"recipe", recipe}, {"whole", nullptr}, {"parts", json::array()}, {"scaling", json::array()}});
    return groups.back();
  };
  for (const json& c : comparisons) {
    const std::string kind = c["kind"];
    if (kind != "ablation" && kind != "scaling_efficiency") continue;
    json& group = group_of(c["recipe"]);
    if (kind == "scaling_efficiency") {
      group["scaling"].push_back(c);
    } else if (c["position"] == "recipe") {
      group["whole"] = c;
    } else {
      json* part = nullptr;
      for (json& p : group["parts"])
        if (p["part"] == c["technique"]) part = &p;
      if (part == nullptr) {
        group["parts"].push_back({{"part", c["technique"]}, {"alone", nullptr}, {"in_stack", nullptr}});
        part = &group["parts"].back();
      }
      (*part)[c["position"] == "alone" ? "alone" : "in_stack"] = c;
    }
  }
  return groups;
}

}  // namespace

json environment_rows(const json& report) {
  const json& env = object_or_empty(report, "env");
  const json& cuda = object_or_empty(env, "cuda");
  const json& build = object_or_empty(env, "torch_build");
  json rows = json::array();
  add_row(rows, "GPU", gpu_text(cuda));
  std::string cpu = text(env, "cpu_model", "?");
  if (const auto cores = number(env, "cores")) cpu += fmt::format(", {:.0f} cores", *cores);
  if (const auto threads = number(env, "threads")) cpu += fmt::format(", {:.0f} threads", *threads);
  add_row(rows, "CPU", cpu);
  const json* torch_cuda = json_fields::member(env, "torch_cuda");
  add_row(
      rows, "torch",
      text(env, "torch_version", "?") +
          (torch_cuda && torch_cuda->is_boolean() ? (torch_cuda->get<bool>() ? " (CUDA build)" : " (CPU build)") : ""));
  add_row(rows, "CUDA (LibTorch built with)", text(build, "cuda"));
  add_row(rows, "cuDNN (LibTorch built with)", text(build, "cudnn"));
  add_row(rows, "NCCL (LibTorch built with)", text(build, "nccl"));
  if (const auto runtime = number(cuda, "runtime_version")) add_row(rows, "CUDA runtime", cuda_version(*runtime));
  if (const auto driver = number(cuda, "driver_version")) add_row(rows, "CUDA driver", cuda_version(*driver));
  add_row(rows, "BLAS", text(env, "blas"));
  add_row(rows, "compiler", text(env, "compiler"));
  add_row(rows, "OS", text(env, "os"));
  add_row(rows, "host", text(env, "hostname"));
  const json& tool = object_or_empty(report, "tool");
  add_row(rows, "gpubench", text(tool, "version", "?") + ", commit " + text(tool, "git_commit", "?"));
  add_row(rows, "created (UTC)", text(report, "created_utc"));
  add_row(rows, "preset", text(object_or_empty(report, "matrix"), "preset"));
  add_row(rows, "command", text(report, "command"));
  return rows;
}

json report_page_data(const json& report, const std::string& name) try {
  json comparisons = json::array(), techniques = json::array();
  for (const json& c : array_or_empty(report, "comparisons")) {
    if (!c.is_object()) continue;
    comparisons.push_back(comparison_data(c));
    const std::string kind = comparisons.back()["kind"];
    if (kind != "ablation" && kind != "scaling_efficiency") techniques.push_back(comparisons.back());
  }
  json rows = json::array();
  std::size_t ok = 0, skipped = 0, failed = 0;
  for (const json& row : array_or_empty(report, "results")) {
    rows.push_back(row_data(row, array_or_empty(report, "comparisons")));
    const std::string status = rows.back()["status"];
    ok += status == "ok";
    skipped += status == "skipped";
    failed += status == "failed";
  }
  return {{"kind", "report"},
          {"title", "gpubench report: " + std::filesystem::path(name).filename().string()},
          {"source", name},
          {"created_utc", text(report, "created_utc")},
          {"env", environment_rows(report)},
          {"counts", {{"ok", ok}, {"skipped", skipped}, {"failed", failed}}},
          {"rows", rows},
          {"techniques", techniques},
          {"ablations", ablation_groups(comparisons)}};
} catch (const json::exception& error) {
  throw UsageError("report '" + name + "' has a field of an unexpected type: " + error.what());
}

}  // namespace gpubench
