#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "harness/profile/overhead_schedule.h"
#include "harness/profile/probe.h"

namespace gpubench {

// The probes of an `--overhead` run, each switched on only for the steps whose
// instrumentation level (from the schedule) is at least its own, so one training run
// alternates bare and instrumented steps. run_begin, run_end and write_result reach every
// probe once, as in a normal run; step and phase calls reach the probes of the step's
// level, in ProbeSet's order (begins in insertion order, ends reversed).
class LeveledProbe final : public Probe {
 public:
  explicit LeveledProbe(OverheadSchedule schedule) : schedule_(schedule) {}

  // `set_active`, when given, is called with false when a step below `level` begins after
  // one at or above it, and with true when the level comes back: for probes that cost
  // something even between their calls (CUPTI records every kernel while enabled).
  void add(std::shared_ptr<Probe> probe, InstrumentationLevel level, std::function<void(bool)> set_active = {});

  std::string name() const override { return "leveled"; }
  void run_begin(const std::string& config_id) override;
  void run_end() override;
  void step_begin(int step, bool measured) override;
  void step_end(int step, bool measured) override;
  void phase_begin(Phase phase) override;
  void phase_end(Phase phase) override;
  void write_result(nlohmann::json& result) const override;

 private:
  struct Entry {
    std::shared_ptr<Probe> probe;
    InstrumentationLevel level;
    std::function<void(bool)> set_active;
    bool active = true;
  };
  bool on(const Entry& entry) const { return entry.level <= current_; }
  template <class Call>
  void forward(Call&& call);
  template <class Call>
  void forward_reversed(Call&& call);

  OverheadSchedule schedule_;
  std::vector<Entry> entries_;
  InstrumentationLevel current_ = InstrumentationLevel::Cupti;
};

}  // namespace gpubench
