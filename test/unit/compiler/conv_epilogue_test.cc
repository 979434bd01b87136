// test/unit/compiler/conv_epilogue_test.cc - the activations the op table lets a convolution fuse are the ones its kernels apply.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "compiler/ops/registry.h"
#include "kernels/activation.h"
#include "kernels/activation_more.h"
#include "kernels/conv.h"
#include "kernels/elementwise.h"
#include "runtime/error.h"
#include "test/unit/kernels/kernel_test_util.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         std::memcmp(a.data<float>(), b.data<float>(), static_cast<size_t>(a.numel()) * sizeof(float)) == 0;
}

kernels::ConvAttrs padded() {
  kernels::ConvAttrs a;
  a.paddings = {1, 1};
  return a;
}

}  // namespace

// The pass writes fuse_activation = the op's type for every op whose entry
// has a ConvEpilogueFn; the kernels must apply each (kernels/cpu/conv_epilogue.h),
// and refuse the rest. (test/lit/inference/conv_epilogue.test checks the
// numbers of each against the unfused program, bit for bit.)
TEST_CASE("every activation with an epilogue form is one the conv kernels apply", "[ops][conv_epilogue]") {
  std::mt19937 rng(7);
  const Tensor x = random({1, 2, 5, 5}, rt::DType::kFP32, rng), w = random({3, 2, 3, 3}, rt::DType::kFP32, rng);
  const Tensor b = random({3}, rt::DType::kFP32, rng);
  int fusable = 0;
  for (const auto& def : ops::all_ops()) {
    if (!def.pointwise.empty() && def.inputs.size() == 1 && !def.conv_epilogue) {
      INFO("op " << def.type << " has no epilogue form");
      kernels::ConvAttrs a = padded();
      a.fuse_activation = def.type;
      Tensor y;
      CHECK_THROWS_AS(kernels::conv2d(x, w, &b, nullptr, y, a), rt::Error);
    }
    if (!def.conv_epilogue) continue;
    INFO("op " << def.type);
    ++fusable;
    CHECK(def.inputs.size() == 1);
    CHECK(def.outputs.size() == 1);
    pb::OpDesc op;
    op.set_type(def.type);
    kernels::ConvAttrs a = padded();
    a.fuse_activation = def.type;
    REQUIRE(def.conv_epilogue(op, a.fuse_alpha, a.fuse_beta));  // Paddle's defaults have the form
    Tensor y;
    CHECK_NOTHROW(kernels::conv2d(x, w, &b, nullptr, y, a));
    CHECK(y.shape() == Shape{1, 3, 5, 5});
  }
  CHECK(fusable >= 10);
}

TEST_CASE("a fused relu is the conv, the bias add and relu, bit for bit", "[ops][conv_epilogue]") {
  std::mt19937 rng(11);
  // 3x3 on 12x12 with 8 outputs takes the GEMM that makes its columns itself; 1x1 the plain one.
  for (int k : {1, 3}) {
    const Tensor x = random({2, 4, 12, 12}, rt::DType::kFP32, rng), w = random({8, 4, k, k}, rt::DType::kFP32, rng);
    const Tensor b = random({8}, rt::DType::kFP32, rng);
    kernels::ConvAttrs a;
    a.paddings = {k / 2, k / 2};
    Tensor c, s, ref, fused;
    kernels::conv2d(x, w, nullptr, nullptr, c, a);
    kernels::ElementwiseAttrs ea;
    ea.axis = 1;
    kernels::elementwise_add(c, b, s, ea);
    kernels::relu(s, ref);
    a.fuse_activation = "relu";
    kernels::conv2d(x, w, &b, nullptr, fused, a);
    INFO("kernel " << k);
    CHECK(same_bits(fused, ref));
  }
}

TEST_CASE("with ResidualData the fused activation comes after the residual", "[ops][conv_epilogue]") {
  std::mt19937 rng(13);
  const Tensor x = random({1, 2, 6, 6}, rt::DType::kFP32, rng), w = random({4, 2, 3, 3}, rt::DType::kFP32, rng);
  const Tensor b = random({4}, rt::DType::kFP32, rng), r = random({1, 4, 6, 6}, rt::DType::kFP32, rng);
  kernels::ConvAttrs a = padded();
  Tensor sum, ref, fused;
  kernels::conv2d(x, w, &b, &r, sum, a);
  kernels::Relu6Attrs ra;
  ra.threshold = 0.5f;
  kernels::relu6(sum, ref, ra);
  a.fuse_activation = "relu6";
  a.fuse_alpha = 0.5f;
  kernels::conv2d(x, w, &b, &r, fused, a);
  CHECK(same_bits(fused, ref));
}
