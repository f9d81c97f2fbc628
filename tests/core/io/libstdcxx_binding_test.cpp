// gpubench's calls into the C++ standard library bind to the system's libstdc++, not to the
// copies libtorch.so exports (CMakeLists.txt, add_link_options): libtorch's remove_all
// jumped to address 0 on a folder holding a folder, crashing PrivateDir's destructor.
#include <dlfcn.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "core/io/private_dir.h"

namespace gpubench {
namespace {

std::string library_of(const void* address) {
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "?";
  return info.dli_fname;
}

TEST(LibstdcxxBinding, FilesystemAndStringStreamsComeFromLibstdcxxThoughLibtorchIsLoaded) {
  ASSERT_TRUE(torch::ones({1}).defined()) << "libtorch is loaded and used";
  const auto remove_all = static_cast<std::uintmax_t (*)(const std::filesystem::path&)>(&std::filesystem::remove_all);
  EXPECT_NE(library_of(reinterpret_cast<const void*>(remove_all)).find("libstdc++"), std::string::npos)
      << library_of(reinterpret_cast<const void*>(remove_all));
  const auto create = static_cast<bool (*)(const std::filesystem::path&)>(&std::filesystem::create_directories);
  EXPECT_NE(library_of(reinterpret_cast<const void*>(create)).find("libstdc++"), std::string::npos)
      << library_of(reinterpret_cast<const void*>(create));
}

TEST(LibstdcxxBinding, APrivateDirHoldingNestedFoldersIsRemovedWithoutACrash) {
  std::string root;
  {
    const PrivateDir dir;
    root = dir.path();
    std::filesystem::create_directories(root + "/a/b/c");
    std::ofstream(root + "/a/b/c/checkpoint.pt") << "left behind by a killed child";
  }
  EXPECT_FALSE(std::filesystem::exists(root));
}

}  // namespace
}  // namespace gpubench
