// Values sealed under the run's secret (issue 61, item 1): only what a rank with the secret
// wrote under that very key opens; a rewrite, a copy from another key, another secret's or
// an unsealed value is refused saying why, never quoting it.
#include "harness/parallel/store_seal.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

const StoreSeal kSealed(std::string("the-run-secret-0123456789"));
const std::string kKey = "gpubench/matrix/config0/ddp/rank/1";

std::string refusal(const StoreSeal& seal, const std::string& key, const std::string& value) {
  try {
    seal.open(key, value);
  } catch (const SealBroken& broken) {
    return broken.what();
  }
  return "(opened)";
}

TEST(StoreSeal, WhatARankSealedOpensUnderItsKey) {
  const std::string value = R"({"host": "a", "losses": [1.5]})";
  const std::string sealed = kSealed.seal(kKey, value);
  EXPECT_NE(sealed, value);
  EXPECT_EQ(kSealed.open(kKey, sealed), value);
  EXPECT_TRUE(kSealed.authenticates());
}

TEST(StoreSeal, ARewrittenCopiedOrUnsealedValueIsRefused) {
  const std::string sealed = kSealed.seal(kKey, R"({"host": "a"})");
  std::string rewritten = sealed;
  rewritten.replace(rewritten.find("\"a\""), 3, "\"FORGED\"");  // the seal line kept, the value changed
  EXPECT_NE(refusal(kSealed, kKey, rewritten).find("its HMAC is not this run's secret's for this key"), std::string::npos);
  EXPECT_NE(refusal(kSealed, "gpubench/matrix/config1/ddp/rank/1", sealed).find("its HMAC is not"), std::string::npos)
      << "a value copied to another config's key";
  EXPECT_NE(refusal(StoreSeal(std::string("another-secret-0123456789")), kKey, sealed).find("its HMAC is not"),
            std::string::npos);
  const std::string plain = refusal(kSealed, kKey, R"({"ok": false, "reason": "FORGED"})");
  EXPECT_NE(plain.find("it carries no HMAC of this run's secret"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("FORGED"), std::string::npos) << "the value is never quoted";
}

TEST(StoreSeal, WithoutASecretValuesPassAsTheyAreAndTheRowSaysSo) {
  const StoreSeal none(std::nullopt);
  EXPECT_FALSE(none.authenticates());
  EXPECT_EQ(none.seal(kKey, "{}"), "{}");
  EXPECT_EQ(none.open(kKey, "{}"), "{}");
  EXPECT_NE(refusal(none, kKey, kSealed.seal(kKey, "{}")).find("sealed with a secret this rank does not have"),
            std::string::npos);
  EXPECT_NE(none.describe("torchrun").find("not authenticated: launched by torchrun without GPUBENCH_RUN_SECRET"),
            std::string::npos);
  EXPECT_EQ(kSealed.describe("gpubench").find("not authenticated"), std::string::npos);
}

}  // namespace
}  // namespace gpubench
