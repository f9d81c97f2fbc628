#pragma once
// What an external launcher's run of gpubench's ddp-2 and fsdp-2 configs must match
// (torchrun_test.cpp, slurm_test.cpp): gpubench's own launcher on the same flags. Needs
// GPUBENCH_EXE and GPUBENCH_REPORT_SCHEMA defined by the test target.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "support/report_json.h"
#include "support/run_command.h"
#include "support/schema_validation.h"

namespace gpubench::test_support {

// DDP and the sharded mode that gathers and frees parameters: both launched the same ways.
inline const std::vector<std::string> kLaunchedIds = {"mlp/cpu/fp32/ddp-2", "mlp/cpu/fp32/fsdp-2"};
inline const std::string kDdpFlags =
    " --matrix mlp/cpu/fp32/ddp-2,mlp/cpu/fp32/fsdp-2 --steps 6 --warmup 1 --batch-size 64 --threads 1 --format json";

inline std::string single_quoted(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// The row of `report_path`'s config `id` (the ddp-2 one by default), required ok.
inline nlohmann::json ok_ddp_row(const std::string& report_path, const std::string& id = kLaunchedIds.front()) {
  const auto report = read_json(report_path);
  EXPECT_EQ(schema_violations(report, GPUBENCH_REPORT_SCHEMA), "");
  const auto* row = find_row(report, id);
  if (row == nullptr) return nlohmann::json{{"status", "missing"}};
  EXPECT_EQ((*row)["status"], "ok") << row->dump();
  return *row;
}

// Same seed, same shards, same bucket order: the same steps and global loss curve.
inline void expect_same_training(const nlohmann::json& row, const nlohmann::json& own_row) {
  EXPECT_EQ(row["steps"], own_row["steps"]);
  const auto& curve = row["loss"]["curve"];
  const auto& own_curve = own_row["loss"]["curve"];
  ASSERT_EQ(curve.size(), own_curve.size());
  for (std::size_t i = 0; i < curve.size(); ++i)
    EXPECT_NEAR(curve[i].get<double>(), own_curve[i].get<double>(), 1e-6) << "step " << i;
}

// Every launched config of `report_path` against gpubench's own launcher on the same flags
// (run here into `dir`): the same steps and global loss curves.
inline void expect_same_training_as_own_launcher(const std::string& report_path, const std::string& dir) {
  const auto own = run_command(std::string("env -u RANK -u WORLD_SIZE -u SLURM_PROCID -u SLURM_NTASKS ") + GPUBENCH_EXE +
                               kDdpFlags + " --out " + dir + "/own.json");
  EXPECT_EQ(own.exit_code, 0) << own.output;
  for (const auto& id : kLaunchedIds) {
    SCOPED_TRACE(id);
    const nlohmann::json row = ok_ddp_row(report_path, id);
    EXPECT_EQ(row["config"]["parallel"], id.substr(id.rfind('/') + 1, id.rfind('-') - id.rfind('/') - 1));
    expect_same_training(row, ok_ddp_row(dir + "/own.json", id));
  }
}

inline int regular_files(const std::string& dir) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files += entry.is_regular_file() ? 1 : 0;
  return files;
}

}  // namespace gpubench::test_support
