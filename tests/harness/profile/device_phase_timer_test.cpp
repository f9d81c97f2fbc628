#include "harness/profile/device_phase_timer.h"

#include <gtest/gtest.h>

#include <map>

namespace gpubench {
namespace {

// A device timeline in the test's hands: each mark is stamped with the next scripted
// time, and the "device" has passed the marks up to `reached`.
class FakeEventClock final : public EventClock {
 public:
  struct State {
    std::vector<double> times_ms;  // the time of the i-th mark ever recorded
    std::size_t recorded = 0, reached = 0, waits = 0, live = 0;
    std::map<Mark, std::size_t> order;  // mark -> index in recording order
  };
  explicit FakeEventClock(std::shared_ptr<State> state) : s_(std::move(state)) {}
  Mark record() override {
    const Mark mark = next_mark_++;
    s_->order[mark] = s_->recorded++;
    ++s_->live;
    return mark;
  }
  bool passed(Mark mark) override { return s_->order.at(mark) < s_->reached; }
  void wait(Mark mark) override {
    ++s_->waits;
    s_->reached = std::max(s_->reached, s_->order.at(mark) + 1);
  }
  double elapsed_ms(Mark from, Mark to) override {
    EXPECT_TRUE(passed(from) && passed(to)) << "read before the device passed it";
    return s_->times_ms.at(s_->order.at(to)) - s_->times_ms.at(s_->order.at(from));
  }
  void release(Mark) override { --s_->live; }

 private:
  std::shared_ptr<State> s_;
  Mark next_mark_ = 0;
};

// One step: step begin, five phases (begin and end each), step end: 12 marks.
void run_step(DevicePhaseTimer& timer, int step, bool measured) {
  timer.step_begin(step, measured);
  for (Phase phase : kAllPhases) {
    timer.phase_begin(phase);
    timer.phase_end(phase);
  }
  timer.step_end(step, measured);
}

// 12 marks a step at times: step begins at 100*k; phase p spans [100k + 10 + 20p, 100k + 20 + 20p]
// (10 ms each, 10 ms gaps between); the step ends at 100k + 95.
std::vector<double> scripted_times(int steps) {
  std::vector<double> t;
  for (int k = 0; k < steps; ++k) {
    t.push_back(100.0 * k);
    for (int p = 0; p < 5; ++p) {
      t.push_back(100.0 * k + 10 + 20 * p);
      t.push_back(100.0 * k + 20 + 20 * p);
    }
    t.push_back(100.0 * k + 95);
  }
  return t;
}

TEST(DevicePhaseTimer, ReadsEachPhaseSpanOnceTheDevicePassedIt) {
  auto state = std::make_shared<FakeEventClock::State>();
  state->times_ms = scripted_times(3);
  DevicePhaseTimer timer(std::make_unique<FakeEventClock>(state));
  run_step(timer, 0, /*measured=*/true);
  run_step(timer, 1, true);
  EXPECT_TRUE(timer.step_ms().empty()) << "the device has passed no mark yet: nothing read, nothing waited for";
  state->reached = 24;  // the device finished steps 0 and 1
  run_step(timer, 2, true);
  ASSERT_EQ(timer.step_ms().size(), 2u) << "finished steps are read at the next step's start";
  EXPECT_EQ(state->waits, 0u);
  timer.run_end();
  EXPECT_EQ(state->waits, 1u) << "only the run's end waits, for the last step";
  ASSERT_EQ(timer.step_ms().size(), 3u);
  for (double ms : timer.step_ms()) EXPECT_DOUBLE_EQ(ms, 95);
  for (Phase phase : kAllPhases) EXPECT_DOUBLE_EQ(timer.phase_ms(phase).at(2), 10);
  EXPECT_EQ(state->live, 0u) << "every mark released for reuse";
}

TEST(DevicePhaseTimer, LeavesWarmupStepsOutAndReportsSharesOfTheDeviceStep) {
  auto state = std::make_shared<FakeEventClock::State>();
  state->times_ms = scripted_times(2);
  DevicePhaseTimer timer(std::make_unique<FakeEventClock>(state));
  run_step(timer, 0, /*measured=*/false);
  run_step(timer, 1, true);
  timer.run_end();
  EXPECT_EQ(state->recorded, 12u) << "a warm-up step records no marks";
  nlohmann::json result;
  timer.write_result(result);
  EXPECT_DOUBLE_EQ(result["device_step_ms"]["median"].get<double>(), 95);
  EXPECT_DOUBLE_EQ(result["device_phases"]["forward"]["median_ms"].get<double>(), 10);
  EXPECT_NEAR(result["device_phases"]["forward"]["share"].get<double>(), 10.0 / 95, 1e-12);
  EXPECT_DOUBLE_EQ(result["device_phases"]["other"]["median_ms"].get<double>(), 45) << "the gaps between phases";
}

}  // namespace
}  // namespace gpubench
