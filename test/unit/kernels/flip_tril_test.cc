// test/unit/kernels/flip_tril_test.cc - flip, reverse (Fluid 1.x), diagonal and tril_triu: hand-computed values, dtypes, errors, gradients.
#include <catch2/catch.hpp>

#include <numeric>

#include "kernels/tensor_manip.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::FlipAttrs;
using kernels::TrilTriuAttrs;

namespace {

FlipAttrs flip_axes(std::vector<int> axes) {
  FlipAttrs a;
  a.axis = std::move(axes);
  return a;
}

TrilTriuAttrs tri(int diagonal, bool lower) {
  TrilTriuAttrs a;
  a.diagonal = diagonal;
  a.lower = lower;
  return a;
}

}  // namespace

TEST_CASE("flip: one or several axes, any dtype, in place", "[flip]") {
  Tensor out;
  kernels::flip(iota(Shape{2, 3}), out, flip_axes({1}));
  CHECK(values(out) == std::vector<double>{2, 1, 0, 5, 4, 3});
  kernels::flip(iota(Shape{2, 3}), out, flip_axes({0}));
  CHECK(values(out) == std::vector<double>{3, 4, 5, 0, 1, 2});
  kernels::flip(iota(Shape{2, 2, 2}), out, flip_axes({0, -1}));
  CHECK(values(out) == std::vector<double>{5, 4, 7, 6, 1, 0, 3, 2});
  kernels::flip(i64(Shape{3}, {7, 8, 9}), out, flip_axes({0}));
  CHECK(values(out) == std::vector<double>{9, 8, 7});
  Tensor x = iota(Shape{4});
  kernels::flip(x, x, flip_axes({0}));
  CHECK(values(x) == std::vector<double>{3, 2, 1, 0});
  CHECK_THROWS_WITH(kernels::flip(iota(Shape{2}), out, flip_axes({1})), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(kernels::flip(iota(Shape{2}), out, flip_axes({0, -1})), Catch::Contains("twice"));
}

TEST_CASE("tril_triu: diagonals above and below, batches", "[tril_triu]") {
  Tensor out;
  const Tensor x = iota(Shape{3, 4});
  kernels::tril_triu(x, out, tri(0, true));
  CHECK(values(out) == std::vector<double>{0, 0, 0, 0, 4, 5, 0, 0, 8, 9, 10, 0});
  kernels::tril_triu(x, out, tri(1, false));
  CHECK(values(out) == std::vector<double>{0, 1, 2, 3, 0, 0, 6, 7, 0, 0, 0, 11});
  kernels::tril_triu(x, out, tri(-1, true));
  CHECK(values(out) == std::vector<double>{0, 0, 0, 0, 4, 0, 0, 0, 8, 9, 0, 0});
  kernels::tril_triu(x, out, tri(-5, false));  // everything kept
  CHECK(values(out) == values(x));
  kernels::tril_triu(iota(Shape{2, 2, 2}), out, tri(0, false));
  CHECK(values(out) == std::vector<double>{0, 1, 0, 3, 4, 5, 0, 7});
  CHECK_THROWS_WITH(kernels::tril_triu(iota(Shape{3}), out, tri(0, true)), Catch::Contains("rank >= 2"));
}

TEST_CASE("flip and tril_triu: gradients", "[flip]") {
  for (DType dt : {DType::kFP64, DType::kFP32}) {
    std::mt19937 rng(3);
    Tensor x = random(Shape{2, 3, 4}, dt, rng);
    const FlipAttrs fa = flip_axes({0, 2});
    // flip's gradient rule is flip itself.
    CHECK_GRADCHECK_OP("flip", {&x}, [&](Tensor& out) { kernels::flip(x, out, fa); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) { kernels::flip(dout, *g[0], fa); });
    const TrilTriuAttrs ta = tri(1, true);
    CHECK_GRADCHECK_OP("tril_triu", {&x}, [&](Tensor& out) { kernels::tril_triu(x, out, ta); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) { kernels::tril_triu_grad(dout, g[0], ta); });
  }
}

TEST_CASE("reverse (Fluid 1.x) is flip under its own name, gradient included", "[flip]") {
  Tensor out;
  kernels::reverse(i64(Shape{2, 3}, {1, 2, 3, 4, 5, 6}), out, flip_axes({0, -1}));
  CHECK(values(out) == std::vector<double>{6, 5, 4, 3, 2, 1});
  kernels::reverse(f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6}), out, flip_axes({1}));
  CHECK(values(out) == std::vector<double>{3, 2, 1, 6, 5, 4});
  CHECK_THROWS_WITH(kernels::reverse(f32(Shape{2}, {1, 2}), out, flip_axes({1})),
                    Catch::Contains("reverse: axis 1 is out of range"));
  for (DType dt : {DType::kFP64, DType::kFP32}) {
    std::mt19937 rng(5);
    Tensor x = random(Shape{3, 4}, dt, rng);
    const FlipAttrs fa = flip_axes({-2});
    CHECK_GRADCHECK_OP("reverse", {&x}, [&](Tensor& out) { kernels::reverse(x, out, fa); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) { kernels::reverse(dout, *g[0], fa); });
  }
}

TEST_CASE("diagonal: offsets, axes, batches; its gradient", "[flip]") {
  // [[0 1 2 3], [4 5 6 7], [8 9 10 11]]
  Tensor x = iota(Shape{3, 4}), out;
  kernels::diagonal(x, out, {});
  CHECK(out.shape() == Shape{3});
  CHECK(values(out) == std::vector<double>{0, 5, 10});
  kernels::diagonal(x, out, {.offset = 2, .axis1 = 0, .axis2 = 1});
  CHECK(values(out) == std::vector<double>{2, 7});
  kernels::diagonal(x, out, {.offset = -1, .axis1 = 0, .axis2 = 1});
  CHECK(values(out) == std::vector<double>{4, 9});
  kernels::diagonal(x, out, {.offset = 1, .axis1 = 1, .axis2 = 0});  // axes swapped: below the diagonal
  CHECK(values(out) == std::vector<double>{4, 9});
  kernels::diagonal(x, out, {.offset = 5, .axis1 = 0, .axis2 = 1});
  CHECK(out.shape() == Shape{0});
  // A batch along the last dim: Input [2, 2, 3] over axes 0 and 1 gives [3, 2].
  kernels::diagonal(iota(Shape{2, 2, 3}), out, {.offset = 0, .axis1 = 0, .axis2 = 1});
  CHECK(out.shape() == Shape{3, 2});
  CHECK(values(out) == std::vector<double>{0, 9, 1, 10, 2, 11});
  CHECK_THROWS_WITH(kernels::diagonal(x, out, {.offset = 0, .axis1 = 1, .axis2 = -1}),
                    Catch::Contains("must be two distinct dims"));
  for (DType dt : {DType::kFP64, DType::kFP32}) {
    std::mt19937 rng(9);
    Tensor in = random(Shape{2, 3, 4}, dt, rng);
    const kernels::DiagonalAttrs a{.offset = 1, .axis1 = -1, .axis2 = 1};
    CHECK_GRADCHECK_OP("diagonal", {&in}, [&](Tensor& o) { kernels::diagonal(in, o, a); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) { kernels::diagonal_grad(in, dout, g[0], a); });
  }
}

TEST_CASE("diag_embed: the diagonals diagonal reads, offsets and dims", "[flip]") {
  Tensor out;
  kernels::diag_embed(f32(Shape{2}, {1, 2}), out, {});
  CHECK(out.shape() == Shape{2, 2});
  CHECK(values(out) == std::vector<double>{1, 0, 0, 2});
  kernels::diag_embed(f32(Shape{2}, {1, 2}), out, {.offset = 1, .dim1 = -2, .dim2 = -1});
  CHECK(out.shape() == Shape{3, 3});
  CHECK(values(out) == std::vector<double>{0, 1, 0, 0, 0, 2, 0, 0, 0});
  kernels::diag_embed(i64(Shape{2}, {1, 2}), out, {.offset = -1, .dim1 = -2, .dim2 = -1});
  CHECK(values(out) == std::vector<double>{0, 0, 0, 1, 0, 0, 0, 2, 0});
  // A batch of two rows, the planes in front: Out [2, 2, 2] with Out[i, i, b] = Input[b, i].
  kernels::diag_embed(f64(Shape{2, 2}, {1, 2, 3, 4}), out, {.offset = 0, .dim1 = 0, .dim2 = 1});
  CHECK(values(out) == std::vector<double>{1, 3, 0, 0, 0, 0, 2, 4});
  // diagonal undoes it.
  Tensor back;
  kernels::diagonal(out, back, {.offset = 0, .axis1 = 0, .axis2 = 1});
  CHECK(values(back) == std::vector<double>{1, 2, 3, 4});
  CHECK_THROWS_WITH(kernels::diag_embed(f32(Shape{2}, {1, 2}), out, {.offset = 0, .dim1 = 0, .dim2 = -2}),
                    Catch::Contains("must be two distinct dims"));
}
