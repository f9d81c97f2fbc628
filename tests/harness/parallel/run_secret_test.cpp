// The run's secret: fresh per run from the kernel, or the user's GPUBENCH_RUN_SECRET, which
// must be long enough and is never quoted back (issue 61, item 1).
#include "harness/parallel/run_secret.h"

#include <gtest/gtest.h>

#include "core/config/errors.h"

namespace gpubench {
namespace {

EnvLookup with_secret(std::optional<std::string> value) {
  return [value](const std::string& name) { return name == launch_vars::kRunSecret ? value : std::nullopt; };
}

TEST(RunSecret, EachRunGetsAFreshOneOf32RandomBytes) {
  const std::string a = new_run_secret(), b = new_run_secret();
  EXPECT_EQ(a.size(), 64u);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos) << a;
  EXPECT_NE(a, b);
}

TEST(RunSecret, TheUsersSecretIsReadAndAShortOneRefusedWithoutQuotingIt) {
  EXPECT_EQ(run_secret_from(with_secret(std::nullopt)), std::nullopt);
  EXPECT_EQ(run_secret_from(with_secret("0123456789abcdef")), "0123456789abcdef");
  for (const std::string value : {"", "hunter2-short"}) {
    try {
      run_secret_from(with_secret(value));
      ADD_FAILURE() << "accepted a secret of " << value.size() << " characters";
    } catch (const UsageError& error) {
      const std::string text = error.what();
      EXPECT_NE(text.find("GPUBENCH_RUN_SECRET is " + std::to_string(value.size()) + " characters long: expected at least 16"),
                std::string::npos)
          << text;
      if (!value.empty()) {
        EXPECT_EQ(text.find(value), std::string::npos) << "the secret is never printed: " << text;
      }
    }
  }
}

}  // namespace
}  // namespace gpubench
