// The one decoder's parts and the built-in `llama` workload (Llama-3.2-1B's shape).
#include "workloads/decoder.h"

#include <gtest/gtest.h>

#include <cmath>

#include <ATen/record_function.h>

#include "core/config/technique_rules.h"
#include "support/tiny_llama.h"
#include "workloads/decoder_rope.h"
#include "workloads/decoder_lm.h"
#include "workloads/family_weights.h"
#include "workloads/gpt2.h"

namespace gpubench {
namespace {

using test_support::tiny_llama;

// llama3 scaling at head_dim 8, theta 1e4, factor 8, original context 64.
RopeShape llama3_tiny() {
  RopeShape rope;
  rope.type = RopeShape::Type::Llama3;
  rope.factor = 8.0;
  rope.original_max_positions = 64;
  return rope;
}

TEST(Llama, Llama32OneBHasItsPublishedParameterCount) {
  EXPECT_EQ(DecoderShape::llama_3_2_1b().parameters(), 1235814400);
  EXPECT_EQ(DecoderShape::llama_3_2_1b().rotary_dim(0), 64);
  for (const bool tied : {true, false})
    for (const bool biases : {true, false}) {
      DecoderShape s = tiny_llama();
      s.tie_word_embeddings = tied;
      s.qkv_bias = s.o_bias = s.mlp_bias = biases;
      DecoderLm model(s);
      std::int64_t count = 0;
      for (const auto& p : model->parameters()) count += p.numel();
      EXPECT_EQ(count, s.parameters()) << "tied " << tied << " biases " << biases;
    }
}

// The llama3 bands at head_dim 8, theta 1e4, factor 8, original context 64: the first
// frequency kept, the second smoothed, the last two divided (hf_family_reference.py prints
// transformers' [1.0, 0.01304, 0.00125, 0.000125]).
TEST(Llama, Llama3RopeFrequenciesAreTransformersBands) {
  const auto frequencies = rope_frequencies(llama3_tiny(), 8).inverse;
  ASSERT_EQ(frequencies.numel(), 4);
  EXPECT_FLOAT_EQ(frequencies[0].item<float>(), 1.0f);
  EXPECT_NEAR(frequencies[1].item<float>(), 0.01304f, 1e-5);
  EXPECT_NEAR(frequencies[2].item<float>(), 0.00125f, 1e-7);
  EXPECT_NEAR(frequencies[3].item<float>(), 0.000125f, 1e-8);
  EXPECT_NEAR(rope_frequencies(RopeShape{}, 8).inverse[1].item<float>(), 0.1f, 1e-7);
}

// Each aten::pow with a scalar base on this thread: rope_frequencies's
// theta ** exponents (RmsNorm's x.pow(2) is pow.Tensor_Scalar, not counted).
int scalar_base_pows = 0;
std::unique_ptr<at::ObserverContext> count_scalar_base_pow(const at::RecordFunction& fn) {
  const auto op = fn.operator_name();
  if (op && op->name == "aten::pow" && op->overload_name == "Scalar") ++scalar_base_pows;
  return nullptr;
}

// RoPE's frequencies are made once, when the model is made on its device (issue 47,
// finding 1): every forward built them on the host and copied them to the device, a host
// sync each step that a CUDA Graph capture refuses. The values stay HF's bits.
TEST(Llama, RotaryFrequenciesAreMadeOnceOnTheModelsDevice) {
  DecoderShape s = tiny_llama();
  s.ropes = {llama3_tiny()};
  ModelTechniques techniques;
  techniques.device = torch::kCPU;
  Model model = make_decoder_model(s, techniques);
  const auto tokens = torch::randint(0, s.vocab, {2, 5}, torch::kInt64);
  scalar_base_pows = 0;
  const auto handle = at::addThreadLocalCallback(at::RecordFunctionCallback(count_scalar_base_pow));
  model.forward(tokens).sum().backward();
  model.forward(tokens).sum().backward();
  at::removeCallback(handle);
  EXPECT_EQ(scalar_base_pows, 0) << "frequencies computed again inside a forward";
  auto* llama = model.module->as<DecoderLmImpl>();
  ASSERT_NE(llama, nullptr);
  const torch::Tensor& kept = llama->rope_inverse_frequencies(0);
  EXPECT_TRUE(torch::equal(kept, rope_frequencies(s.ropes[0], s.head_dim).inverse));
  model.forward(tokens);
  EXPECT_EQ(llama->rope_inverse_frequencies(0).data_ptr(), kept.data_ptr()) << "kept, not made again";
}

// The names and shapes a checkpoint is held against are the module's own (Conv1D weights
// transposed for GPT-2), so the up-front check and the loader agree.
// Every option that adds, fuses or drops a tensor, alone and together.
std::vector<DecoderShape> option_variants() {
  std::vector<DecoderShape> variants;
  for (const bool tied : {true, false}) {
    DecoderShape s = tiny_llama();
    s.tie_word_embeddings = tied;
    s.qkv_bias = true;
    variants.push_back(s);
  }
  DecoderShape gemma = tiny_llama();
  gemma.norm = NormKind::RmsOnePlus;
  gemma.placement = NormPlacement::Sandwich;
  gemma.qk_norm = QkNorm::PerHead;
  variants.push_back(gemma);
  DecoderShape olmo = tiny_llama();
  olmo.placement = NormPlacement::Post;
  olmo.qk_norm = QkNorm::FullWidth;
  olmo.o_bias = true;
  variants.push_back(olmo);
  DecoderShape phi = tiny_llama();
  phi.qkv_layout = QkvLayout::FusedBlocked;
  phi.mlp = MlpKind::GatedFused;
  phi.mlp_bias = true;
  variants.push_back(phi);
  DecoderShape neox = tiny_llama();
  neox.kv_heads = neox.heads;
  neox.norm = NormKind::LayerNorm;
  neox.qkv_layout = QkvLayout::FusedPerHead;
  neox.mlp = MlpKind::Plain;
  neox.qkv_bias = neox.o_bias = neox.mlp_bias = true;
  neox.parallel_residual = true;
  variants.push_back(neox);
  DecoderShape moe = tiny_llama();  // Qwen2-MoE-like: a dense layer, a shared expert
  moe.moe.experts = 4;
  moe.moe.expert_intermediate = 16;
  moe.moe.shared_intermediate = 24;
  moe.moe.sparse = {false, true};
  variants.push_back(moe);
  DecoderShape oss = tiny_llama();  // gpt-oss-like: sinks, a router bias, stacked experts with biases
  oss.qkv_bias = oss.o_bias = true;
  oss.attention_sinks = true;
  oss.moe.experts = 4;
  oss.moe.expert_intermediate = 12;
  oss.moe.router = MoeShape::Router::TopKSoftmax;
  oss.moe.router_bias = oss.moe.expert_bias = true;
  oss.moe.layout = MoeShape::Experts::Stacked;
  oss.moe.swiglu_limit = 7.0;
  variants.push_back(oss);
  DecoderShape deepseek = tiny_llama();  // DeepSeek-like: latent attention, sigmoid routing in groups
  // q_lora_rank 12, kv_lora_rank 10, nope 6, rope 4, v 8.
  deepseek.latent = LatentAttentionShape{12, 10, 6, 4, 8};
  deepseek.head_dim = deepseek.latent->qk_rope_head_dim;
  deepseek.kv_heads = deepseek.heads;
  deepseek.rope_interleave = true;
  deepseek.moe.experts = 4;
  deepseek.moe.expert_intermediate = 16;
  deepseek.moe.router = MoeShape::Router::Sigmoid;
  deepseek.moe.score_correction_bias = true;
  deepseek.moe.groups = deepseek.moe.topk_groups = 2;
  deepseek.moe.shared_intermediate = 16;
  deepseek.moe.shared_expert_gate = false;
  deepseek.moe.sparse = {false, true};
  variants.push_back(deepseek);
  return variants;
}

TEST(FamilyWeights, ExpectedNamesAndShapesAreTheModulesParameters) {
  for (const DecoderShape& s : option_variants()) {
    DecoderLm model(s);
    std::map<std::string, std::vector<std::int64_t>> ours;
    std::int64_t count = 0;
    for (const auto& p : model->named_parameters()) {
      ours[p.key()] = p.value().sizes().vec();
      count += p.value().numel();
    }
    // A checkpoint holds the buffers too (DeepSeek's e_score_correction_bias); HF counts none.
    for (const auto& b : model->named_buffers()) ours[b.key()] = b.value().sizes().vec();
    const ExpectedWeights list = decoder_expected_weights(s);
    std::map<std::string, std::vector<std::int64_t>> expected(list.begin(), list.end());
    EXPECT_EQ(ours, expected) << s.describe().dump();
    EXPECT_EQ(count, s.parameters()) << s.describe().dump();
    // Every variant trains: a forward and backward reach every parameter.
    model->init_weights();
    model->make_rope_frequencies(torch::kCPU);
    model->forward(torch::randint(0, s.vocab, {2, 6}, torch::kInt64)).sum().backward();
    for (const auto& p : model->named_parameters()) EXPECT_TRUE(p.value().grad().defined()) << p.key();
    // dp's replicas are clones: every option's parameters and buffers are registered in reset().
    const auto copy = model->clone();
    EXPECT_EQ(copy->named_parameters().size(), model->named_parameters().size());
    EXPECT_EQ(copy->named_buffers().size(), model->named_buffers().size());
  }
  Gpt2Shape g;
  g.vocab = 101;
  g.layers = 2;
  g.heads = 2;
  g.embd = 32;
  g.context = 64;
  g.inner = 48;
  Gpt2 gpt2(g);
  std::map<std::string, std::vector<std::int64_t>> ours;
  for (const auto& p : gpt2->named_parameters()) {
    auto sizes = p.value().sizes().vec();
    const auto name = huggingface_gpt2_names().to_reference(p.key());
    if (name.transposed) std::swap(sizes[0], sizes[1]);
    ours[name.reference_name] = sizes;
  }
  const ExpectedWeights list = gpt2_expected_weights(g);
  std::map<std::string, std::vector<std::int64_t>> expected(list.begin(), list.end());
  EXPECT_EQ(ours, expected);
}

// The padding row gets no gradient, as HF's nn.Embedding(padding_idx).
TEST(Llama, ThePaddingRowGetsNoGradient) {
  DecoderShape s = tiny_llama();
  s.pad_token_id = 7;
  DecoderLm model(s);
  model->init_weights();
  EXPECT_EQ(model->model->embed_tokens->weight[7].abs().sum().item<double>(), 0.0) << "zero at init, as HF";
  const auto tokens = torch::tensor({{7, 3, 7, 9, 1}}, torch::kInt64);
  model->forward(tokens).sum().backward();
  EXPECT_EQ(model->model->embed_tokens->weight.grad()[7].abs().sum().item<double>(), 0.0);
  EXPECT_GT(model->model->embed_tokens->weight.grad()[3].abs().sum().item<double>(), 0.0);
}

// The built-in llama: Llama-3.2-1B's shape at random init predicts nearly uniformly. The
// final RMSNorm's unit-scale output against the tied N(0, 0.02) embedding gives logits of
// variance 2048 x 0.02^2 = 0.82, so each position's logsumexp over 128256 tokens is
// ln(128256) + 0.82/2 = 12.17 almost exactly; the loss subtracts the target's logit, whose
// mean over 16 random targets has a standard deviation of sqrt(0.82/16) = 0.23. A forward and
// backward at 16 tokens fits this 24 GB machine (fp32 weights 4.9 GB and gradients 4.9 GB;
// no Adam step, no checkpoint round trip).
TEST(LlamaWorkload, TheBuiltInOneBModelStartsNearTheUniformLoss) {
  const auto workload = make_llama_workload(16);
  EXPECT_EQ(workload->tokens_per_sample(), 16);
  torch::manual_seed(0);
  Model model = workload->make_model();
  EXPECT_EQ(model.parameter_count(), 1235814400);
  const auto tokens = torch::randint(0, 128256, {1, 17}, torch::kInt64);
  const auto logits = model.forward(tokens.narrow(1, 0, 16));
  const double expected_logsumexp = std::log(128256.0) + 2048 * 0.02 * 0.02 / 2;
  EXPECT_NEAR(logits.detach().logsumexp(-1).mean().item<double>(), expected_logsumexp, 0.05);
  const auto loss = workload->loss(logits, tokens.narrow(1, 1, 16));
  EXPECT_NEAR(loss.item<double>(), expected_logsumexp, 4 * 0.23);
  loss.backward();
  EXPECT_TRUE(model.module->parameters().front().grad().defined());
}

// nanoGPT's convention per token: 6 N + 12 L H Q T, with N the tied model's parameters.
// A CPU config trains 128 tokens of the GPU rows' 2048, saying so: a step takes seconds,
// not tens of them, and a preset measures its spread.
TEST(LlamaWorkload, ACpuConfigTrainsAShorterDefaultSequenceAndSaysSo) {
  const auto cpu = make_workload_for(Config::parse("llama/cpu/fp32"));
  const auto gpu = make_workload_for(Config::parse("llama/cuda/amp-bf16/pinned"));
  EXPECT_EQ(cpu->tokens_per_sample(), kCpuDefaultSequence);
  EXPECT_EQ(gpu->tokens_per_sample(), 2048);
  EXPECT_NE(cpu->describe()["seq_len_reason"].get<std::string>().find("on a CPU 128 tokens of the GPU rows' 2048"),
            std::string::npos);
  EXPECT_LT(cpu->forward_macs_per_sample(), gpu->forward_macs_per_sample() / 15);
  const auto cpu_estimate = cpu->memory_estimate(Config::parse("llama/cpu/fp32"), 1);
  const auto at_2048 = gpu->memory_estimate(Config::parse("llama/cpu/fp32"), 1);
  ASSERT_TRUE(cpu_estimate && at_2048);
  EXPECT_LT(cpu_estimate->activations, at_2048->activations / 15);
}

// A sliding-window layer attends min(W, T) keys: its attention FLOPs count those, not T.
TEST(DecoderWorkload, WindowedLayersCountTheKeysTheyAttend) {
  DecoderShape s = tiny_llama();
  const auto macs = [&](const DecoderShape& shape) { return DecoderLmWorkload(decoder_lm_spec("w", shape, 64)).forward_macs_per_sample(); };
  const std::int64_t plain = macs(s);
  s.layer_attention = {{16, 0}, {std::nullopt, 0}};
  const std::int64_t attention_width = s.heads * s.head_dim;
  EXPECT_EQ(plain - macs(s), 64 * 2 * attention_width * (64 - 16)) << "layer 0 attends 16 keys, not 64";
  s.layer_attention = {{128, 0}, {std::nullopt, 0}};
  EXPECT_EQ(macs(s), plain) << "a window longer than the sequence is every key";
}

// A mixture of experts: its FLOPs count the active parameters, and with the load-balancing
// loss (read from the routers during the forward) ckpt and dp are refused by the rule table.
TEST(DecoderWorkload, AMixtureOfExpertsCountsActiveParametersAndRefusesCkptWithItsRouterLoss) {
  DecoderShape s = tiny_llama();
  s.moe.experts = 8;
  s.moe.top_k = 2;
  s.moe.expert_intermediate = 16;
  const std::int64_t expert = 3 * s.hidden * 16;
  EXPECT_EQ(s.parameters() - s.active_parameters(), s.layers * 6 * expert) << "6 of 8 experts idle a token";
  DecoderLm model(s);
  std::int64_t count = 0;
  for (const auto& p : model->parameters()) count += p.numel();
  EXPECT_EQ(count, s.parameters());
  const DecoderLmWorkload plain(decoder_lm_spec("moe", s, 16));
  EXPECT_FALSE(workload_rule_broken(Config::parse("moe/cpu/fp32/ckpt"), plain.traits()));
  const auto graph = workload_rule_broken(Config::parse("moe/cuda/amp-bf16/graph"), plain.traits());
  ASSERT_TRUE(graph) << "the experts' loop reads each token count on the host: no capture";
  EXPECT_NE(graph->find("token count"), std::string::npos) << *graph;
  s.moe.aux_loss_coef = 0.01;
  const DecoderLmWorkload with_loss(decoder_lm_spec("moe", s, 16));
  for (const char* id : {"moe/cpu/fp32/ckpt", "moe/cuda/fp32/dp"}) {
    const auto why = workload_rule_broken(Config::parse(id), with_loss.traits());
    ASSERT_TRUE(why) << id;
    EXPECT_NE(why->find("router logits"), std::string::npos) << *why;
  }
  EXPECT_FALSE(workload_rule_broken(Config::parse("moe/cpu/fp32/fsdp-2"), with_loss.traits()));
  // The load-balancing loss is the trainer's to add: E * sum f P, k for a uniform router.
  Model built = make_decoder_model(s, {});
  ASSERT_TRUE(built.auxiliary_loss);
  built.forward(torch::randint(0, s.vocab, {2, 8}, torch::kInt64));
  const torch::Tensor aux = built.auxiliary_loss();
  ASSERT_TRUE(aux.defined());
  EXPECT_GT(aux.item<double>(), 0.01 * 2 * 0.9);
  EXPECT_FALSE(built.auxiliary_loss().defined()) << "the logits are let go once taken";
}

// Latent attention's QK^T is heads x (nope + rope) channels wide, its AV heads x v_head_dim.
TEST(DecoderWorkload, LatentAttentionCountsItsQueryKeyAndValueWidths) {
  const DecoderShape s = option_variants().back();
  ASSERT_TRUE(s.latent);
  const DecoderLmWorkload workload(decoder_lm_spec("mla", s, 16));
  const std::int64_t keys = s.layers * 16;
  EXPECT_EQ(workload.forward_macs_per_sample(),
            16 * (s.active_parameters() - s.lookup_parameters() + (s.heads * 10 + s.heads * 8) * keys));
}

TEST(LlamaWorkload, FlopsAreNanoGptsConvention) {
  const auto workload = make_llama_workload(2048);
  const double per_token = static_cast<double>(workload->forward_macs_per_sample()) * 6 / 2048;
  EXPECT_DOUBLE_EQ(per_token, 6.0 * 1235814400 + 12.0 * 16 * 32 * 64 * 2048);
  EXPECT_NE(workload->flops_convention().find("6 N + 12 L H Q T"), std::string::npos);
}

// The GPU default (micro-batch 4 x 2048, amp-bf16) fits an 80 GB GPU with room to spare:
// ~54 GB by what each layer keeps (issue 47, finding 10: 34 x hidden a token and layer had
// said ~40 GB, half of its activations).
TEST(LlamaWorkload, ItsGpuDefaultFitsAnEightyGigabyteGpu) {
  const auto workload = make_llama_workload(std::nullopt);
  Config config = Config::parse("llama/cuda/amp-bf16");
  const auto estimate = workload->memory_estimate(config, workload->default_batch_size(DeviceKind::Cuda));
  ASSERT_TRUE(estimate);
  EXPECT_GT(estimate->device_total(), 50e9);
  EXPECT_LT(estimate->device_total(), 0.7 * 80e9);
  EXPECT_NEAR(estimate->states, 16.0 * 1235814400, 1);
  config.checkpoint = true;
  EXPECT_LT(workload->memory_estimate(config, 4)->activations, estimate->activations / 4) << "ckpt keeps a layer's worth";
}

}  // namespace
}  // namespace gpubench
