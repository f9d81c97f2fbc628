#include "harness/profile/leveled_probe.h"

namespace gpubench {

void LeveledProbe::add(std::shared_ptr<Probe> probe, InstrumentationLevel level, std::function<void(bool)> set_active) {
  entries_.push_back({std::move(probe), level, std::move(set_active), true});
}

template <class Call>
void LeveledProbe::forward(Call&& call) {
  for (auto& entry : entries_)
    if (on(entry)) call(*entry.probe);
}

template <class Call>
void LeveledProbe::forward_reversed(Call&& call) {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
    if (on(*it)) call(*it->probe);
}

void LeveledProbe::run_begin(const std::string& config_id) {
  for (auto& entry : entries_) entry.probe->run_begin(config_id);
}

void LeveledProbe::run_end() {
  // Whatever was paused ends the run as it would normally: active, then run_end.
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (!it->active && it->set_active) it->set_active(true);
    it->active = true;
    it->probe->run_end();
  }
}

void LeveledProbe::step_begin(int step, bool measured) {
  current_ = schedule_.level_at(step);
  for (auto& entry : entries_) {
    const bool active = on(entry);
    if (active != entry.active && entry.set_active) entry.set_active(active);
    entry.active = active;
  }
  forward([&](Probe& p) { p.step_begin(step, measured); });
}

void LeveledProbe::step_end(int step, bool measured) {
  forward_reversed([&](Probe& p) { p.step_end(step, measured); });
}

void LeveledProbe::phase_begin(Phase phase) {
  forward([&](Probe& p) { p.phase_begin(phase); });
}

void LeveledProbe::phase_end(Phase phase) {
  forward_reversed([&](Probe& p) { p.phase_end(phase); });
}

void LeveledProbe::write_result(nlohmann::json& result) const {
  for (const auto& entry : entries_) entry.probe->write_result(result);
}

}  // namespace gpubench
