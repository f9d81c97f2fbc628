// End to end: the rules for where a matrix run may write, checked before anything is
// measured. No output is, or lies inside, an input or another output (links and `..`
// resolved); a path that is not UTF-8 is written, not lost after measuring.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/mnist_files.h"
#include "support/run_command.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using test_support::run_command;

const std::string kQuickRun = std::string(GPUBENCH_EXE) + " --matrix mlp/cpu/fp32 --steps 2 --warmup 0 --format json";

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Overlap {
  std::string args;     // flags after the quick run, with DATA and DIR replaced
  std::string message;  // what the refusal says
};

// The MNIST images file replaced by the report, exit 0, was the defect: every such pair is
// now exit 2 before measuring, and the input is untouched.
TEST(OutputRules, NoOutputIsOrLiesInsideAnInputOrAnotherOutput) {
  const std::string data = test_support::mnist_folder(16), images = data + "/train-images-idx3-ubyte";
  const std::string before = contents(images);
  const std::string dir = test_support::make_temp_dir("overlap");
  fs::create_directory_symlink(data, dir + "/data-link");
  const std::vector<Overlap> cases = {
      {"--data mlp=DATA --out DATA/train-images-idx3-ubyte", "--out 'DATA/train-images-idx3-ubyte' lies inside --data mlp"},
      {"--data mlp=DATA --out DIR/data-link/train-images-idx3-ubyte", "lies inside --data mlp ('DATA')"},
      {"--data mlp=DATA --out DATA/../" + fs::path(data).filename().string() + "/train-images-idx3-ubyte",
       "lies inside --data mlp ('DATA')"},
      {"--data mlp=DATA --out DATA/report.json", "--out 'DATA/report.json' lies inside --data mlp ('DATA')"},
      {"--data mlp=DATA --trace DATA/trace.json --out DIR/r.json", "--trace 'DATA/trace.json' lies inside --data mlp"},
      {"--data mlp=DATA --hta-dir DATA/traces --out DIR/r.json", "lies inside --data mlp"},
      {"--data mlp=DATA --hta-dir DIR/.. --out /dev/null", "is a folder holding --data mlp"},
      {"--hta-dir DIR/hta --out DIR/hta/r.json", "--out 'DIR/hta/r.json' lies inside --hta-dir"},
      {"--hta-dir DIR/hta --trace DIR/hta/mlp_cpu_fp32/rank-0.json --out DIR/r.json", "lies inside --hta-dir"},
  };
  const auto substitute = [&](std::string text) {
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"DATA", data}, {"DIR", dir}})
      for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
  };
  for (const Overlap& overlap : cases) {
    const auto result = run_command(kQuickRun + " --batch-size 4 " + substitute(overlap.args));
    EXPECT_EQ(result.exit_code, 2) << overlap.args << ": " << result.output;
    EXPECT_NE(result.output.find(substitute(overlap.message)), std::string::npos) << result.output;
    EXPECT_EQ(result.output.find("samples/s"), std::string::npos) << "nothing is measured: " << result.output;
  }
  EXPECT_EQ(contents(images), before);
  // A data file itself (gpt2's train.bin), named through a link.
  const std::string bin = dir + "/train.bin";
  std::ofstream(bin, std::ios::binary) << std::string(2 * 2000, '\x01');
  fs::create_symlink(bin, dir + "/tokens-link");
  const auto same = run_command(std::string(GPUBENCH_EXE) + " --matrix gpt2/cpu/fp32 --data gpt2=" + dir +
                                "/tokens-link --out " + bin);
  EXPECT_EQ(same.exit_code, 2) << same.output;
  EXPECT_NE(same.output.find("--out '" + bin + "' is --data gpt2 ('" + dir + "/tokens-link'): it would overwrite an input"),
            std::string::npos)
      << same.output;
  EXPECT_EQ(fs::file_size(bin), 4000u);
  EXPECT_FALSE(fs::exists(dir + "/hta")) << "--hta-dir is not created for a refused run";
  fs::remove_all(data);
  fs::remove_all(dir);
}

// nlohmann/json refuses to write a string that is not UTF-8; a Latin-1 file name in
// --out, --trace or --hta-dir (and so in the command line the report records) lost the
// report after measuring, exit 1. They are written, the bad byte as U+FFFD in the text.
TEST(OutputRules, PathsThatAreNotUtf8AreWrittenAfterMeasuring) {
  const std::string dir = test_support::make_temp_dir("latin1");
  const std::string out = dir + "/r\xe9sultat.json", trace = dir + "/trace-\xff.json", hta = dir + "/hta-\xe9";
  const auto result = run_command(kQuickRun + " --out '" + out + "' --trace '" + trace + "' --hta-dir '" + hta + "'");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json report = nlohmann::json::parse(contents(out));
  EXPECT_EQ(report["results"][0]["status"], "ok");
  EXPECT_NE(report["command"].get<std::string>().find("r\xef\xbf\xbdsultat.json"), std::string::npos)
      << report["command"];
  EXPECT_TRUE(nlohmann::json::accept(contents(trace)));
  EXPECT_TRUE(fs::exists(hta + "/mlp_cpu_fp32/rank-0.json"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpubench
