#include "workloads/family_weights.h"

#include <map>
#include <set>

#include "workloads/formats/safetensors_header.h"

namespace gpubench {

ExpectedWeights llama_expected_weights(const LlamaShape& s) {
  const std::int64_t q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim;
  ExpectedWeights out = {{"model.embed_tokens.weight", {s.vocab, s.hidden}}};
  for (std::int64_t i = 0; i < s.layers; ++i) {
    const std::string layer = "model.layers." + std::to_string(i) + ".";
    out.push_back({layer + "input_layernorm.weight", {s.hidden}});
    for (const auto& [name, rows] : std::vector<std::pair<std::string, std::int64_t>>{{"q_proj", q}, {"k_proj", kv}, {"v_proj", kv}}) {
      out.push_back({layer + "self_attn." + name + ".weight", {rows, s.hidden}});
      if (s.qkv_bias) out.push_back({layer + "self_attn." + name + ".bias", {rows}});
    }
    out.push_back({layer + "self_attn.o_proj.weight", {s.hidden, q}});
    if (s.o_bias) out.push_back({layer + "self_attn.o_proj.bias", {s.hidden}});
    out.push_back({layer + "post_attention_layernorm.weight", {s.hidden}});
    for (const auto& name : {"gate_proj", "up_proj"}) {
      out.push_back({layer + "mlp." + name + ".weight", {s.intermediate, s.hidden}});
      if (s.mlp_bias) out.push_back({layer + "mlp." + name + ".bias", {s.intermediate}});
    }
    out.push_back({layer + "mlp.down_proj.weight", {s.hidden, s.intermediate}});
    if (s.mlp_bias) out.push_back({layer + "mlp.down_proj.bias", {s.hidden}});
  }
  out.push_back({"model.norm.weight", {s.hidden}});
  if (!s.tie_word_embeddings) out.push_back({"lm_head.weight", {s.vocab, s.hidden}});
  return out;
}

ExpectedWeights gpt2_expected_weights(const Gpt2Shape& s) {
  const std::int64_t c = s.embd, f = s.mlp_width();
  ExpectedWeights out = {{"transformer.wte.weight", {s.vocab, c}}, {"transformer.wpe.weight", {s.context, c}}};
  for (std::int64_t i = 0; i < s.layers; ++i) {
    const std::string block = "transformer.h." + std::to_string(i) + ".";
    out.insert(out.end(), {{block + "ln_1.weight", {c}},
                           {block + "ln_1.bias", {c}},
                           {block + "attn.c_attn.weight", {c, 3 * c}},
                           {block + "attn.c_attn.bias", {3 * c}},
                           {block + "attn.c_proj.weight", {c, c}},
                           {block + "attn.c_proj.bias", {c}},
                           {block + "ln_2.weight", {c}},
                           {block + "ln_2.bias", {c}},
                           {block + "mlp.c_fc.weight", {c, f}},
                           {block + "mlp.c_fc.bias", {f}},
                           {block + "mlp.c_proj.weight", {f, c}},
                           {block + "mlp.c_proj.bias", {c}}});
  }
  out.insert(out.end(), {{"transformer.ln_f.weight", {c}}, {"transformer.ln_f.bias", {c}}});
  return out;
}

std::string weights_mismatch(const ExpectedWeights& expected, const std::vector<std::string>& names,
                             const std::function<std::vector<std::int64_t>(const std::string&)>& shape_of,
                             const WeightMapping& mapping) {
  const std::set<std::string> present(names.begin(), names.end());
  std::set<std::string> used;
  std::string problems;
  int listed = 0;
  const auto note = [&](const std::string& problem) {
    if (++listed <= 8) problems += (problems.empty() ? "" : "; ") + problem;
  };
  for (const auto& [ours, shape] : expected) {
    const std::string name = mapping.to_reference(ours).reference_name;
    if (!present.count(name)) {
      note(name + " is missing");
      continue;
    }
    used.insert(name);
    // The file's layout: a transposed (Conv1D) weight is stored as expected, [in, out].
    if (shape_of(name) != shape) note(name + " is " + shape_text(shape_of(name)) + ", expected " + shape_text(shape));
  }
  for (const auto& [name, tied_to] : mapping.tied) used.insert(name);
  for (const auto& name : names)
    if (!used.count(name) && !mapping.ignored(name)) note(name + " is not a tensor of this model");
  if (listed > 8) problems += "; and " + std::to_string(listed - 8) + " more";
  return problems;
}

}  // namespace gpubench
