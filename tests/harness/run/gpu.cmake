# The GPU configurations (issue 3): single GPU, pinned vs pageable, AMP fp16/bf16 with
# GradScaler, DataParallel. Included from tests/harness/run/CMakeLists.txt.

# 1. The parts of the GPU paths that need no GPU: GradScaler on CPU tensors (LibTorch's CPU
#    kernels of its ops, and the tensor-op fallback), the H2D copy statistics, the CUDA skip
#    reasons, the plan's and the CUDA Graph step's refusal without a device.
gpubench_test(test_gpu_paths grad_scaler_test.cpp gpu_h2d_stats_test.cpp gpu_capability_test.cpp cuda_graph_step_test.cpp)
target_link_libraries(test_gpu_paths PRIVATE gpubench_run)
gpubench_use_torch(test_gpu_paths)

# 2. The real paths on a device: label gpu; each test skips (GTEST_SKIP, with LibTorch's
#    reason) where no device is visible, and runs on the GPU machine.
add_executable(test_gpu_training gpu_training_test.cpp gpu_graph_capture_test.cpp gpu_step_timing_test.cpp
  gpu_activation_checkpoint_test.cpp gpu_fp8_test.cpp gpu_stacks_test.cpp)
target_link_libraries(test_gpu_training PRIVATE gpubench_run GTest::gtest GTest::gtest_main)
target_include_directories(test_gpu_training PRIVATE ${PROJECT_SOURCE_DIR}/tests)
gpubench_warnings(test_gpu_training)
gpubench_use_torch(test_gpu_training)
gtest_discover_tests(test_gpu_training DISCOVERY_TIMEOUT 60 PROPERTIES LABELS gpu)
