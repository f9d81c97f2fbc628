# Every third-party dependency is found here, once, by find_package.
# Torch: Debian's libtorch-dev by default; a pip torch works with
#   -DCMAKE_PREFIX_PATH="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')"
find_package(Torch REQUIRED)
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.9 REQUIRED)
find_package(CLI11 REQUIRED)
if(GPUBENCH_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(GPUBENCH_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
# Optional: the CUDA toolkit (cudart, CUPTI, NVTX3). Without it the GPU paths compile
# as "unavailable" stubs and every GPU config is skipped with that reason.
find_package(CUDAToolkit QUIET)

