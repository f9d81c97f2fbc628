#include "reports/ablation.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/config/config.h"
#include "core/config/stack_parts.h"
#include "reports/comparisons.h"
#include "reports/fit_table.h"
#include "reports/report_rows.h"
#include "core/stats/ratio_interval.h"

namespace gpubench {
namespace {

// One ablation comparison of two rows, when both ran; null otherwise.
nlohmann::json ablation_pair(const nlohmann::json& results, const std::string& kind, const std::string& base_id,
                             const std::string& candidate_id, const nlohmann::json& context) {
  const auto* base = find_ok_row(results, base_id);
  const auto* candidate = find_ok_row(results, candidate_id);
  if (base == nullptr || candidate == nullptr || base_id == candidate_id) return nullptr;
  nlohmann::json entry = compare_rows(kind, *base, *candidate);
  entry.update(context);
  // The speedup's 95% interval (stats/ratio_interval.h); none when a row's spread is unknown.
  if (const auto ci = row_ratio_interval(entry["speedup"].get<double>(), *base, *candidate))
    entry["speedup_ci95"] = {ci->first, ci->second};
  return entry;
}

void append_if(nlohmann::json& out, nlohmann::json entry) {
  if (!entry.is_null()) out.push_back(std::move(entry));
}

// The recipe's rows: one comparison for the whole stack, two per part (alone, in the stack).
// None when the recipe's own row did not run (a list of ids that shares rows with a recipe
// but leaves the recipe out is no ablation of it).
void single_recipe(const nlohmann::json& recipe, const nlohmann::json& results, nlohmann::json& out) {
  const std::string recipe_id = recipe.value("config_id", "");
  const std::string plain_id = recipe.value("baseline", "");
  if (find_ok_row(results, recipe_id) == nullptr) return;
  Config stack, plain;
  try {
    stack = Config::parse(recipe_id);
    plain = Config::parse(plain_id);
  } catch (const std::exception&) {
    return;  // a recipe this build cannot read: nothing to compute
  }
  const nlohmann::json context = {{"device", recipe.value("device", "")}, {"recipe", recipe_id}};
  nlohmann::json whole = context;
  whole["technique"] = "recipe";
  whole["position"] = "recipe";
  append_if(out, ablation_pair(results, "ablation", plain_id, recipe_id, whole));
  for (const auto& part : stack_parts(stack)) {
    nlohmann::json alone = context;
    alone["technique"] = part;
    alone["position"] = "alone";
    append_if(out, ablation_pair(results, "ablation", plain_id, with_part(plain, part).id(), alone));
    nlohmann::json in_stack = context;
    in_stack["technique"] = part;
    in_stack["position"] = "in_stack";
    append_if(out, ablation_pair(results, "ablation", without_part(stack, part).id(), recipe_id, in_stack));
  }
}

// The single-process recipe of `recipe`'s workload and device, or null.
const nlohmann::json* single_recipe_of(const nlohmann::json& recipes, const nlohmann::json& recipe) {
  for (const auto& single : recipes)
    if (single.value("name", "") == "recipe" && single.value("workload", "") == recipe.value("workload", "") &&
        single.value("device", "") == recipe.value("device", ""))
      return &single;
  return nullptr;
}

// The sharded recipe against its DDP twin (the same stack on ddp-N): the parallel mode's
// part of the single recipe's block.
void parallel_mode(const nlohmann::json& recipes, const nlohmann::json& recipe, const nlohmann::json& results,
                   nlohmann::json& out) {
  const nlohmann::json* single = single_recipe_of(recipes, recipe);
  Config twin;
  try {
    twin = Config::parse(recipe.value("config_id", ""));
  } catch (const std::exception&) {
    return;
  }
  twin.parallel = ParallelMode::Ddp;
  append_if(out, ablation_pair(results, "parallel_mode", twin.id(), recipe.value("config_id", ""),
                               {{"device", recipe.value("device", "")},
                                {"recipe", single ? single->value("config_id", "") : recipe.value("config_id", "")}}));
}

}  // namespace

nlohmann::json compute_ablations(const nlohmann::json& matrix, const nlohmann::json& results) {
  nlohmann::json out = nlohmann::json::array();
  const auto recipes = matrix.value("recipes", nlohmann::json::array());
  for (const auto& recipe : recipes) {
    if (recipe.value("name", "") == "fsdp recipe") {
      parallel_mode(recipes, recipe, results, out);
      continue;
    }
    if (recipe.value("name", "") != "ddp recipe") {
      single_recipe(recipe, results, out);
      continue;
    }
    // The DDP recipe against the single-process recipe of the same workload and device.
    for (const auto& single : recipes)
      if (single.value("name", "") == "recipe" && single.value("workload", "") == recipe.value("workload", "") &&
          single.value("device", "") == recipe.value("device", "")) {
        nlohmann::json entry = ablation_pair(results, "scaling_efficiency", single.value("config_id", ""),
                                             recipe.value("config_id", ""),
                                             {{"device", recipe.value("device", "")}, {"recipe", single.value("config_id", "")}});
        if (entry.is_null()) continue;
        int ranks = 1;
        try {
          ranks = Config::parse(recipe.value("config_id", "")).world_size;
        } catch (const std::exception&) {
        }
        entry["ranks"] = ranks;
        entry["efficiency"] = entry["speedup"].get<double>() / ranks;
        out.push_back(entry);
      }
  }
  return out;
}

std::string format_ablation_blocks(const nlohmann::json& report, std::size_t columns) {
  const auto comparisons = report.value("comparisons", nlohmann::json::array());
  const auto cell = [](const nlohmann::json& c, bool with_memory) {
    if (c.is_null()) return std::string("-");
    const auto ci = c.value("speedup_ci95", nlohmann::json());
    return fmt::format("{:.2f}x ", c.value("speedup", 0.0)) +
           (ci.is_array() ? fmt::format("[{:.2f}-{:.2f}]", ci[0].get<double>(), ci[1].get<double>()) : "[spread unknown]") +
           (with_memory ? fmt::format(" mem {:.2f}x", c.value("memory_ratio", 0.0)) : "");
  };
  std::vector<std::string> recipes;  // in report order
  for (const auto& c : comparisons)
    if (c.value("kind", "") == "ablation" && std::find(recipes.begin(), recipes.end(), c.value("recipe", "")) == recipes.end())
      recipes.push_back(c.value("recipe", ""));
  std::string text;
  for (const auto& recipe : recipes) {
    nlohmann::json whole;
    std::vector<std::string> parts;
    std::vector<FitColumn> table = {{"part", {}, "", {}},
                                    {"alone (plain + part)", {}, "alone", {}},
                                    {"in the stack (recipe vs recipe - part)", {}, "in the stack", {}}};
    for (const auto& c : comparisons) {
      if (c.value("kind", "") != "ablation" || c.value("recipe", "") != recipe) continue;
      if (c.value("position", "") == "recipe") whole = c;
      else if (std::find(parts.begin(), parts.end(), c.value("technique", "")) == parts.end()) parts.push_back(c.value("technique", ""));
    }
    for (const auto& part : parts) {
      nlohmann::json alone, in_stack;
      for (const auto& c : comparisons)
        if (c.value("kind", "") == "ablation" && c.value("recipe", "") == recipe && c.value("technique", "") == part)
          (c.value("position", "") == "alone" ? alone : in_stack) = c;
      // A graph replays fused Adam: the recipe without it is the recipe itself.
      const bool inseparable = in_stack.is_null() && part == "adam-fused" && recipe.size() > 6 &&
                               recipe.compare(recipe.size() - 6, 6, "/graph") == 0;
      table[0].cells.push_back(part);
      for (const bool with_memory : {true, false}) {
        auto& alone_cells = with_memory ? table[1].cells : table[1].short_cells;
        auto& stack_cells = with_memory ? table[2].cells : table[2].short_cells;
        alone_cells.push_back(cell(alone, with_memory));
        stack_cells.push_back(inseparable ? "part of graph (it replays fused Adam)" : cell(in_stack, with_memory));
      }
    }
    const std::string where = whole.is_null() ? recipe : whole.value("workload", "") + " on " + whole.value("device", "");
    text += fmt::format("\nwhat each part of the recipe buys: {}\n", where);
    text += whole.is_null() ? fmt::format("recipe {} (its plain row did not run)\n", recipe)
                            : wrap_text(fmt::format("recipe {}: {} vs {}", recipe, cell(whole, true), whole.value("baseline", "")), columns);
    using A = FitStep::Action;
    text += fit_table(table, {{2, A::Shorten}, {1, A::Shorten}}, columns);
    for (const auto& c : comparisons)
      if (c.value("kind", "") == "scaling_efficiency" && c.value("recipe", "") == recipe)
        text += wrap_text(fmt::format("{}: {:.2f}x the recipe on {} ranks, scaling efficiency {:.0f}%", c.value("candidate", ""),
                                      c.value("speedup", 0.0), c.value("ranks", 1), c.value("efficiency", 0.0) * 100),
                          columns);
    for (const auto& c : comparisons)
      if (c.value("kind", "") == "parallel_mode" && c.value("recipe", "") == recipe)
        text += wrap_text(fmt::format("{}: {} the step rate of {} (the same stack on DDP), each rank's model state {:.2f}x",
                                      c.value("candidate", ""), cell(c, true), c.value("baseline", ""),
                                      c.value("model_state_ratio", 0.0)),
                          columns);
  }
  return text;
}

}  // namespace gpubench
