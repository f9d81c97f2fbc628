#pragma once
// A Llama-shaped decoder of a few thousand parameters (grouped-query: 4 query heads on 2
// key/value heads), for the tests of the decoder's code.
#include "workloads/formats/decoder_shape.h"

namespace gpubench::test_support {

inline DecoderShape tiny_llama() {
  DecoderShape s;
  s.vocab = 101;
  s.hidden = 32;
  s.intermediate = 64;
  s.layers = 2;
  s.heads = 4;
  s.kv_heads = 2;
  s.head_dim = 8;
  s.max_positions = 128;
  s.norm_eps = 1e-5;
  return s;
}

}  // namespace gpubench::test_support
