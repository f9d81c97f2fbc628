# Every third-party dependency is found here, once, by find_package.
# Torch: the LibTorch inside the pinned pip torch (scripts/setup.sh installs it into .venv;
# scripts/build.sh passes its prefix), built with CUDA 13.0, so the CUDA toolkit is needed too.
find_package(Torch 2.11 REQUIRED)
# The versions CI builds: 2.11 (scripts/setup.sh pins it: the GPU machine's, the whole
# suite) and the newest on PyPI (scripts/test-newest-torch.sh: gpubench and a CPU matrix);
# another may build, but nothing has checked it.
if(NOT Torch_VERSION MATCHES "^2\\.(11|15)\\.")
  message(WARNING "LibTorch ${Torch_VERSION}: gpubench is built and tested against 2.11 and 2.15 only (README, \"Building\")")
endif()
# TorchConfig finds its libraries with find_library, which searches the system directories
# before its own: with Debian's libtorch-dev installed it would link that LibTorch under the
# wheel's headers. Refuse a mix.
get_filename_component(GPUBENCH_TORCH_ROOT "${TORCH_INSTALL_PREFIX}" REALPATH)
get_filename_component(GPUBENCH_TORCH_LIBRARY "${TORCH_LIBRARY}" REALPATH)
string(FIND "${GPUBENCH_TORCH_LIBRARY}" "${GPUBENCH_TORCH_ROOT}/" torch_library_at)
if(NOT torch_library_at EQUAL 0)
  message(FATAL_ERROR "LibTorch headers from ${GPUBENCH_TORCH_ROOT} but library ${TORCH_LIBRARY}: "
    "put the torch root first in CMAKE_PREFIX_PATH (scripts/build.sh does)")
endif()
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
# LibTorch's include directory carries its own fmt (12, header files only; libtorch exports
# none of its symbols), and as a -isystem directory it comes before the system's: a file
# that sees LibTorch and includes <fmt/format.h> would compile against fmt 12 and link
# Debian's libfmt 9. gpubench_fmt puts the found fmt's headers first (-I a directory with
# only a link to them), so every file of ours uses the fmt it links.
get_target_property(GPUBENCH_FMT_INCLUDE fmt::fmt INTERFACE_INCLUDE_DIRECTORIES)
find_path(GPUBENCH_FMT_HEADERS fmt/format.h PATHS ${GPUBENCH_FMT_INCLUDE} NO_DEFAULT_PATH NO_CACHE)
if(NOT GPUBENCH_FMT_HEADERS)
  message(FATAL_ERROR "fmt::fmt's include directories (${GPUBENCH_FMT_INCLUDE}) have no fmt/format.h")
endif()
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/fmt-first)
file(CREATE_LINK ${GPUBENCH_FMT_HEADERS}/fmt ${CMAKE_BINARY_DIR}/fmt-first/fmt SYMBOLIC)
add_library(gpubench_fmt INTERFACE)
target_include_directories(gpubench_fmt BEFORE INTERFACE ${CMAKE_BINARY_DIR}/fmt-first)
target_link_libraries(gpubench_fmt INTERFACE fmt::fmt)
find_package(nlohmann_json 3.9 REQUIRED)
find_package(CLI11 REQUIRED)
# Image decoding for resnet50's ImageFolder data (workloads/data/image_decode.cpp):
# libjpeg-turbo's TurboJPEG API and libpng, Debian's builds. TurboJPEG by find_path and
# find_library, not its CMake config: that names absolute /usr paths, and the GPU machine
# finds these libraries in a copied .deps/ prefix (scripts/device-validate.sh prepare).
find_path(GPUBENCH_TURBOJPEG_INCLUDE_DIR turbojpeg.h REQUIRED)
find_library(GPUBENCH_TURBOJPEG_LIBRARY NAMES turbojpeg REQUIRED)
add_library(gpubench_turbojpeg UNKNOWN IMPORTED)
set_target_properties(gpubench_turbojpeg PROPERTIES IMPORTED_LOCATION "${GPUBENCH_TURBOJPEG_LIBRARY}"
  INTERFACE_INCLUDE_DIRECTORIES "${GPUBENCH_TURBOJPEG_INCLUDE_DIR}")
find_package(PNG REQUIRED)
if(GPUBENCH_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(GPUBENCH_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
# cudart, CUPTI, NVTX3 (GpubenchFeatures.cmake): the toolkit LibTorch's config already required.
find_package(CUDAToolkit REQUIRED)
