# Warnings for project code only (third-party headers are included as SYSTEM by their
# imported targets). -Werror in CI via -DGPUBENCH_WERROR=ON.
function(gpubench_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-unused-parameter)
  if(GPUBENCH_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# A project library: includes resolve from the repo root ("workloads/mlp.h",
# "reports/report.h") and from harness/ ("config/config.h").
function(gpubench_library name)
  add_library(${name} STATIC ${ARGN})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/harness)
  target_link_libraries(${name} PUBLIC gpubench_features)
  gpubench_warnings(${name})
endfunction()
