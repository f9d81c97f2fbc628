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

# 3. Elsewhere (CPU-only LibTorch): the GPU-only sources are not compiled into anything,
#    so prove that they at least compile against this LibTorch's headers (Debian 1.13 ships
#    c10/cuda and ATen/cuda) and the CUDA toolkit's: one ctest per file running the
#    compiler with -fsyntax-only and every GPU feature macro on. Files compiled everywhere
#    whose GPUBENCH_TORCH_CUDA branch is otherwise never compiled are checked too.
#    Also `ninja gpu_syntax_check` runs them all.
if(NOT CUDAToolkit_FOUND)
  message(STATUS "gpubench: CUDA toolkit not found: GPU-only sources are not syntax-checked")
  return()
endif()
set(gpubench_gpu_only_sources
  harness/run/cuda_execution_plan.cpp
  harness/run/pinned_batch_source.cpp
  harness/device/cuda_memory_stats.cpp
  tests/harness/run/gpu_training_test.cpp
  # GPUBENCH_TORCH_CUDA branches of files built everywhere:
  harness/run/execution_plan.cpp   # calls plan_cuda_execution
  workloads/mlp.cpp)               # instantiates model.h's data_parallel_forward

set(gpubench_syntax_flags -std=c++17 -fsyntax-only -Wall -Wextra -Wpedantic -Wno-unused-parameter
  -DGPUBENCH_TORCH_CUDA=1 -DGPUBENCH_CUDART=1 -DGPUBENCH_CUPTI=1 -DGPUBENCH_NVTX=1
  "-DGPUBENCH_VERSION=\"${PROJECT_VERSION}\""
  # Debian's c10/cuda/CUDAMacros.h includes a CMake-generated header that only CUDA builds
  # of LibTorch ship; it defines nothing a Linux build needs.
  -DC10_CUDA_NO_CMAKE_CONFIGURE_FILE)
if(GPUBENCH_WERROR)
  list(APPEND gpubench_syntax_flags -Werror)
endif()
separate_arguments(gpubench_torch_cxx_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
list(APPEND gpubench_syntax_flags ${gpubench_torch_cxx_flags})
list(APPEND gpubench_syntax_flags -I${PROJECT_SOURCE_DIR} -I${PROJECT_SOURCE_DIR}/harness -I${PROJECT_SOURCE_DIR}/tests)
# Third-party headers as system headers (their warnings are not ours), except the
# compiler's own system directories: -isystem /usr/include would reorder the C++ library's
# #include_next chain.
set(gpubench_syntax_system_dirs ${TORCH_INCLUDE_DIRS} ${CUDAToolkit_INCLUDE_DIRS})
if(GPUBENCH_NVTX3_INCLUDE)
  list(APPEND gpubench_syntax_system_dirs ${GPUBENCH_NVTX3_INCLUDE})
endif()
foreach(target GTest::gtest nlohmann_json::nlohmann_json fmt::fmt)
  if(TARGET ${target})
    get_target_property(dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
    if(dirs)
      list(APPEND gpubench_syntax_system_dirs ${dirs})
    endif()
  endif()
endforeach()
list(REMOVE_DUPLICATES gpubench_syntax_system_dirs)
foreach(dir IN LISTS gpubench_syntax_system_dirs)
  if(NOT dir IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES AND NOT dir MATCHES "\\$<")
    list(APPEND gpubench_syntax_flags -isystem ${dir})
  endif()
endforeach()

set(gpubench_syntax_commands)
foreach(source IN LISTS gpubench_gpu_only_sources)
  get_filename_component(stem ${source} NAME_WE)
  add_test(NAME gpu_syntax.${stem}
           COMMAND ${CMAKE_CXX_COMPILER} ${gpubench_syntax_flags} ${PROJECT_SOURCE_DIR}/${source})
  set_tests_properties(gpu_syntax.${stem} PROPERTIES LABELS "syntax" TIMEOUT 600)
  list(APPEND gpubench_syntax_commands COMMAND ${CMAKE_COMMAND} -E echo "syntax check: ${source}"
       COMMAND ${CMAKE_CXX_COMPILER} ${gpubench_syntax_flags} ${PROJECT_SOURCE_DIR}/${source})
endforeach()
add_custom_target(gpu_syntax_check ${gpubench_syntax_commands} VERBATIM)
