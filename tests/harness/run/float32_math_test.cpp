// fp32 means IEEE fp32 on CUDA: LibTorch's default cuDNN TF32 made fp32 rows run TF32
// convolutions. The flags are LibTorch's global context: set and read back without a GPU.
#include "harness/run/float32_math.h"

#include <ATen/Context.h>
#include <gtest/gtest.h>

namespace gpubench {
namespace {

TEST(Float32Math, Fp32SwitchesOffTheTf32ThatLibTorchsDefaultsGiveConvolutions) {
  at::globalContext().setAllowTF32CuDNN(true);  // LibTorch's default (ATen/Context.h)
  at::globalContext().setAllowTF32CuBLAS(false);
  const nlohmann::json fp32 = apply_float32_math(Precision::Fp32);
  EXPECT_FALSE(at::globalContext().allowTF32CuDNN());
  EXPECT_FALSE(at::globalContext().allowTF32CuBLAS());
  EXPECT_EQ(fp32["convolution"], "ieee-fp32");
  EXPECT_EQ(fp32["matmul"], "ieee-fp32");

  const nlohmann::json tf32 = apply_float32_math(Precision::Tf32);
  EXPECT_TRUE(at::globalContext().allowTF32CuDNN());
  EXPECT_TRUE(at::globalContext().allowTF32CuBLAS());
  EXPECT_EQ(tf32["convolution"], "tf32");
  EXPECT_EQ(tf32["matmul"], "tf32");
}

TEST(Float32Math, AmpKeepsAndReportsWhatLibTorchWasSetTo) {
  at::globalContext().setAllowTF32CuDNN(true);
  at::globalContext().setAllowTF32CuBLAS(false);
  const nlohmann::json amp = apply_float32_math(Precision::AmpBf16);
  EXPECT_EQ(amp["convolution"], "tf32") << "read back, as a Python AMP loop gets it";
  EXPECT_EQ(amp["matmul"], "ieee-fp32");
  EXPECT_NE(amp["set_by"].get<std::string>().find("LibTorch's defaults"), std::string::npos);
}

}  // namespace
}  // namespace gpubench
