#include "workloads/expert_exchange.h"

#include <numeric>
#include <stdexcept>
#include <string>

#include <torch/autograd.h>

namespace gpubench {
namespace {

// The exchange as an autograd function: forward sends, backward sends the gradients back.
// The exchange is held by address (IValue has no slot for an interface pointer); it
// outlives the graph, since the harness keeps it for the whole run.
struct ExchangeRowsFunction : torch::autograd::Function<ExchangeRowsFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* context, const torch::Tensor& rows, std::int64_t exchange,
                               std::vector<std::int64_t> send, std::vector<std::int64_t> receive) {
    context->saved_data["exchange"] = exchange;
    context->saved_data["send"] = send;
    context->saved_data["receive"] = receive;
    return reinterpret_cast<ExpertExchange*>(exchange)->all_to_all(rows.contiguous(), send, receive);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* context,
                                                 torch::autograd::variable_list gradients) {
    auto* exchange = reinterpret_cast<ExpertExchange*>(context->saved_data["exchange"].toInt());
    const auto send = context->saved_data["send"].toIntVector();
    const auto receive = context->saved_data["receive"].toIntVector();
    // Back along the way the rows came: what this rank received it now sends.
    return {exchange->all_to_all(gradients.at(0).contiguous(), receive, send), torch::Tensor(), torch::Tensor(),
            torch::Tensor()};
  }
};

std::int64_t sum(const std::vector<std::int64_t>& values) { return std::accumulate(values.begin(), values.end(), std::int64_t{0}); }

}  // namespace

torch::Tensor exchange_rows(ExpertExchange& exchange, const torch::Tensor& rows, const std::vector<std::int64_t>& send,
                            const std::vector<std::int64_t>& receive) {
  return ExchangeRowsFunction::apply(rows, static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(&exchange)), send,
                                     receive);
}

torch::Tensor run_experts_across_ranks(ExpertExchange& exchange, const torch::Tensor& sorted_rows,
                                       const std::vector<std::int64_t>& counts, const LocalExperts& local_experts) {
  const auto ranks = static_cast<std::int64_t>(exchange.size());
  const auto experts = static_cast<std::int64_t>(counts.size());
  if (ranks < 1 || experts % ranks != 0)
    throw std::invalid_argument("expert parallel: " + std::to_string(experts) + " experts do not split over " +
                                std::to_string(ranks) + " ranks");
  const std::int64_t local = experts / ranks, first = exchange.rank() * local;
  // What each rank sends each other: the counts of the experts it holds, one row each.
  const auto count_rows = torch::tensor(counts, torch::TensorOptions(torch::kInt64)).to(sorted_rows.device()).view({experts, 1});
  const std::vector<std::int64_t> per_rank(static_cast<std::size_t>(ranks), local);
  const torch::Tensor incoming = exchange.all_to_all(count_rows, per_rank, per_rank).to(torch::kCPU).contiguous();
  // received[s][j]: rows rank s sends for this rank's j-th expert.
  const std::int64_t* received = incoming.data_ptr<std::int64_t>();
  std::vector<std::int64_t> send(static_cast<std::size_t>(ranks), 0), receive(static_cast<std::size_t>(ranks), 0);
  for (std::int64_t e = 0; e < experts; ++e) send[static_cast<std::size_t>(e / local)] += counts[static_cast<std::size_t>(e)];
  for (std::int64_t s = 0; s < ranks; ++s)
    for (std::int64_t j = 0; j < local; ++j) receive[static_cast<std::size_t>(s)] += received[s * local + j];
  const torch::Tensor arrived = exchange_rows(exchange, sorted_rows, send, receive);
  // Arrived rows are grouped by source rank, then by expert: each local expert takes its
  // rows from every source (one GEMM over all of them), in expert-major order.
  // Each source's next unread row: its rows come in expert order, so one cursor a source
  // walks them as the experts are taken in turn.
  std::vector<std::int64_t> cursor(static_cast<std::size_t>(ranks), 0);
  for (std::int64_t s = 1; s < ranks; ++s)
    cursor[static_cast<std::size_t>(s)] = cursor[static_cast<std::size_t>(s - 1)] + receive[static_cast<std::size_t>(s - 1)];
  std::vector<std::int64_t> by_expert;  // arrived row index, in expert-major order
  by_expert.reserve(static_cast<std::size_t>(sum(receive)));
  std::vector<std::int64_t> expert_rows(static_cast<std::size_t>(local), 0);
  for (std::int64_t j = 0; j < local; ++j)
    for (std::int64_t s = 0; s < ranks; ++s) {
      const std::int64_t rows = received[s * local + j];
      std::int64_t& next = cursor[static_cast<std::size_t>(s)];
      for (std::int64_t row = 0; row < rows; ++row) by_expert.push_back(next + row);
      next += rows;
      expert_rows[static_cast<std::size_t>(j)] += rows;
    }
  const auto index = torch::tensor(by_expert, torch::TensorOptions(torch::kInt64)).to(arrived.device());
  const auto grouped = arrived.index_select(0, index);
  // Back to the arrival order (source-major), which the reply's splits describe; in the
  // rows' dtype, which every rank of the group sends and expects (under autocast the
  // experts' GEMMs give 16-bit outputs; a rank that received nothing replies with no rows).
  const auto in_expert_order = local_experts(first, grouped, expert_rows).to(arrived.scalar_type());
  const torch::Tensor computed =
      torch::zeros({arrived.size(0), in_expert_order.size(1)}, in_expert_order.options()).index_copy(0, index, in_expert_order);
  return exchange_rows(exchange, computed, receive, send);
}

}  // namespace gpubench
