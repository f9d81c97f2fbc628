#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/profile/phase.h"

namespace gpubench {

// Something that watches a training run: wall timers, NVTX ranges, CUPTI, memory samplers.
// The Trainer calls these in strict nesting order: run > step > phase. A probe must not
// change what is measured beyond its own (measured) overhead. By default no phase waits
// for the device, so on CUDA a wall-clock probe sees the time to queue a phase
// (DevicePhaseTimer has the device's); with --sync-phases the Trainer synchronises the
// device before each phase_end, and wall clocks see the phase's real cost.
class Probe {
 public:
  virtual ~Probe() = default;
  virtual std::string name() const = 0;
  virtual void run_begin(const std::string& config_id) {}
  virtual void run_end() {}
  // `measured` is false for warm-up steps, which are excluded from statistics.
  virtual void step_begin(int step, bool measured) {}
  virtual void step_end(int step, bool measured) {}
  virtual void phase_begin(Phase phase) {}
  virtual void phase_end(Phase phase) {}
  // Adds this probe's section to the config's result object.
  virtual void write_result(nlohmann::json& result) const {}
};

// Fans every call out to its probes (nvbench's printer_multiplex, for probes).
// Begin calls go in insertion order and end calls in reverse, so the first probe's
// scope encloses the others (the wall timer goes first: it includes their overhead).
class ProbeSet final : public Probe {
 public:
  void add(std::shared_ptr<Probe> probe) { probes_.push_back(std::move(probe)); }
  std::string name() const override { return "probes"; }
  void run_begin(const std::string& config_id) override {
    for (auto& p : probes_) p->run_begin(config_id);
  }
  void run_end() override {
    for (auto it = probes_.rbegin(); it != probes_.rend(); ++it) (*it)->run_end();
  }
  void step_begin(int step, bool measured) override {
    for (auto& p : probes_) p->step_begin(step, measured);
  }
  void step_end(int step, bool measured) override {
    for (auto it = probes_.rbegin(); it != probes_.rend(); ++it) (*it)->step_end(step, measured);
  }
  void phase_begin(Phase phase) override {
    for (auto& p : probes_) p->phase_begin(phase);
  }
  void phase_end(Phase phase) override {
    for (auto it = probes_.rbegin(); it != probes_.rend(); ++it) (*it)->phase_end(phase);
  }
  void write_result(nlohmann::json& result) const override {
    for (const auto& p : probes_) p->write_result(result);
  }

 private:
  std::vector<std::shared_ptr<Probe>> probes_;
};

}  // namespace gpubench
