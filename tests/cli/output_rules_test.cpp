// End to end: the rules for where a matrix run may write, checked before anything is
// measured. No output is, or lies inside, an input or another output (links and `..`
// resolved, also the links an ImageFolder tree's walk follows); $TMPDIR, where the run's
// private folder goes, is not inside an input folder; a path that is not UTF-8 is written,
// not lost after measuring.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/image_files.h"
#include "support/mnist_files.h"
#include "support/run_command.h"
#include "support/file_text.h"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using test_support::run_command;

const std::string kQuickJsonRun = std::string(GPUBENCH_EXE) + " --matrix mlp/cpu/fp32 --steps 2 --warmup 0 --format json";
const std::string kResNetRun =
    std::string(GPUBENCH_EXE) + " --matrix resnet50/cpu/fp32 --steps 1 --warmup 0 --batch-size 1 --format json";

using test_support::file_text;

struct Overlap {
  std::string args;     // flags after the quick run, with DATA and DIR replaced
  std::string message;  // what the refusal says
};

// The MNIST images file replaced by the report, exit 0, was the defect: every such pair is
// now exit 2 before measuring, and the input is untouched.
TEST(OutputRules, NoOutputIsOrLiesInsideAnInputOrAnotherOutput) {
  const std::string data = test_support::mnist_folder(16), images = data + "/train-images-idx3-ubyte";
  const std::string before = file_text(images);
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
    const auto result = run_command(kQuickJsonRun + " --batch-size 4 " + substitute(overlap.args));
    EXPECT_EQ(result.exit_code, 2) << overlap.args << ": " << result.output;
    EXPECT_NE(result.output.find(substitute(overlap.message)), std::string::npos) << result.output;
    EXPECT_EQ(result.output.find("samples/s"), std::string::npos) << "nothing is measured: " << result.output;
  }
  EXPECT_EQ(file_text(images), before);
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

// An ImageFolder tree whose walk leaves it through links: DATA/n02 -> X (a class folder),
// DATA/n01/more -> Y (a folder under one), DATA/n01/linked.jpg -> Z/3.jpg (an image).
struct LinkedTree {
  std::string dir, data, x, y, z;
  LinkedTree() : dir(fs::canonical(test_support::make_temp_dir("linked-tree")).string()) {
    data = dir + "/data", x = dir + "/x", y = dir + "/y", z = dir + "/z";
    for (const std::string& folder : {data + "/n01", x, y, z}) fs::create_directories(folder);
    for (const std::string& image : {data + "/n01/a.jpg", x + "/1.jpg", y + "/2.jpg", z + "/3.jpg"})
      test_support::write_bytes(image, test_support::encode_jpeg(32, 24, 100));
    fs::create_directory_symlink(x, data + "/n02");
    fs::create_directory_symlink(y, data + "/n01/more");
    fs::create_symlink(z + "/3.jpg", data + "/n01/linked.jpg");
  }
  ~LinkedTree() { fs::remove_all(dir); }
  std::string substitute(std::string text) const {
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"<DATA>", data}, {"<DIR>", dir}, {"<X>", x}, {"<Y>", y}, {"<Z>", z}})
      for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
  }
};

// Issue 40: with a class folder that links to X (the walk follows it), `--out X/1.jpg` ran
// and replaced a training image with the report, exit 0. Every folder the walk follows is
// an input, resolved, and so is an image it reaches through a file link.
TEST(OutputRules, NoOutputLiesInsideAFolderOrIsAnImageTheImageWalkReachesThroughALink) {
  const LinkedTree tree;
  const std::string image = file_text(tree.x + "/1.jpg"), linked = file_text(tree.z + "/3.jpg");
  const std::string via_n02 = "a folder of --data resnet50 ('<DATA>') through the link '<DATA>/n02' ('<X>'): it would overwrite an input";
  const std::vector<Overlap> cases = {
      {"--out <X>/1.jpg", "--out '<X>/1.jpg' lies inside " + via_n02},
      {"--out <DIR>/data/n02/../x/1.jpg", "lies inside " + via_n02},
      {"--trace <X>/trace.json --out <DIR>/r.json", "--trace '<X>/trace.json' lies inside " + via_n02},
      {"--hta-dir <X>/hta --out <DIR>/r.json", "--hta-dir '<X>/hta' lies inside " + via_n02},
      {"--out <Y>/r.json", "--out '<Y>/r.json' lies inside a folder of --data resnet50 ('<DATA>') through the link '<DATA>/n01/more' ('<Y>')"},
      {"--out <Z>/3.jpg", "--out '<Z>/3.jpg' is an image --data resnet50 ('<DATA>') reads through the link '<DATA>/n01/linked.jpg': "
                        "it would overwrite an input"},
  };
  for (const Overlap& overlap : cases) {
    const auto result = run_command(kResNetRun + " --data resnet50=" + tree.data + " " + tree.substitute(overlap.args));
    EXPECT_EQ(result.exit_code, 2) << overlap.args << ": " << result.output;
    EXPECT_NE(result.output.find(tree.substitute(overlap.message)), std::string::npos) << result.output;
    EXPECT_EQ(result.output.find("[1/1]"), std::string::npos) << "nothing ran: " << result.output;
  }
  EXPECT_EQ(file_text(tree.x + "/1.jpg"), image);
  EXPECT_EQ(file_text(tree.z + "/3.jpg"), linked);
  EXPECT_FALSE(fs::exists(tree.x + "/hta")) << "--hta-dir is not created for a refused run";
}

// Issue 40: TMPDIR set to the --data root made the run's private folder (mkdtemp under
// $TMPDIR) an empty class of the tree: the config failed mid-matrix, exit 0. Now TMPDIR
// that is, or lies inside, an input folder (one a link leads to too) is refused before
// anything runs; --list makes no private folder and is not refused.
TEST(OutputRules, TmpdirInsideAnInputFolderIsRefusedBeforeAnythingRuns) {
  const LinkedTree tree;
  const std::string mnist = test_support::mnist_folder(16);
  const std::string why = "gpubench makes the run's private folder there, and it would be read as input";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"TMPDIR=<DATA> " + kResNetRun + " --data resnet50=<DATA> --out <DIR>/r.json", "TMPDIR '<DATA>' is --data resnet50 ('<DATA>'): " + why},
      {"TMPDIR=<DATA>/n01/ " + kResNetRun + " --data resnet50=<DATA> --out <DIR>/r.json",
       "TMPDIR '<DATA>/n01/' lies inside --data resnet50 ('<DATA>'): " + why},
      {"TMPDIR=<X> " + kResNetRun + " --data resnet50=<DATA> --out <DIR>/r.json",
       "TMPDIR '<X>' is a folder of --data resnet50 ('<DATA>') through the link '<DATA>/n02' ('<X>')"},
      {"TMPDIR=" + mnist + " " + kQuickJsonRun + " --batch-size 4 --data mlp=" + mnist + " --out <DIR>/r.json",
       "TMPDIR '" + mnist + "' is --data mlp ('" + mnist + "')"},
  };
  for (const auto& [command, message] : cases) {
    const auto result = run_command(tree.substitute(command));
    EXPECT_EQ(result.exit_code, 2) << command << ": " << result.output;
    EXPECT_NE(result.output.find(tree.substitute(message)), std::string::npos) << result.output;
    EXPECT_EQ(result.output.find("[1/1]"), std::string::npos) << "nothing ran: " << result.output;
  }
  for (const std::string& input : {tree.data, tree.data + "/n01", tree.x, mnist})
    for (const auto& entry : fs::directory_iterator(input))
      EXPECT_NE(entry.path().filename().string().rfind("gpubench-", 0), 0u) << "a private folder left in " << entry.path();
  const auto list = run_command(tree.substitute("TMPDIR=<DATA> " + kResNetRun + " --data resnet50=<DATA> --list"));
  EXPECT_EQ(list.exit_code, 0) << list.output;
  fs::create_directory(tree.dir + "/tmp");
  const auto outside = run_command(tree.substitute("TMPDIR=<DIR>/tmp " + kQuickJsonRun + " --batch-size 4 --data mlp=" + mnist +
                                                   " --out <DIR>/r.json"));
  EXPECT_EQ(outside.exit_code, 0) << "TMPDIR outside every input: " << outside.output;
  fs::remove_all(mnist);
}

// nlohmann/json refuses to write a string that is not UTF-8; a Latin-1 file name in
// --out, --trace or --hta-dir (and so in the command line the report records) lost the
// report after measuring, exit 1. They are written, the bad byte as U+FFFD in the text.
TEST(OutputRules, PathsThatAreNotUtf8AreWrittenAfterMeasuring) {
  const std::string dir = test_support::make_temp_dir("latin1");
  const std::string out = dir + "/r\xe9sultat.json", trace = dir + "/trace-\xff.json", hta = dir + "/hta-\xe9";
  const auto result = run_command(kQuickJsonRun + " --out '" + out + "' --trace '" + trace + "' --hta-dir '" + hta + "'");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json report = nlohmann::json::parse(file_text(out));
  EXPECT_EQ(report["results"][0]["status"], "ok");
  EXPECT_NE(report["command"].get<std::string>().find("r\xef\xbf\xbdsultat.json"), std::string::npos)
      << report["command"];
  EXPECT_TRUE(nlohmann::json::accept(file_text(trace)));
  EXPECT_TRUE(fs::exists(hta + "/mlp_cpu_fp32/rank-0.json"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpubench
