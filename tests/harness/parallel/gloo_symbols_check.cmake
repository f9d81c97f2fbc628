# Run as a ctest (cmake -DLIBRARY=<libgpubench_parallel.a> -DNM=<nm> -DSOURCE_DIR=<repo>
# -P this file): the conditions under which compiling c10d's ProcessGroupGloo.hpp against
# Debian's Gloo headers is sound (harness/parallel/gloo_group.cpp):
#  - only gloo_group.cpp includes ProcessGroupGloo.hpp or a Gloo header (inline reads of
#    a Gloo class's fields leave no symbol, so this is how they are kept out);
#  - the built objects reference no gloo:: symbol (every Gloo call goes through
#    libtorch_cpu, built with LibTorch's own Gloo) and emit no vtable or type info of a Gloo
#    class or of ProcessGroupGloo's Gloo-derived classes.
set(globs)
foreach(folder core workloads harness reports bench cli tests)
  list(APPEND globs ${SOURCE_DIR}/${folder}/*.cpp ${SOURCE_DIR}/${folder}/*.h)
endforeach()
file(GLOB_RECURSE sources ${globs})
foreach(source IN LISTS sources)
  file(STRINGS ${source} includes REGEX "#include <(gloo/|torch/csrc/distributed/c10d/(ProcessGroupGloo|GlooDeviceFactory))")
  if(includes AND NOT source STREQUAL "${SOURCE_DIR}/harness/parallel/gloo_group.cpp")
    message(FATAL_ERROR "${source} includes Gloo's headers (${includes}): only harness/parallel/gloo_group.cpp may")
  endif()
endforeach()
execute_process(COMMAND ${NM} -C ${LIBRARY} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -C ${LIBRARY} failed (${rc})")
endif()
# A symbol of namespace gloo (a function called or defined, a vtable, type info); templates
# of the standard library over gloo types (vector<shared_ptr<gloo::transport::Device>>)
# do not depend on a Gloo layout and pass.
string(REGEX MATCHALL "[^\n]* [A-Za-z] ((vtable|VTT|typeinfo|typeinfo name) for )?gloo::[^\n]*" gloo_lines "${symbols}")
string(REGEX MATCHALL "[^\n]* [A-Za-z] (vtable|VTT|typeinfo|typeinfo name) for c10d::ProcessGroupGloo[^\n]*" emitted "${symbols}")
if(gloo_lines OR emitted)
  string(REPLACE ";" "\n" listing "${gloo_lines};${emitted}")
  message(FATAL_ERROR "gpubench_parallel depends on Gloo's own layout (Debian's headers differ from LibTorch's Gloo):\n${listing}")
endif()
message(STATUS "no gloo:: symbol referenced or defined in ${LIBRARY}")
