#pragma once
#include <array>
#include <string>

namespace gpubench {

// The named scopes of one training step, in order (DESIGN.md, Trainer).
enum class Phase { Data, H2D, Forward, Backward, Optimizer };
constexpr std::size_t kPhaseCount = 5;
constexpr std::array<Phase, kPhaseCount> kAllPhases = {Phase::Data, Phase::H2D, Phase::Forward, Phase::Backward,
                                                       Phase::Optimizer};

inline const char* phase_name(Phase phase) {
  switch (phase) {
    case Phase::Data: return "data";
    case Phase::H2D: return "h2d";
    case Phase::Forward: return "forward";
    case Phase::Backward: return "backward";
    case Phase::Optimizer: return "optimizer";
  }
  return "?";
}

}  // namespace gpubench
