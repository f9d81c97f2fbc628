# The one place that decides which GPU code is compiled (DESIGN.md, "Building without a GPU").
#  GPUBENCH_TORCH_CUDA  LibTorch itself has CUDA (decided from LibTorch, not the toolkit:
#                       the dev machines have nvcc and cupti.h but a CPU-only LibTorch).
#  GPUBENCH_CUDART      the CUDA runtime is linked: device queries, pinned buffers, events.
#  GPUBENCH_CUPTI       CUPTI activity collection is compiled.
#  GPUBENCH_NVTX        NVTX3 ranges are compiled (header-only, loads an injection at run time).
# Code behind GPUBENCH_CUDART/CUPTI/NVTX builds and links on every machine with the toolkit
# and fails at run time with the driver's reason; code behind GPUBENCH_TORCH_CUDA is only
# compiled where LibTorch has CUDA.
if(TARGET torch_cuda OR TORCH_CUDA_LIBRARIES)
  set(GPUBENCH_TORCH_CUDA ON)
else()
  set(GPUBENCH_TORCH_CUDA OFF)
endif()

set(GPUBENCH_CUDART OFF)
set(GPUBENCH_CUPTI OFF)
set(GPUBENCH_NVTX OFF)
if(CUDAToolkit_FOUND)
  set(GPUBENCH_CUDART ON)
  if(TARGET CUDA::cupti)
    set(GPUBENCH_CUPTI ON)
  endif()
  find_path(GPUBENCH_NVTX3_INCLUDE nvtx3/nvToolsExt.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  if(GPUBENCH_NVTX3_INCLUDE)
    set(GPUBENCH_NVTX ON)
  endif()
endif()

# The nccl.h c10d's NCCL header is compiled against (harness/parallel). It must be the
# NCCL LibTorch was built with (normally the one it loads): c10d's NCCL options embed
# NCCL's structs, sized by our compile and filled by libtorch_cuda (nccl_group.cpp refuses
# a mismatch with the loaded library at run time). A pip torch pins its nvidia-nccl wheel:
# scripts/build-with-pip-torch.sh passes that wheel's include directory (and warns when
# the installed wheel is not the pinned one); the toolkit's nccl.h is the fallback.
set(GPUBENCH_NCCL_INCLUDE_DIR "" CACHE PATH "Directory holding the nccl.h of the NCCL LibTorch was built with (default: the CUDA toolkit's)")
if(GPUBENCH_NCCL_INCLUDE_DIR)
  if(NOT EXISTS ${GPUBENCH_NCCL_INCLUDE_DIR}/nccl.h)
    message(FATAL_ERROR "GPUBENCH_NCCL_INCLUDE_DIR=${GPUBENCH_NCCL_INCLUDE_DIR} has no nccl.h")
  endif()
  set(GPUBENCH_NCCL_INCLUDE ${GPUBENCH_NCCL_INCLUDE_DIR})
elseif(CUDAToolkit_FOUND)
  # NO_CACHE: a reconfigure with another toolkit must not keep the old one's nccl.h.
  find_path(GPUBENCH_NCCL_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} NO_DEFAULT_PATH NO_CACHE)
endif()
if(NOT GPUBENCH_NCCL_INCLUDE)
  set(GPUBENCH_NCCL_INCLUDE "")
endif()

message(STATUS "gpubench: Torch ${Torch_VERSION} CUDA=${GPUBENCH_TORCH_CUDA}; "
               "toolkit cudart=${GPUBENCH_CUDART} cupti=${GPUBENCH_CUPTI} nvtx=${GPUBENCH_NVTX}; nccl.h: '${GPUBENCH_NCCL_INCLUDE}'")

# Interface target carrying the feature macros and the toolkit libraries.
add_library(gpubench_features INTERFACE)
target_compile_definitions(gpubench_features INTERFACE
  GPUBENCH_TORCH_CUDA=$<BOOL:${GPUBENCH_TORCH_CUDA}>
  GPUBENCH_CUDART=$<BOOL:${GPUBENCH_CUDART}>
  GPUBENCH_CUPTI=$<BOOL:${GPUBENCH_CUPTI}>
  GPUBENCH_NVTX=$<BOOL:${GPUBENCH_NVTX}>
  GPUBENCH_VERSION="${PROJECT_VERSION}")
if(GPUBENCH_CUDART)
  target_link_libraries(gpubench_features INTERFACE CUDA::cudart)
endif()
if(GPUBENCH_NVTX)
  target_include_directories(gpubench_features SYSTEM INTERFACE ${GPUBENCH_NVTX3_INCLUDE})
  target_link_libraries(gpubench_features INTERFACE ${CMAKE_DL_LIBS})
endif()

# One PCH for every target that includes LibTorch: parsing torch/torch.h costs ~30 s a
# translation unit on the 2-core dev machines, the PCH halves it.
add_library(gpubench_torch_pch STATIC ${CMAKE_CURRENT_LIST_DIR}/torch_pch.cpp)
target_link_libraries(gpubench_torch_pch PUBLIC ${TORCH_LIBRARIES} gpubench_features)
target_compile_options(gpubench_torch_pch PUBLIC ${TORCH_CXX_FLAGS})
target_precompile_headers(gpubench_torch_pch PRIVATE <torch/torch.h>)
gpubench_warnings(gpubench_torch_pch)
target_compile_options(gpubench_torch_pch PUBLIC -Winvalid-pch)
function(gpubench_use_torch target)
  target_link_libraries(${target} PUBLIC gpubench_torch_pch)
  target_precompile_headers(${target} REUSE_FROM gpubench_torch_pch)
endfunction()
