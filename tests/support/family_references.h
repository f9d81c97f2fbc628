#pragma once
// The Hugging Face folders the family_references ctest fixture saves (tests/workloads/
// hf_family_reference.py), found through GPUBENCH_FAMILY_REFERENCE_DIR.
#include <cstdlib>
#include <filesystem>
#include <string>

namespace gpubench::test_support {

// Case `name`'s folder, or "" when the fixture did not make it (the test then skips).
inline std::string family_case_folder(const std::string& name) {
  const char* root = std::getenv("GPUBENCH_FAMILY_REFERENCE_DIR");
  const std::string folder = root == nullptr ? "" : std::string(root) + "/" + name;
  return !folder.empty() && std::filesystem::exists(folder + "/config.json") ? folder : "";
}

}  // namespace gpubench::test_support
