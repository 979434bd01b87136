// test/unit/kernels/unpool_test.cc - unpool: scatter to pooling indices, collisions, the output size rules, refusals, gradient.
#include <catch2/catch.hpp>

#include "kernels/unpool.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

k::UnpoolAttrs up(std::vector<int> output_size, int ksize = 2, int stride = 2, int pad = 0) {
  k::UnpoolAttrs a;
  a.ksize = {ksize, ksize};
  a.strides = {stride, stride};
  a.paddings = {pad, pad};
  a.output_size = std::move(output_size);
  return a;
}

}  // namespace

TEST_CASE("unpool: each value to its index, the later of two at one position, output sizes", "[unpool]") {
  // One image, two channels of 1 x 2 values into 2 x 3 planes.
  Tensor x = f32(Shape{1, 2, 1, 2}, {1, 2, 3, 4});
  Tensor idx = i32(Shape{1, 2, 1, 2}, {4, 0, 5, 5});
  Tensor out;
  k::unpool(x, idx, out, up({2, 3}));
  CHECK(out.shape() == Shape{1, 2, 2, 3});
  CHECK(values(out) == std::vector<double>{2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 4});
  // Without output_size (all zeros): (1 - 1) * 2 + 2 = 2 by (2 - 1) * 2 + 2 = 4; int64 indices.
  Tensor idx64 = i64(Shape{1, 2, 1, 2}, {7, 0, 1, 2});
  k::unpool(x, idx64, out, up({0, 0}));
  CHECK(out.shape() == Shape{1, 2, 2, 4});
  CHECK(values(out) == std::vector<double>{2, 0, 0, 0, 0, 0, 0, 1, 0, 3, 4, 0, 0, 0, 0, 0});
  Tensor far = i32(Shape{1, 2, 1, 2}, {4, 0, 6, 5});
  CHECK_THROWS_WITH(k::unpool(x, far, out, up({2, 3})), Catch::Contains("Indices holds 6, outside the 2 x 3"));
  Tensor neg = i32(Shape{1, 2, 1, 2}, {4, -1, 0, 5});
  CHECK_THROWS_WITH(k::unpool(x, neg, out, up({2, 3})), Catch::Contains("Indices holds -1"));
  Tensor flat = i32(Shape{1, 2, 2}, {0, 0, 0, 0});
  CHECK_THROWS_WITH(k::unpool(x, flat, out, up({2, 3})), Catch::Contains("Indices must be X's shape"));
  Tensor fidx = f32(Shape{1, 2, 1, 2}, {0, 0, 0, 0});
  CHECK_THROWS_WITH(k::unpool(x, fidx, out, up({2, 3})), Catch::Contains("Indices"));
  CHECK_THROWS_WITH(k::unpool(x, idx, out, up({2, -3})), Catch::Contains("must be positive"));
  CHECK_THROWS_WITH(k::unpool(x, idx, out, up({0, 0}, 2, 0)), Catch::Contains("must be positive"));
  k::UnpoolAttrs avg = up({2, 3});
  avg.unpooling_type = "avg";
  CHECK_THROWS_WITH(k::unpool(x, idx, out, avg), Catch::Contains("unpooling_type"));
  k::UnpoolAttrs nhwc = up({2, 3});
  nhwc.data_format = "NHWC";
  CHECK_THROWS_WITH(k::unpool(x, idx, out, nhwc), Catch::Contains("data_format must be NCHW"));
}

TEST_CASE("unpool_grad: finite differences over X", "[unpool][grad]") {
  std::mt19937 rng(5);
  Tensor x = random(Shape{2, 2, 2, 3}, DType::kFP64, rng);
  // Distinct positions per plane of a 3 x 4 output (a collision would make X's earlier value's
  // derivative 0 in the forward but not in Paddle's gather-style gradient).
  Tensor idx = i32(Shape{2, 2, 2, 3}, {0, 2, 3, 5, 8, 11, 1, 4, 6, 7, 9, 10, 11, 10, 9, 8, 7, 6, 0, 1, 2, 3, 4, 5});
  const k::UnpoolAttrs a = up({3, 4});
  CHECK_GRADCHECK_OP("unpool", {&x}, [&](Tensor& out) { k::unpool(x, idx, out, a); },
                     [&](const Tensor& dout, std::vector<Tensor*>& g) {
                       k::unpool_grad(x, idx, nullptr, dout, g[0], a);
                     });
}
