# The GPU configurations (issue 3): single GPU, pinned vs pageable, AMP fp16/bf16 with
# GradScaler, DataParallel. Included from tests/harness/run/CMakeLists.txt.

# 1. Every machine: the parts of the GPU paths that need no GPU. GradScaler on CPU tensors
#    (tensor-op fallback; the ATen kernels where LibTorch has CPU ones, >= 2.3), the H2D
#    copy statistics, the CUDA skip reasons and the plan's refusal without CUDA.
gpubench_test(test_gpu_paths grad_scaler_test.cpp gpu_h2d_stats_test.cpp gpu_capability_test.cpp)
target_link_libraries(test_gpu_paths PRIVATE gpubench_run)
gpubench_use_torch(test_gpu_paths)

if(GPUBENCH_TORCH_CUDA)
  # 2. Where LibTorch has CUDA: the real paths on a device (each test skips without one).
  gpubench_test(test_gpu_training gpu_training_test.cpp)
  target_link_libraries(test_gpu_training PRIVATE gpubench_run)
  gpubench_use_torch(test_gpu_training)
  return()
endif()

# 3. Elsewhere (CPU-only LibTorch): the GPU-only sources compile into nothing, so prove
#    they compile (cmake/GpubenchSyntaxCheck.cmake). Files built everywhere whose
#    GPUBENCH_TORCH_CUDA branch is otherwise never compiled are checked too.
gpubench_syntax_check(SOURCES
  harness/run/cuda_execution_plan.cpp
  harness/run/pinned_batch_source.cpp
  harness/device/cuda_memory_stats.cpp
  tests/harness/run/gpu_training_test.cpp
  # GPUBENCH_TORCH_CUDA branches of files built everywhere:
  harness/run/execution_plan.cpp   # calls plan_cuda_execution
  workloads/mlp.cpp)               # instantiates model.h's data_parallel_forward
