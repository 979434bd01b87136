// test/unit/kernels/index_sort_test.cc - argsort and take_along_axis: hand-computed values, ties, NaN, errors, gradients.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <numeric>

#include "kernels/index.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::ArgsortAttrs;
using kernels::TakeAlongAxisAttrs;

namespace {

ArgsortAttrs sort_attrs(int axis, bool descending) {
  ArgsortAttrs a;
  a.axis = axis;
  a.descending = descending;
  return a;
}

// Distinct values 0.1 apart, shuffled (no ties for the gradient checks).
Tensor distinct(const Shape& s, DType dt, uint32_t seed) {
  std::vector<int> idx(static_cast<size_t>(s.numel()));
  std::iota(idx.begin(), idx.end(), 0);
  std::shuffle(idx.begin(), idx.end(), std::mt19937(seed));
  Tensor t;
  t.resize(s, dt);
  for (int64_t i = 0; i < s.numel(); ++i) set(t, i, 0.1 * idx[static_cast<size_t>(i)] - 1.0);
  return t;
}

}  // namespace

TEST_CASE("argsort: rows, columns, descending", "[index]") {
  Tensor out, ind;
  const Tensor x = f32(Shape{2, 3}, {3, 1, 2, 0, 5, 4});
  kernels::argsort(x, out, ind, sort_attrs(-1, false));
  CHECK(values(out) == std::vector<double>{1, 2, 3, 0, 4, 5});
  CHECK(values(ind) == std::vector<double>{1, 2, 0, 0, 2, 1});
  CHECK(ind.dtype() == DType::kInt64);
  kernels::argsort(x, out, ind, sort_attrs(0, true));
  CHECK(values(out) == std::vector<double>{3, 5, 4, 0, 1, 2});
  CHECK(values(ind) == std::vector<double>{0, 1, 1, 1, 0, 0});
  kernels::argsort(i64(Shape{4}, {5, -2, 7, 0}), out, ind, sort_attrs(0, true));
  CHECK(values(out) == std::vector<double>{7, 5, 0, -2});
}

TEST_CASE("argsort: NaN is the largest; short rows keep ties in order", "[index]") {
  Tensor out, ind;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  kernels::argsort(f32(Shape{4}, {1, nan, 0, 2}), out, ind, sort_attrs(0, false));
  CHECK(values(ind) == std::vector<double>{2, 0, 3, 1});
  kernels::argsort(f32(Shape{4}, {1, nan, 0, 2}), out, ind, sort_attrs(0, true));
  CHECK(values(ind) == std::vector<double>{1, 3, 0, 2});
  // std::sort is an insertion sort below 16 elements: ties keep their order.
  kernels::argsort(f32(Shape{6}, {3, 1, 3, 2, 1, 3}), out, ind, sort_attrs(0, true));
  CHECK(values(ind) == std::vector<double>{0, 2, 5, 3, 1, 4});
  CHECK_THROWS_WITH(kernels::argsort(f32(Shape{2}, {1, 2}), out, ind, sort_attrs(1, false)),
                    Catch::Contains("out of range"));
}

TEST_CASE("take_along_axis: values and errors", "[index]") {
  Tensor r;
  const Tensor x = f32(Shape{2, 3}, {0, 1, 2, 3, 4, 5});
  TakeAlongAxisAttrs a;
  a.Axis = 1;
  kernels::take_along_axis(x, i64(Shape{2, 2}, {2, 0, 1, 1}), r, a);
  REQUIRE(r.shape() == Shape{2, 2});
  CHECK(values(r) == std::vector<double>{2, 0, 4, 4});
  a.Axis = 0;
  kernels::take_along_axis(x, i32(Shape{1, 3}, {1, 0, 1}), r, a);
  CHECK(values(r) == std::vector<double>{3, 1, 5});
  CHECK_THROWS_WITH(kernels::take_along_axis(x, i32(Shape{1, 3}, {2, 0, 1}), r, a), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(kernels::take_along_axis(x, i32(Shape{1, 2}, {0, 0}), r, a), Catch::Contains("differ"));
}

TEST_CASE("argsort and take_along_axis: gradients", "[index]") {
  for (DType dt : {DType::kFP64, DType::kFP32}) {
    Tensor x = distinct(Shape{3, 4, 2}, dt, 4);
    const ArgsortAttrs a = sort_attrs(1, true);
    CHECK_GRADCHECK_OP("argsort", {&x},
                       [&](Tensor& out) {
                         Tensor ind;
                         kernels::argsort(x, out, ind, a);
                       },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         Tensor out, ind;
                         kernels::argsort(x, out, ind, a);
                         kernels::argsort_grad(ind, x, dout, g[0], a);
                       });
    std::mt19937 rng(8);
    Tensor in = random(Shape{2, 4, 3}, dt, rng);
    // Repeated indices: their gradients add up.
    const Tensor idx = i64(Shape{2, 5, 3}, {0, 1, 2, 3, 3, 3, 0, 0, 1, 2, 1, 0, 3, 2, 1,
                                            1, 1, 1, 0, 2, 3, 3, 3, 0, 2, 0, 2, 1, 2, 3});
    TakeAlongAxisAttrs t;
    t.Axis = -2;
    CHECK_GRADCHECK_OP("take_along_axis", {&in}, [&](Tensor& out) { kernels::take_along_axis(in, idx, out, t); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::take_along_axis_grad(in, idx, dout, g[0], t);
                       });
  }
}
