// End to end: every bad input exits 2 with a message naming the value and what was
// expected, before anything is measured.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>

#include "support/run_command.h"

namespace gpubench {
namespace {

using test_support::run_command;

struct BadInput {
  const char* args;
  const char* message;  // a fragment the error must contain
};

class BadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputTest, ExitsTwoWithAClearMessage) {
  // From a scratch directory: should a bad input slip through, its report lands there.
  const auto result = run_command("cd " + test_support::make_temp_dir("bad") + " && " + GPUBENCH_EXE + " " + GetParam().args);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find(GetParam().message), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("gpubench: error:"), std::string::npos) << result.output;
}

INSTANTIATE_TEST_SUITE_P(
    Cli, BadInputTest,
    ::testing::Values(
        BadInput{"--matrix everything", "'everything' is neither a group"},
        BadInput{"--matrix mlp/cpu/fp16", "precision 'fp16' is unknown"},
        BadInput{"--matrix resnet/cpu/fp32", "workload 'resnet' is unknown"},
        BadInput{"--workload resnet", "--workload 'resnet' is unknown"},
        BadInput{"--steps 0", "--steps '0' is invalid"},
        BadInput{"--steps -3", "--steps '-3' is invalid"},
        BadInput{"--steps many", "--steps 'many' is invalid"},
        BadInput{"--warmup -1", "--warmup '-1' is invalid"},
        BadInput{"--batch-size 0", "--batch-size '0' is invalid"},
        BadInput{"--matrix mlp/cpu/fp32 --batch-size 999999", "larger than the mlp dataset"},
        BadInput{"--threads 0", "--threads '0' is invalid"},
        BadInput{"--workers -2", "--workers '-2' is invalid"},
        BadInput{"--seed x1", "--seed 'x1' is invalid"},
        BadInput{"--preset turbo", "--preset 'turbo' is unknown"},
        BadInput{"--format xml", "--format 'xml' is unknown"},
        BadInput{"--matrix mlp/cpu/fp32 --out /nonexistent-dir/r.json", "directory '/nonexistent-dir': No such file"},
        BadInput{"--matrix mlp/cpu/fp32 --out /proc/gpubench.json", "cannot create '/proc/gpubench.json.tmp."},
        BadInput{"--matrix mlp/cpu/fp32 --out /etc/passwd/r.json", "'/etc/passwd' is not a directory"},
        BadInput{"--matrix mlp/cpu/fp32 --out /tmp", "--out '/tmp' cannot be written: it is a directory"},
        BadInput{"--matrix mlp/cpu/fp32 --trace /tmp", "--trace '/tmp' cannot be written: it is a directory"},
        BadInput{"--matrix mlp/cpu/fp32 --data ''", "--data is empty"},
        BadInput{"--matrix mlp/cpu/fp32 --ceilings ''", "--ceilings is empty"},
        BadInput{"--matrix mlp/cpu/fp32 --trace ''", "--trace is empty"},
        BadInput{"--matrix mlp/cpu/fp32 --profile-steps ''", "--profile-steps is empty"},
        BadInput{"--matrix mlp/cpu/fp32 --format ''", "--format is empty"},
        BadInput{"--matrix ''", "--matrix is empty"},
        BadInput{"compare a.json b.json --threshold ''", "--threshold is empty"},
        BadInput{"--workload cnn --matrix mlp/cpu/fp32", "runs workload mlp but --workload 'cnn' leaves it out"},
        BadInput{"--steps abc compare a.json b.json", "--steps is a flag of the matrix run, not of compare"},
        BadInput{"--matrix mlp/cpu/fp32 --out same.json --trace same.json", "--out 'same.json' is --trace ('same.json')"},
        BadInput{"--matrix mlp/cpu/fp32 --ceilings c.json --out c.json", "--out 'c.json' is --ceilings"},
        BadInput{"--threads 4096", "--threads '4096' is invalid: expected a whole number from 1 to"},
        BadInput{"--child-config mlp/cpu/fp32 --child-result /nonexistent-dir/r.json",
                 "--child-result '/nonexistent-dir/r.json' is not in a private folder of a gpubench parent"},
        BadInput{"--child-config mlp/cpu/fp32 --child-result report.json",
                 "--child-result 'report.json' is not in a private folder"},
        BadInput{"--matrix mlp/cpu/fp32 --hta-dir /proc", "--hta-dir '/proc' is not a folder this user can create or "
                                                          "write (cannot create a file in it"},
        // Numbers are plain decimal text, the same for every flag: no blanks, '+', hex or nan.
        BadInput{"--steps ' 5'", "--steps ' 5' is invalid"},
        BadInput{"--steps '+3'", "--steps '+3' is invalid"},
        BadInput{"--steps '5 '", "--steps '5 ' is invalid"},
        BadInput{"--bucket-mb 0x10", "--bucket-mb '0x10' is invalid: expected a size in MiB above 0"},
        BadInput{"--comm-timeout inf", "--comm-timeout 'inf' is invalid"},
        BadInput{"--test-step-delay-ms nan", "--test-step-delay-ms 'nan' is invalid"},
        BadInput{"--test-step-delay-ms -5", "--test-step-delay-ms '-5' is invalid"},
        BadInput{"--matrix 'mlp/cpu/fp32,'", "--matrix 'mlp/cpu/fp32,' has an empty item"},
        BadInput{"--matrix ','", "--matrix ',' has an empty item"},
        BadInput{"--workload 'mlp,'", "--workload 'mlp,' has an empty item"},
        // An id with control bytes is echoed escaped (dash has no $'...': printf makes the ESC).
        BadInput{"--matrix \"$(printf 'mlp/cpu/\\033[31mfp32')\"", "config id 'mlp/cpu/\\x1b[31mfp32'"},
        // ... and a newline too: a given name cannot start a line that seems gpubench's own
        // (issue 61, item 19).
        BadInput{"--list --matrix \"$(printf 'mlp/cpu/fp32\\nFAKE LINE')\"", "config id 'mlp/cpu/fp32\\nFAKE LINE'"},
        BadInput{"--nproc 1024 --matrix mlp/cpu/fp32,mlp/cpu/fp32/ddp-2",
                 "--nproc 1024: none of the 2 config(s) of --matrix 'mlp/cpu/fp32,mlp/cpu/fp32/ddp-2' would run"},
        BadInput{"--matrix mlp/cpu/fp32 --data /nonexistent-dir", "is not a directory"},
        BadInput{"--matrix cnn/cpu/fp32 --data /tmp", "names no workload and this matrix runs none that reads data"},
        BadInput{"--matrix mlp/cpu/fp32,gpt2/cpu/fp32 --data /tmp", "this matrix runs several that do (mlp, gpt2)"},
        BadInput{"--matrix cnn/cpu/fp32 --data cnn=/tmp", "cnn trains on synthetic data only"},
        BadInput{"--matrix mlp/cpu/fp32 --data gpt2=/tmp/t.bin", "is for the gpt2 workload, which this matrix does not run"},
        BadInput{"--matrix mlp/cpu/fp32 --data mlp=/tmp --data mlp=/var", "--data is given twice for mlp"},
        BadInput{"--matrix mlp/cpu/fp32 --data mlp=", "--data 'mlp=' names no path"},
        BadInput{"--matrix resnet50/cpu/fp32 --data resnet50=/nonexistent-dir", "is not a directory: expected an ImageFolder"},
        BadInput{"--matrix resnet50/cpu/fp32 --data resnet50=/proc/self", "class folder"},
        BadInput{"--matrix gpt2/cpu/fp32 --data gpt2=/nonexistent.bin", "--data gpt2='/nonexistent.bin' cannot be opened"},
        BadInput{"--matrix gpt2/cpu/fp32 --data gpt2=/tmp", "is not a regular file: expected a token file (uint16 token ids"},
        BadInput{"--matrix gpt2/cpu/fp32/channels-last", "channels-last does not apply to gpt2"},
        BadInput{"--matrix mlp/cuda/amp-bf16/acc4/graph", "graph with accK: graph captures one whole step of one batch"},
        BadInput{"--matrix mlp/cuda/amp-bf16/ddp-2/graph", "graph with ddp-N: "},
        BadInput{"--matrix mlp/cpu/fp32/acc4 --accumulate 2", "--accumulate 2 contradicts config id 'mlp/cpu/fp32/acc4'"},
        BadInput{"--matrix mlp/cpu/fp32/ckpt", "ckpt does not apply to mlp"},
        BadInput{"--matrix mlp/cpu/fp32 --seed 4294967296", "--seed '4294967296' is invalid: expected a whole number from 0 to 4294967295"},
        BadInput{"--matrix mlp/cpu/fp32/ddp-2 --batch-size 10000", "larger than each rank's shard of the mlp dataset"},
        BadInput{"--max-image-pixels 0", "--max-image-pixels '0' is invalid"},
        BadInput{"--matrix gpt2/cpu/fp32 --batch-size 4096", "larger than the gpt2 dataset (2048 samples"},
        BadInput{"--config-timeout 0", "--config-timeout '0' is invalid"},
        BadInput{"--profile-steps 5:2", "--profile-steps '5:2' is invalid"},
        BadInput{"--frobnicate", "frobnicate"},
        BadInput{"--overhead --trace t.json", "--overhead cannot be combined with --trace"},
        BadInput{"--overhead --hta-dir traces", "--overhead cannot be combined with --hta-dir"},
        BadInput{"--matrix mlp/cpu/fp32 --hta-dir ''", "--hta-dir is empty"},
        BadInput{"--matrix mlp/cpu/fp32 --hta-dir /etc/passwd", "--hta-dir '/etc/passwd' is not a folder this user can create or write"},
        BadInput{"--overhead --profile-steps 2:4", "--overhead cannot be combined with --profile-steps"},
        BadInput{"--overhead --steps 10", "--steps 10 is too few for --overhead: expected at least 30"},
        BadInput{"--matrix mlp/cpu/fp32 --ceilings /nonexistent-ceilings.json", "cannot read ceilings file"},
        BadInput{"compare /nonexistent-a.json /nonexistent-b.json", "BASE report '/nonexistent-a.json'"},
        BadInput{"compare a.json", "NEW"}),
    [](const ::testing::TestParamInfo<BadInput>& info) {
      std::string name;
      for (const char* c = info.param.args; *c; ++c) name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
      return std::to_string(info.index) + "_" + name;
    });

TEST(BadInput, CorruptMnistFileIsNamed) {
  const std::string dir = test_support::make_temp_dir("idx");
  std::ofstream(dir + "/train-images-idx3-ubyte") << "not an idx file";
  std::ofstream(dir + "/train-labels-idx1-ubyte") << "";
  const auto result = run_command(std::string(GPUBENCH_EXE) + " --matrix mlp/cpu/fp32 --data " + dir);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("train-images-idx3-ubyte"), std::string::npos) << result.output;
}

TEST(BadInput, OutputNameTooLongIsFoundBeforeRunning) {
  const auto result = run_command(std::string(GPUBENCH_EXE) + " --matrix mlp/cpu/fp32 --out /tmp/" + std::string(300, 'r') + ".json");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("its name is 305 bytes, more than the 255 a file name may have"), std::string::npos)
      << result.output;
}

TEST(BadInput, OutputOverTheExecutableItselfIsRefused) {
  const auto result = run_command(std::string(GPUBENCH_EXE) + " --matrix mlp/cpu/fp32 --out " + GPUBENCH_EXE);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("is the gpubench executable"), std::string::npos) << result.output;
}

TEST(BadInput, AnUnusableTmpdirIsNamed) {
  const auto result = run_command("TMPDIR=/nonexistent-gpubench-tmp " + std::string(GPUBENCH_EXE) +
                                  " --matrix mlp/cpu/fp32 --steps 2 --out /dev/null");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("cannot create a private directory /nonexistent-gpubench-tmp/gpubench-XXXXXX"),
            std::string::npos)
      << result.output;
}

TEST(BadInput, HelpAndVersionExitZero) {
  EXPECT_EQ(run_command(std::string(GPUBENCH_EXE) + " --help").exit_code, 0);
  const auto version = run_command(std::string(GPUBENCH_EXE) + " --version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.output.find("gpubench "), std::string::npos);
}

}  // namespace
}  // namespace gpubench
