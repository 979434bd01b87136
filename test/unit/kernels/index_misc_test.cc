// test/unit/kernels/index_misc_test.cc - linspace, cumprod, kthvalue, scatter_nd_add: values, dtypes, errors, gradients.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "kernels/index.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

kernels::LinspaceAttrs as(DType dt) {
  kernels::LinspaceAttrs a;
  a.dtype = static_cast<int>(dt);
  return a;
}

kernels::CumprodAttrs along(int dim) {
  kernels::CumprodAttrs a;
  a.dim = dim;
  return a;
}

}  // namespace

TEST_CASE("linspace: both ends exact, one value, integer truncation", "[linspace]") {
  Tensor out;
  kernels::linspace(f64(Shape{1}, {0}), f64(Shape{1}, {1}), i32(Shape{1}, {5}), out, as(DType::kFP64));
  CHECK(values(out) == std::vector<double>{0, 0.25, 0.5, 0.75, 1});
  kernels::linspace(f32(Shape{1}, {-1.3f}), f32(Shape{1}, {2.1f}), i64(Shape{1}, {7}), out, as(DType::kFP32));
  CHECK(get(out, 0) == -1.3f);
  CHECK(get(out, 6) == 2.1f);
  // Integer ends: the first half counts up from Start, the second down from Stop.
  kernels::linspace(i32(Shape{1}, {0}), i32(Shape{1}, {10}), i32(Shape{1}, {4}), out, as(DType::kInt32));
  CHECK(values(out) == std::vector<double>{0, 3, 6, 10});
  kernels::linspace(f32(Shape{1}, {3}), f32(Shape{1}, {5}), i32(Shape{1}, {1}), out, as(DType::kFP32));
  CHECK(values(out) == std::vector<double>{3});
  CHECK_THROWS_WITH(
      kernels::linspace(f32(Shape{1}, {3}), f32(Shape{1}, {5}), i32(Shape{1}, {0}), out, as(DType::kFP32)),
      Catch::Contains("at least 1"));
}

TEST_CASE("cumprod: along a dim, zeros, ints, in place", "[cumprod]") {
  Tensor out, dx;
  kernels::cumprod(f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6}), out, along(1));
  CHECK(values(out) == std::vector<double>{1, 2, 6, 4, 20, 120});
  kernels::cumprod(f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6}), out, along(0));
  CHECK(values(out) == std::vector<double>{1, 2, 3, 4, 10, 18});
  kernels::cumprod(i64(Shape{3}, {2, -3, 4}), out, along(-1));
  CHECK(values(out) == std::vector<double>{2, -6, -24});
  Tensor x = f32(Shape{3}, {2, 3, 4});
  kernels::cumprod(x, x, along(0));
  CHECK(values(x) == std::vector<double>{2, 6, 24});
  // Zeros: the gradient never divides by X (Paddle's values for this input).
  const Tensor z = f32(Shape{4}, {2, 0, 3, 0.5});
  kernels::cumprod(z, out, along(0));
  kernels::cumprod_grad(z, out, f32(Shape{4}, {1, 2, 3, 4}), &dx, along(0));
  CHECK(values(dx) == std::vector<double>{1, 34, 0, 0});
  CHECK_THROWS_WITH(kernels::cumprod(z, out, along(1)), Catch::Contains("out of range"));
}

TEST_CASE("cumprod_grad matches finite differences", "[cumprod][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (int dim : {0, 1, -1}) {
      std::mt19937 rng(9);
      Tensor x = random(Shape{3, 4, 2}, dt, rng, -1.5, 1.5);
      set(x, 5, 0.0);  // a zero: its gradient needs the products around it
      Tensor out;
      CHECK_GRADCHECK_OP("cumprod", {&x}, [&](Tensor& o) { kernels::cumprod(x, o, along(dim)); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           kernels::cumprod(x, out, along(dim));
                           kernels::cumprod_grad(x, out, dout, g[0], along(dim));
                         });
    }
}

namespace {

kernels::KthvalueAttrs kth(int k, int axis, bool keep = false) {
  kernels::KthvalueAttrs a;
  a.k = k;
  a.axis = axis;
  a.keepdim = keep;
  return a;
}

}  // namespace

TEST_CASE("kthvalue: values and positions, keepdim, NaN last, ties by position", "[kthvalue]") {
  Tensor out, idx, dx;
  const Tensor x = f32(Shape{2, 4}, {5, 1, 4, 2, -1, 7, 3, 0});
  kernels::kthvalue(x, out, idx, kth(2, 1));
  REQUIRE(out.shape() == Shape{2});
  CHECK(values(out) == std::vector<double>{2, 0});
  CHECK(values(idx) == std::vector<double>{3, 3});
  kernels::kthvalue(x, out, idx, kth(1, 0, true));
  REQUIRE(out.shape() == Shape{1, 4});
  CHECK(values(out) == std::vector<double>{-1, 1, 3, 0});
  CHECK(values(idx) == std::vector<double>{1, 0, 1, 1});
  kernels::kthvalue_grad(x, idx, f32(Shape{1, 4}, {1, 2, 3, 4}), &dx, kth(1, 0, true));
  CHECK(values(dx) == std::vector<double>{0, 2, 0, 0, 1, 0, 3, 4});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  kernels::kthvalue(f32(Shape{3}, {nan, 2, 2}), out, idx, kth(2, 0));
  CHECK(values(out) == std::vector<double>{2});
  CHECK(values(idx) == std::vector<double>{2});
  kernels::kthvalue(f32(Shape{3}, {nan, 2, 2}), out, idx, kth(3, 0));
  CHECK(std::isnan(get(out, 0)));
  kernels::kthvalue(i64(Shape{3}, {9, -4, 6}), out, idx, kth(3, -1));
  CHECK(values(out) == std::vector<double>{9});
  CHECK_THROWS_WITH(kernels::kthvalue(x, out, idx, kth(5, 1)), Catch::Contains("out of range"));
}

TEST_CASE("scatter_nd_add: repeated tuples add up, partial index, grads", "[scatter_nd_add]") {
  Tensor out, dx, du;
  const Tensor x = f32(Shape{3, 2}, {1, 2, 3, 4, 5, 6});
  const Tensor index = i64(Shape{3, 1}, {2, 0, 2});
  const Tensor upd = f32(Shape{3, 2}, {10, 20, 30, 40, 50, 60});
  kernels::scatter_nd_add(x, index, upd, out);
  CHECK(values(out) == std::vector<double>{31, 42, 3, 4, 65, 86});
  const Tensor full = i32(Shape{2, 2}, {1, 1, 1, 1});
  kernels::scatter_nd_add(x, full, f32(Shape{2}, {1, 2}), out);
  CHECK(values(out) == std::vector<double>{1, 2, 3, 7, 5, 6});
  const Tensor g = f32(Shape{3, 2}, {1, 2, 3, 4, 5, 6});
  kernels::scatter_nd_add_grad(index, upd, g, &dx, &du);
  CHECK(values(dx) == std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(values(du) == std::vector<double>{5, 6, 1, 2, 5, 6});
  CHECK_THROWS_WITH(kernels::scatter_nd_add(x, i64(Shape{1, 1}, {3}), f32(Shape{1, 2}, {1, 1}), out),
                    Catch::Contains("out of range"));
  CHECK_THROWS_WITH(kernels::scatter_nd_add(x, index, f32(Shape{3}, {1, 1, 1}), out), Catch::Contains("Updates"));
}

TEST_CASE("kthvalue / scatter_nd_add grads match finite differences", "[index][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    std::mt19937 rng(4);
    Tensor x = random(Shape{3, 5, 2}, dt, rng);
    // Distinct values spaced more than the step apart: the order never flips.
    for (int64_t i = 0; i < x.numel(); ++i) set(x, i, (i * 7 % 30) * 0.05 - 0.75);
    for (auto a : {kth(2, 1), kth(3, 0, true), kth(1, -1)}) {
      Tensor out, idx;
      CHECK_GRADCHECK_OP("kthvalue", {&x}, [&](Tensor& o) { kernels::kthvalue(x, o, idx, a); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           kernels::kthvalue(x, out, idx, a);
                           kernels::kthvalue_grad(x, idx, dout, g[0], a);
                         });
    }
    Tensor base = random(Shape{4, 3}, dt, rng), upd = random(Shape{3, 3}, dt, rng);
    const Tensor index = i64(Shape{3, 1}, {1, 3, 1});
    CHECK_GRADCHECK_OP("scatter_nd_add", {&base, &upd},
                       [&](Tensor& o) { kernels::scatter_nd_add(base, index, upd, o); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::scatter_nd_add_grad(index, upd, dout, g[0], g[1]);
                       });
  }
}
