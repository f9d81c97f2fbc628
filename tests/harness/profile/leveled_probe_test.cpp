#include "harness/profile/leveled_probe.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpubench {
namespace {

// Logs every call it gets, prefixed with its tag, into a shared list.
class TaggedLog final : public Probe {
 public:
  TaggedLog(std::string tag, std::vector<std::string>& log) : tag_(std::move(tag)), log_(log) {}
  std::string name() const override { return tag_; }
  void run_begin(const std::string&) override { log_.push_back(tag_ + ":run"); }
  void run_end() override { log_.push_back(tag_ + ":/run"); }
  void step_begin(int step, bool) override { log_.push_back(tag_ + ":step" + std::to_string(step)); }
  void step_end(int, bool) override { log_.push_back(tag_ + ":/step"); }
  void phase_begin(Phase) override { log_.push_back(tag_ + ":phase"); }
  void phase_end(Phase) override { log_.push_back(tag_ + ":/phase"); }
  void write_result(nlohmann::json& result) const override { result[tag_] = true; }

 private:
  std::string tag_;
  std::vector<std::string>& log_;
};

struct Leveled : ::testing::Test {
  std::vector<std::string> log;
  LeveledProbe probe{OverheadSchedule{1, 1, 3}};  // warm-up step 0, then levels 0,1,2,0,1,2... one step each

  void SetUp() override {
    probe.add(std::make_shared<TaggedLog>("T", log), InstrumentationLevel::Timers);
    probe.add(std::make_shared<TaggedLog>("C", log), InstrumentationLevel::Cupti,
              [this](bool active) { log.push_back(active ? "C:resume" : "C:pause"); });
  }
  void step(int n) {
    probe.step_begin(n, n > 0);
    probe.phase_begin(Phase::Forward);
    probe.phase_end(Phase::Forward);
    probe.step_end(n, n > 0);
  }
};

TEST_F(Leveled, EachStepReachesOnlyTheProbesOfItsLevelInNestingOrder) {
  probe.run_begin("id");
  step(0);  // warm-up: everything
  step(1);  // bare
  step(2);  // timers
  step(3);  // cupti
  probe.run_end();
  const std::vector<std::string> expected = {
      "T:run", "C:run",
      "T:step0", "C:step0", "T:phase", "C:phase", "C:/phase", "T:/phase", "C:/step", "T:/step",
      "C:pause",
      "T:step2", "T:phase", "T:/phase", "T:/step",
      "C:resume",
      "T:step3", "C:step3", "T:phase", "C:phase", "C:/phase", "T:/phase", "C:/step", "T:/step",
      "C:/run", "T:/run"};
  EXPECT_EQ(log, expected);
}

TEST_F(Leveled, APausedProbeIsResumedBeforeItsRunEnds) {
  probe.run_begin("id");
  step(0);
  step(1);  // bare: C paused
  probe.run_end();
  const std::vector<std::string> tail(log.end() - 3, log.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"C:resume", "C:/run", "T:/run"}));
}

TEST_F(Leveled, EveryProbeWritesItsResult) {
  nlohmann::json result;
  probe.write_result(result);
  EXPECT_EQ(result, (nlohmann::json{{"T", true}, {"C", true}}));
}

}  // namespace
}  // namespace gpubench
