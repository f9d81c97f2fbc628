#pragma once
// A Llama of a few thousand parameters (grouped-query: 4 query heads on 2 key/value heads),
// for the tests of the family's code.
#include "workloads/llama.h"

namespace gpubench::test_support {

inline LlamaShape tiny_llama() {
  LlamaShape s;
  s.vocab = 101;
  s.hidden = 32;
  s.intermediate = 64;
  s.layers = 2;
  s.heads = 4;
  s.kv_heads = 2;
  s.head_dim = 8;
  s.max_positions = 128;
  s.rms_norm_eps = 1e-5;
  return s;
}

}  // namespace gpubench::test_support
