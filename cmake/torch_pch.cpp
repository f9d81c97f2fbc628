// Anchor for the shared LibTorch precompiled header (see GpubenchDependencies.cmake).
