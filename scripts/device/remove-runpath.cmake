# cmake -DFILE=<elf> -P remove-runpath.cmake: drops the file's RUNPATH/RPATH (CMake's own
# ELF editor; no patchelf needed), so a packed binary loads only what LD_LIBRARY_PATH names.
file(RPATH_REMOVE FILE "${FILE}")
