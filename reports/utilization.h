#pragma once
#include <nlohmann/json.hpp>

namespace gpubench {

// How far each ok row runs from the machine's matrix-multiply limit (MFU, model FLOPs
// utilization: achieved model FLOP/s over the peak of the row's precision). Needs the
// row's "flops" and "throughput.tflops_per_s" (rows from before them are left alone):
//   row["utilization"] = {
//     "tflops_per_s":        achieved, median over steps,
//     "peak_precision":      fp32 | tf32 | bf16 | fp16 (what the row's matmuls run in),
//     "devices":             the peak's multiple (dp devices, ddp ranks on CUDA; 1 on CPU),
//     "measured_peak_tflops", "mfu_vs_measured":   against gpubench-bench's matmul ceiling
//                            (--ceilings), when that was measured;
//     "vendor_peak_tflops", "mfu_vs_vendor", "vendor_peak_source":  against the GPU's
//                            datasheet dense peak (reports/vendor_peaks.h), CUDA rows;
//     "notes": why a share is absent }.
// fp32 CUDA rows are held against the fp32 CUDA-core peak: LibTorch leaves TF32 matmuls
// off by default (cuDNN may still pick TF32 convolutions, so a CNN's share can run high).
void apply_utilization(nlohmann::json& results, const nlohmann::json& env, const nlohmann::json& ceilings);

}  // namespace gpubench
