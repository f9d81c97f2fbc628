#pragma once

namespace gpubench::bench {

// Each area registers its Google Benchmark cases here, called from main in this order so
// --benchmark_list_tests and the JSON output read area by area. Names follow
// area/what.../arg:value, the contract that distil_ceilings (ceilings_distil.cpp) parses.
void register_copy_benchmarks();        // copy/{h2d,d2h}/{pinned,pageable}/bytes:N, copy/d2d/bytes:N
void register_matmul_benchmarks();      // matmul/{cpu,cuda}/<dtype>/n:N
void register_collective_benchmarks();  // {allreduce,allgather,reducescatter}/{gloo,nccl}/bytes:N
void register_loader_benchmarks();      // loader/<workload>/workers:W
void register_train_step_benchmarks();  // train_step/{cpu,cuda}/<workload>

}  // namespace gpubench::bench
