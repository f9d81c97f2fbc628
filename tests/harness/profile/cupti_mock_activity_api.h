#pragma once
// A scripted CuptiActivityApi: tests push synthetic records "into CUPTI's buffers", set the
// clock, make chosen calls fail, and read back the calls the collector made.
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/profile/cupti_activity_api.h"

namespace gpubench::testing {

struct MockCuptiState {
  std::vector<std::string> calls;             // "subscribe", "enable:MEMCPY", "flush_all", ...
  std::map<std::string, CuptiCall> failures;  // call name -> the result it returns instead of Ok
  std::string throw_on;                       // call name that throws std::runtime_error
  std::uint64_t now_ns = 0;                   // what timestamp_ns() returns
  CuptiRecords buffered;                      // held by "CUPTI" until flush_all
  CuptiRecords completed;                     // flushed, handed over by take_records

  int count(const std::string& call) const {
    int n = 0;
    for (const auto& c : calls) n += c == call ? 1 : 0;
    return n;
  }
};

class MockCuptiActivityApi final : public CuptiActivityApi {
 public:
  explicit MockCuptiActivityApi(std::shared_ptr<MockCuptiState> state) : state_(std::move(state)) {}

  CuptiCall subscribe() override { return call("subscribe"); }
  CuptiCall register_buffer_callbacks() override { return call("register_buffer_callbacks"); }
  CuptiCall enable(CuptiActivityKind kind) override {
    return call(std::string("enable:") + cupti_activity_kind_name(kind));
  }
  CuptiCall disable(CuptiActivityKind kind) override {
    return call(std::string("disable:") + cupti_activity_kind_name(kind));
  }
  CuptiCall flush_all() override {
    CuptiCall result = call("flush_all");
    if (result.ok()) state_->completed.append(std::move(state_->buffered));
    return result;
  }
  CuptiCall synchronize_device() override { return call("synchronize_device"); }
  CuptiRecords take_records() override {
    call("take_records");
    CuptiRecords out = std::move(state_->completed);
    state_->completed.clear();
    return out;
  }
  CuptiCall finalize() override { return call("finalize"); }
  std::uint64_t timestamp_ns() override { return state_->now_ns; }

 private:
  CuptiCall call(const std::string& name) {
    state_->calls.push_back(name);
    if (name == state_->throw_on) throw std::runtime_error("mock failure in " + name);
    const auto it = state_->failures.find(name);
    return it == state_->failures.end() ? CuptiCall{} : it->second;
  }
  std::shared_ptr<MockCuptiState> state_;
};

inline CuptiBackend mock_backend(std::shared_ptr<MockCuptiState> state) {
  return {std::make_unique<MockCuptiActivityApi>(std::move(state)), ""};
}

}  // namespace gpubench::testing
