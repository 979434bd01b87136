// test/unit/kernels/index_misc_test.cc - linspace, cumprod, cummax/cummin, logcumsumexp, kthvalue, mode, searchsorted, scatter_nd_add: values, dtypes, errors, gradients.
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

TEST_CASE("mode: most frequent, ties to the smallest value at its last position, NaN, keepdim, grad", "[mode]") {
  Tensor out, idx, dx;
  const Tensor x = f32(Shape{3, 5}, {1, 3, 3, 1, 2, 5, 4, 4, 5, 0, 2, 2, 2, 7, 7});
  kernels::mode(x, out, idx, kernels::ModeAttrs{});
  CHECK(values(out) == std::vector<double>{1, 4, 2});
  CHECK(values(idx) == std::vector<double>{3, 2, 2});
  kernels::mode(x, out, idx, kernels::ModeAttrs{0, true});
  REQUIRE(out.shape() == Shape{1, 5});
  CHECK(values(out) == std::vector<double>{1, 2, 2, 1, 0});
  CHECK(values(idx) == std::vector<double>{0, 2, 2, 0, 1});
  kernels::mode_grad(x, idx, f32(Shape{1, 5}, {1, 2, 3, 4, 5}), &dx, kernels::ModeAttrs{0, true});
  CHECK(values(dx) == std::vector<double>{1, 0, 0, 4, 0, 0, 0, 0, 0, 5, 0, 2, 3, 0, 0});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  kernels::mode(f32(Shape{5}, {nan, 1, nan, 2, nan}), out, idx, kernels::ModeAttrs{});
  CHECK(std::isnan(get(out, 0)));
  CHECK(values(idx) == std::vector<double>{4});
  kernels::mode(i64(Shape{4}, {-3, 8, 8, -3}), out, idx, kernels::ModeAttrs{});
  CHECK(values(out) == std::vector<double>{-3});
  CHECK(values(idx) == std::vector<double>{3});
  CHECK_THROWS_WITH(kernels::mode(x, out, idx, kernels::ModeAttrs{2, false}), Catch::Contains("mode: axis 2"));
  // Distinct values: each line's mode is its smallest, which a small step does not move.
  std::mt19937 rng(9);
  Tensor d = random(Shape{3, 4}, DType::kFP64, rng);
  for (int64_t i = 0; i < d.numel(); ++i) set(d, i, (i * 5 % 12) * 0.1);
  CHECK_GRADCHECK_OP("mode", {&d}, [&](Tensor& o) { kernels::mode(d, o, idx, kernels::ModeAttrs{}); },
                     [&](const Tensor& dout, std::vector<Tensor*>& g) {
                       kernels::mode(d, out, idx, kernels::ModeAttrs{});
                       kernels::mode_grad(d, idx, dout, g[0], kernels::ModeAttrs{});
                     });
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

TEST_CASE("cummax and cummin: running extremes, later ties, NaN takes over, int32 indices", "[index]") {
  Tensor out, idx;
  const double nan = std::nan("");
  kernels::cummax(f32(Shape{6}, {1, 3, 3, 2, 3, 0}), out, idx, {});
  CHECK(values(out) == std::vector<double>{1, 3, 3, 3, 3, 3});
  CHECK(idx.dtype() == DType::kInt64);
  CHECK(values(idx) == std::vector<double>{0, 1, 2, 2, 4, 4});  // ties move to the later position, as Paddle
  kernels::cummin(i32(Shape{2, 3}, {3, 1, 1, 2, 5, 2}), out, idx, {.axis = 1, .dtype = 2});
  CHECK(values(out) == std::vector<double>{3, 1, 1, 2, 2, 2});
  CHECK(idx.dtype() == DType::kInt32);
  CHECK(values(idx) == std::vector<double>{0, 1, 2, 0, 0, 2});
  // Along axis 0 (negative): columns.
  kernels::cummax(f64(Shape{3, 2}, {1, 5, 2, 4, 0, 6}), out, idx, {.axis = -2, .dtype = 3});
  CHECK(values(out) == std::vector<double>{1, 5, 2, 5, 2, 6});
  CHECK(values(idx) == std::vector<double>{0, 0, 1, 0, 1, 2});
  kernels::cummax(f64(Shape{5}, {1, nan, 2, nan, 5}), out, idx, {});
  CHECK(values(idx) == std::vector<double>{0, 1, 1, 3, 3});
  CHECK(std::isnan(get(out, 4)));
  CHECK_THROWS_WITH(kernels::cummax(f32(Shape{2}, {1, 2}), out, idx, {.axis = 1, .dtype = 3}),
                    Catch::Contains("axis 1 is out of range"));
  CHECK_THROWS_WITH(kernels::cummin(f32(Shape{2}, {1, 2}), out, idx, {.axis = 0, .dtype = 5}),
                    Catch::Contains("dtype 5 must be 2 (int32) or 3 (int64)"));
  Tensor g;
  CHECK_THROWS_WITH(kernels::cummax_grad(f32(Shape{2}, {1, 2}), i64(Shape{2}, {0, 2}), f32(Shape{2}, {1, 1}), &g, {}),
                    Catch::Contains("indices value 2"));
}

TEST_CASE("cummax and cummin grads match finite differences", "[index][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    // Values 0.1 apart, so no step of the check swaps two of them.
    Tensor x;
    x.resize(Shape{3, 5}, dt);
    for (int64_t i = 0; i < 15; ++i) set(x, i, ((i * 7) % 15) * 0.1 - 0.7);
    using Fwd = void (*)(const Tensor&, Tensor&, Tensor&, const kernels::CumExtremeAttrs&);
    using Bwd = void (*)(const Tensor&, const Tensor&, const Tensor&, Tensor*, const kernels::CumExtremeAttrs&);
    struct Op {
      const char* name;
      Fwd fwd;
      Bwd bwd;
    };
    for (const Op& c : {Op{"cummax", kernels::cummax, kernels::cummax_grad},
                        Op{"cummin", kernels::cummin, kernels::cummin_grad}}) {
      const char* op = c.name;
      const Fwd fwd = c.fwd;
      const Bwd bwd = c.bwd;
      const kernels::CumExtremeAttrs a{.axis = 1, .dtype = 3};
      CHECK_GRADCHECK_OP(op, {&x}, [&](Tensor& out) { Tensor idx; fwd(x, out, idx, a); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           Tensor out, idx;
                           fwd(x, out, idx, a);
                           bwd(x, idx, dout, g[0], a);
                         });
    }
  }
}

TEST_CASE("logcumsumexp: inclusive, exclusive, reverse, flatten", "[index]") {
  Tensor out;
  const double l = std::log(std::exp(1.0) + std::exp(2.0)), all = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  kernels::logcumsumexp(f64(Shape{3}, {1, 2, 3}), out, {});
  CHECK(get(out, 0) == Approx(1));
  CHECK(get(out, 1) == Approx(l));
  CHECK(get(out, 2) == Approx(all));
  kernels::logcumsumexp(f64(Shape{3}, {1, 2, 3}), out, {.axis = 0, .exclusive = true, .reverse = true});
  CHECK(get(out, 0) == Approx(std::log(std::exp(2.0) + std::exp(3.0))));
  CHECK(get(out, 1) == Approx(3));
  CHECK(get(out, 2) == std::numeric_limits<double>::lowest());  // Paddle's empty sum
  // Large values do not overflow.
  kernels::logcumsumexp(f32(Shape{2}, {1000, 1000}), out, {});
  CHECK(get(out, 1) == Approx(1000 + std::log(2.0)));
  kernels::logcumsumexp(f64(Shape{2, 2}, {1, 2, 3, 4}), out, {.flatten = true});
  CHECK(out.shape() == Shape{4});
  CHECK(get(out, 3) == Approx(std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0) + std::exp(4.0))));
  CHECK_THROWS_WITH(kernels::logcumsumexp(f64(Shape{2}, {1, 2}), out, {.axis = -2}),
                    Catch::Contains("axis -2 is out of range"));
}

TEST_CASE("logcumsumexp grad matches finite differences in every mode", "[index][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (bool excl : {false, true})
      for (bool rev : {false, true})
        for (bool flat : {false, true}) {
          INFO("exclusive " << excl << " reverse " << rev << " flatten " << flat);
          std::mt19937 rng(17);
          Tensor x = random(Shape{2, 4}, dt, rng, -2, 2);
          const kernels::CumsumAttrs a{.axis = 1, .flatten = flat, .exclusive = excl, .reverse = rev};
          // An exclusive scan's empty sum is the lowest finite value, whose size would swamp the
          // check's weighted sum: it is zeroed in the checked forward (no X reaches it).
          auto fwd = [&](Tensor& out) {
            kernels::logcumsumexp(x, out, a);
            for (int64_t i = 0; i < out.numel(); ++i)
              if (get(out, i) < -1e30) set(out, i, 0);
          };
          CHECK_GRADCHECK_OP("logcumsumexp", {&x}, fwd,
                             [&](const Tensor& dout, std::vector<Tensor*>& g) {
                               Tensor out;
                               kernels::logcumsumexp(x, out, a);
                               kernels::logcumsumexp_grad(x, out, dout, g[0], a);
                             });
        }
}

TEST_CASE("searchsorted: left and right, per-row sequences, mixed dtypes, inf and NaN past the end", "[index]") {
  Tensor out;
  Tensor seq = f32(Shape{5}, {1, 3, 3, 5, 7});
  kernels::searchsorted(seq, f32(Shape{2, 3}, {0, 3, 4, 7, 8, 3.5f}), out, {});
  CHECK(out.dtype() == DType::kInt64);
  CHECK(values(out) == std::vector<double>{0, 1, 3, 4, 5, 3});
  kernels::searchsorted(seq, f32(Shape{2, 3}, {0, 3, 4, 7, 8, 3.5f}), out, {.out_int32 = true, .right = true});
  CHECK(out.dtype() == DType::kInt32);
  CHECK(values(out) == std::vector<double>{0, 3, 3, 5, 5, 3});
  // One sorted row per leading index.
  kernels::searchsorted(i64(Shape{2, 3}, {1, 2, 3, 10, 20, 30}), i64(Shape{2, 2}, {2, 25, 2, 25}), out, {});
  CHECK(values(out) == std::vector<double>{1, 3, 0, 2});
  // Integer values in a float row; +-inf and NaN go to the end, as Paddle.
  kernels::searchsorted(seq, i32(Shape{2}, {3, 6}), out, {});
  CHECK(values(out) == std::vector<double>{1, 4});
  kernels::searchsorted(seq, f64(Shape{3}, {-INFINITY, INFINITY, std::nan("")}), out, {});
  CHECK(values(out) == std::vector<double>{5, 5, 5});
  CHECK_THROWS_WITH(kernels::searchsorted(f32(Shape{3, 2}, {1, 2, 3, 4, 5, 6}), f32(Shape{2, 2}, {1, 2, 3, 4}), out, {}),
                    Catch::Contains("must be 1-D or share all but its last dim"));
}
