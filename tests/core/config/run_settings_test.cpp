#include "core/config/run_settings.h"

#include <gtest/gtest.h>

#include "core/config/errors.h"

namespace gpubench {
namespace {

TEST(Preset, ParsesNamesAndScalesUpward) {
  EXPECT_EQ(parse_preset("quick"), Preset::Quick);
  EXPECT_EQ(to_string(parse_preset("full")), "full");
  EXPECT_THROW(parse_preset("fast"), UsageError);
  const auto quick = preset_scale(Preset::Quick), standard = preset_scale(Preset::Default), full = preset_scale(Preset::Full);
  EXPECT_LT(quick.budget_s, standard.budget_s);
  EXPECT_LT(standard.budget_s, full.budget_s);
  EXPECT_LT(quick.dataset_scale, full.dataset_scale);
  EXPECT_LE(quick.min_steps, quick.max_steps);
}

TEST(HostMalloc, ParsesBothModesAndNamesTheChoicesOtherwise) {
  EXPECT_EQ(parse_host_malloc("retain"), HostMalloc::Retain);
  EXPECT_EQ(to_string(parse_host_malloc("glibc")), "glibc");
  try {
    parse_host_malloc("jemalloc");
    FAIL() << "accepted jemalloc";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "--host-malloc 'jemalloc' is unknown: expected retain or glibc");
  }
}

}  // namespace
}  // namespace gpubench
