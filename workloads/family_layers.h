#pragma once
// The layers the decoder families (decoder.h, gpt2.h) are built from, made so that a model of
// billions of parameters is ready in a moment on the device it trains on:
//  - built, a layer's parameters are allocated and left uninitialised (LibTorch's Linear and
//    Embedding draw kaiming_uniform_ / normal_ in their constructors, serially on the CPU:
//    ~3 s a pass over Llama-3.2-1B, and the family then drew its own init over it);
//  - make_on() moves the allocation to the training device without copying anything;
//  - the family's init_weights() then draws there, or a checkpoint's weights fill it.
// Parameter names are LibTorch's ("weight", "bias"), so state dicts and HF mappings hold.
#include <cstdint>
#include <functional>
#include <optional>

#include <torch/torch.h>

namespace gpubench {

// y = x W^T + b; W [out, in].
struct FamilyLinearImpl : torch::nn::Cloneable<FamilyLinearImpl> {
  FamilyLinearImpl(std::int64_t in, std::int64_t out, bool with_bias) : in(in), out(out), with_bias(with_bias) { reset(); }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x) { return torch::linear(x, weight, bias); }
  std::int64_t in, out;
  bool with_bias;
  torch::Tensor weight, bias;  // bias undefined without one
};
TORCH_MODULE(FamilyLinear);

// A table of `count` rows of `dim`; `padding_idx`'s row gets no gradient (HF's padding_idx).
struct FamilyEmbeddingImpl : torch::nn::Cloneable<FamilyEmbeddingImpl> {
  FamilyEmbeddingImpl(std::int64_t count, std::int64_t dim, std::optional<std::int64_t> padding_idx = std::nullopt)
      : count(count), dim(dim), padding_idx(padding_idx) {
    reset();
  }
  void reset() override;
  torch::Tensor forward(const torch::Tensor& ids) { return torch::embedding(weight, ids, padding_idx.value_or(-1)); }
  std::int64_t count, dim;
  std::optional<std::int64_t> padding_idx;
  torch::Tensor weight;
};
TORCH_MODULE(FamilyEmbedding);

// Every parameter and buffer of `module` replaced, in place (the same variables, so the
// members that name them still do), by an uninitialised tensor of its shape and dtype on
// `device`: Python's Module.to_empty. Nothing is copied; what they held is gone.
void make_on(torch::nn::Module& module, torch::Device device);

// What fills a family model's parameters instead of its random init (a checkpoint's
// weights); empty: the family's init.
using WeightLoader = std::function<void(torch::nn::Module&)>;

// A family model just built, made on `device` and filled there: by `load`, or with none by
// its own init_weights().
template <class Holder>
Holder filled_on(Holder model, torch::Device device, const WeightLoader& load) {
  make_on(*model, device);
  if (load) load(*model);
  else model->init_weights();
  return model;
}

}  // namespace gpubench
