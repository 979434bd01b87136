// test/unit/kernels/reshape_test.cc - flatten/squeeze/unsqueeze/transpose2: shapes, values, errors, gradients.
#include <catch2/catch.hpp>

#include "kernels/reshape.h"
#include "kernels/tensor_manip.h"
#include "kernels/shapes/reshape.h"
#include "kernels/transpose.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

kernels::TransposeAttrs perm(std::vector<int> axis) {
  kernels::TransposeAttrs a;
  a.axis = std::move(axis);
  return a;
}

}  // namespace

TEST_CASE("flatten_contiguous_range merges a dim range and records XShape", "[reshape]") {
  Tensor x = iota(Shape{2, 3, 4, 5}), out, xshape;
  kernels::FlattenAttrs a;
  a.start_axis = 1, a.stop_axis = -2;
  kernels::flatten_contiguous_range(x, out, &xshape, a);
  CHECK(out.shape() == Shape{2, 12, 5});
  CHECK(xshape.shape() == Shape{0, 2, 3, 4, 5});
  CHECK(out.data<float>()[119] == 119.0f);
  a.start_axis = 2, a.stop_axis = 1;
  CHECK_THROWS_WITH(kernels::flatten_contiguous_range(x, out, nullptr, a), Catch::Contains("after stop_axis"));
  a.start_axis = 0, a.stop_axis = 4;
  CHECK_THROWS_WITH(kernels::flatten_contiguous_range(x, out, nullptr, a), Catch::Contains("out of range"));
}

TEST_CASE("squeeze2 drops listed size-1 dims and keeps others, as Paddle 2.x", "[reshape]") {
  Shape out;
  CHECK(shapes::squeeze_shape(Shape{3, 1, 4, 1}, std::vector<int>{1, -1}, out).empty());
  CHECK(out == Shape{3, 4});
  CHECK(shapes::squeeze_shape(Shape{3, 1, 4}, std::vector<int>{0}, out).empty());
  CHECK(out == Shape{3, 1, 4});  // dim 0 is 3: kept
  CHECK(shapes::squeeze_shape(Shape{1, 3, 1}, std::vector<int>{}, out).empty());
  CHECK(out == Shape{3});
  CHECK_FALSE(shapes::squeeze_shape(Shape{3, 1}, std::vector<int>{2}, out).empty());
}

TEST_CASE("unsqueeze2 inserts axes in order with Paddle's rule", "[reshape]") {
  Shape out;
  CHECK(shapes::unsqueeze_shape(Shape{3, 4}, std::vector<int>{0, -1}, out).empty());
  CHECK(out == Shape{1, 3, 4, 1});
  CHECK(shapes::unsqueeze_shape(Shape{3, 4}, std::vector<int>{2, 0, 1}, out).empty());
  CHECK(out == Shape{1, 1, 3, 4, 1});  // the mark at 2 moves on as 0 and 1 go in before it
  CHECK_FALSE(shapes::unsqueeze_shape(Shape{3, 4}, std::vector<int>{4}, out).empty());
  Tensor x = iota(Shape{3, 4}), y, axes = i64(Shape{2}, {1, 1});
  kernels::unsqueeze2(x, &axes, nullptr, 0, y, nullptr, {});
  CHECK(y.shape() == Shape{3, 1, 1, 4});
}

TEST_CASE("transpose2 permutes values; bad permutations are refused", "[transpose]") {
  Tensor x = iota(Shape{2, 3, 4}), out, xshape;
  kernels::transpose2(x, out, &xshape, perm({2, 0, 1}));
  REQUIRE(out.shape() == Shape{4, 2, 3});
  // out[k][i][j] = x[i][j][k] = 12 i + 4 j + k
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) CHECK(out.data<float>()[k * 6 + i * 3 + j] == 12 * i + 4 * j + k);
  CHECK(xshape.shape() == Shape{0, 2, 3, 4});
  CHECK_THROWS_WITH(kernels::transpose2(x, out, nullptr, perm({0, 0, 1})), Catch::Contains("permutation"));
  CHECK_THROWS_WITH(kernels::transpose2(x, out, nullptr, perm({1, 0})), Catch::Contains("2 entries"));
  // In place (out == x) goes through a scratch buffer.
  kernels::transpose2(x, x, nullptr, perm({-1, 0, 1}));
  CHECK(x.shape() == Shape{4, 2, 3});
  CHECK(x.data<float>()[1] == 4.0f);
}

TEST_CASE("reshape-like and transpose gradients pass finite differences", "[reshape][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    std::mt19937 rng(5);
    Tensor x = random(Shape{2, 1, 3, 2}, dt, rng, -1, 1, 0.1), xshape;
    const auto opt = GradCheckOptions::for_dtype(dt);
    auto back = [&](auto grad) {
      return [&, grad](const Tensor& dout, std::vector<Tensor*>& g) { grad(xshape, dout, g[0]); };
    };
    kernels::FlattenAttrs fa;
    CHECK_GRADCHECK_OP("flatten_contiguous_range", {&x},
                       [&](Tensor& out) { kernels::flatten_contiguous_range(x, out, &xshape, fa); },
                       back(kernels::flatten_contiguous_range_grad), opt);
    kernels::Squeeze2Attrs sa;
    CHECK_GRADCHECK_OP("squeeze2", {&x}, [&](Tensor& out) { kernels::squeeze2(x, out, &xshape, sa); },
                       back(kernels::squeeze2_grad), opt);
    kernels::Unsqueeze2Attrs ua;
    ua.axes = {0, 3};
    CHECK_GRADCHECK_OP("unsqueeze2", {&x},
                       [&](Tensor& out) { kernels::unsqueeze2(x, nullptr, nullptr, 0, out, &xshape, ua); },
                       back(kernels::unsqueeze2_grad), opt);
    const auto ta = perm({3, 0, 2, 1});
    CHECK_GRADCHECK_OP("transpose2", {&x}, [&](Tensor& out) { kernels::transpose2(x, out, &xshape, ta); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::transpose2_grad(xshape, dout, g[0], ta);
                       },
                       opt);
    // Fluid 1.x's spellings: flatten2 (2-D), reshape and transpose (no XShape; their gradients read X).
    kernels::Flatten2Attrs f2;
    f2.axis = 2;
    CHECK_GRADCHECK_OP("flatten2", {&x}, [&](Tensor& out) { kernels::flatten2(x, out, &xshape, f2); },
                       back(kernels::flatten2_grad), opt);
    kernels::Reshape2Attrs ra;
    ra.shape = {3, -1};
    CHECK_GRADCHECK_OP("reshape", {&x}, [&](Tensor& out) { kernels::reshape(x, nullptr, nullptr, 0, out, ra); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::reshape_grad(x, nullptr, nullptr, 0, nullptr, dout, g[0]);
                       },
                       opt);
    CHECK_GRADCHECK_OP("transpose", {&x}, [&](Tensor& out) { kernels::transpose(x, out, ta); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::transpose_grad(x, nullptr, dout, g[0], ta);
                       },
                       opt);
  }
}

TEST_CASE("Fluid 1.x's flatten2 and expand check their attributes", "[reshape]") {
  Tensor x, out;
  x.resize(Shape{2, 3, 4}, DType::kFP32);
  kernels::Flatten2Attrs f2;
  f2.axis = 0;
  kernels::flatten2(x, out, nullptr, f2);
  CHECK(out.shape() == Shape{1, 24});
  f2.axis = 4;
  CHECK_THROWS_WITH(kernels::flatten2(x, out, nullptr, f2), Catch::Contains("axis 4 is out of range [0, 3]"));
  kernels::ExpandAttrs ea;
  ea.expand_times = {2, 1};
  CHECK_THROWS_WITH(kernels::expand(x, nullptr, nullptr, 0, out, ea),
                    Catch::Contains("expand_times has 2 entries for a rank-3 X"));
}
