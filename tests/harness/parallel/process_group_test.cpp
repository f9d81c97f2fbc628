// run_within: the bound around a backend call that takes none of its own (NCCL's
// communicator setup, made eagerly inside join). Played here by calls that return, throw,
// or block until the test lets them go.
#include "harness/parallel/process_group.h"

#include <gtest/gtest.h>

#include <future>

namespace gpubench {
namespace {

TEST(RunWithin, ACallThatReturnsInTimeReturns) {
  int calls = 0;
  run_within([&] { ++calls; }, std::chrono::milliseconds(5000), "counting");
  EXPECT_EQ(calls, 1);
}

TEST(RunWithin, WhatTheCallThrowsIsRethrown) {
  EXPECT_THROW(run_within([] { throw std::invalid_argument("bad rank"); }, std::chrono::milliseconds(5000), "joining"),
               std::invalid_argument);
}

TEST(RunWithin, ACallThatNeverReturnsIsAnErrorNamingItAndTheBound) {
  auto blocker = std::make_shared<std::promise<void>>();
  std::shared_future<void> unblocked = blocker->get_future().share();
  try {
    run_within([unblocked] { unblocked.wait(); }, std::chrono::milliseconds(200), "connecting rank 1's NCCL communicator");
    ADD_FAILURE() << "returned while the call was still blocked";
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("connecting rank 1's NCCL communicator did not complete within 200 ms"), std::string::npos)
        << message;
  }
  blocker->set_value();  // the call left on its thread ends with the test
}

}  // namespace
}  // namespace gpubench
