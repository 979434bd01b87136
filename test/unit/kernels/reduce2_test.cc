// test/unit/kernels/reduce2_test.cc - reduce_max/min/prod/any/all, p_norm and frobenius_norm: values, ties, errors, gradients.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "kernels/reduce.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

kernels::ReduceAttrs dims(std::vector<int> d, bool keep = false) {
  kernels::ReduceAttrs a;
  a.dim = d;
  a.keep_dim = keep;
  return a;
}

kernels::PNormAttrs pnorm(float p, int axis, bool keep = false, bool asvector = false) {
  kernels::PNormAttrs a;
  a.porder = p, a.axis = axis, a.keepdim = keep, a.asvector = asvector;
  return a;
}

}  // namespace

TEST_CASE("reduce_max/min/prod fold the listed dims", "[reduce]") {
  Tensor x = f32(Shape{2, 3}, {1, -2, 3, 4, 5, -6}), out;
  kernels::reduce_max(x, out, dims({1}));
  CHECK(values(out) == std::vector<double>{3, 5});
  kernels::reduce_min(x, out, dims({0}, true));
  CHECK(out.shape() == Shape{1, 3});
  CHECK(values(out) == std::vector<double>{1, -2, -6});
  kernels::reduce_prod(x, out, dims({-1}));
  CHECK(values(out) == std::vector<double>{-6, -120});
  kernels::ReduceAttrs all;
  all.reduce_all = true;
  kernels::reduce_max(x, out, all);
  CHECK(out.shape() == Shape{});
  CHECK(values(out) == std::vector<double>{5});
  Tensor xi = i64(Shape{3}, {4, -9, 2});
  kernels::reduce_min(xi, out, dims({0}));
  CHECK(out.dtype() == DType::kInt64);
  CHECK(values(out) == std::vector<double>{-9});
  CHECK_THROWS_AS(kernels::reduce_max(x, out, dims({2})), rt::Error);
}

TEST_CASE("reduce_max_grad gives every tied maximum the full gradient, as Paddle", "[reduce]") {
  Tensor x = f32(Shape{2, 3}, {1, 3, 3, 2, 2, 0}), out, dx;
  kernels::reduce_max(x, out, dims({1}));
  Tensor dout = f32(Shape{2}, {10, 20});
  kernels::reduce_max_grad(x, out, dout, &dx, dims({1}));
  CHECK(values(dx) == std::vector<double>{0, 10, 10, 20, 20, 0});
  kernels::reduce_min(x, out, dims({1}));
  kernels::reduce_min_grad(x, out, dout, &dx, dims({1}));
  CHECK(values(dx) == std::vector<double>{10, 0, 0, 0, 0, 20});
  Tensor xp = f32(Shape{2, 3}, {1, 3, 3, 2, 2, 4});
  kernels::reduce_prod(xp, out, dims({0}));
  Tensor d3 = f32(Shape{3}, {1, 1, 1});
  kernels::reduce_prod_grad(xp, out, d3, &dx, dims({0}));
  CHECK(values(dx) == std::vector<double>{2, 2, 4, 1, 3, 3});
}

TEST_CASE("reduce_any and reduce_all give bool", "[reduce]") {
  Tensor b = make<bool>(Shape{2, 2}, {true, false, false, false}), out;
  kernels::reduce_any(b, out, dims({1}));
  CHECK(out.dtype() == DType::kBool);
  CHECK(values(out) == std::vector<double>{1, 0});
  kernels::reduce_all(b, out, dims({0}));
  CHECK(values(out) == std::vector<double>{0, 0});
  Tensor t = make<bool>(Shape{2}, {true, true});
  kernels::ReduceAttrs all;
  all.reduce_all = true;
  kernels::reduce_all(t, out, all);
  CHECK(values(out) == std::vector<double>{1});
}

TEST_CASE("p_norm: p, inf, -inf, 0, keepdim, asvector", "[reduce]") {
  Tensor x = f32(Shape{2, 2}, {3, -4, 0, 1}), out;
  kernels::p_norm(x, out, pnorm(2, 1));
  CHECK(values(out) == std::vector<double>{5, 1});
  kernels::p_norm(x, out, pnorm(1, 0, true));
  CHECK(out.shape() == Shape{1, 2});
  CHECK(values(out) == std::vector<double>{3, 5});
  const float inf = std::numeric_limits<float>::infinity();
  kernels::p_norm(x, out, pnorm(inf, -1));
  CHECK(values(out) == std::vector<double>{4, 1});
  kernels::p_norm(x, out, pnorm(-inf, -1));
  CHECK(values(out) == std::vector<double>{3, 0});
  kernels::p_norm(x, out, pnorm(0, -1));
  CHECK(values(out) == std::vector<double>{2, 1});
  kernels::p_norm(x, out, pnorm(3, 0, false, true));
  CHECK(out.shape() == Shape{});
  CHECK(values(out)[0] == Approx(std::cbrt(27.0 + 64.0 + 1.0)));
  CHECK_THROWS_AS(kernels::p_norm(x, out, pnorm(2, 2)), rt::Error);
}

TEST_CASE("finite differences agree with the max/min/prod/p_norm gradients", "[reduce][grad]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    INFO(rt::dtype_name(dt));
    std::mt19937 rng(3);
    const auto opt = GradCheckOptions::for_dtype(dt);
    // Distinct values spaced more than the step apart: no tie flips under perturbation.
    Tensor x = random(Shape{3, 4, 2}, dt, rng);
    for (int64_t i = 0; i < x.numel(); ++i) set(x, i, (i * 7 % 24) * 0.1 - 1.2);
    struct Case {
      const char* op;
      void (*fwd)(const Tensor&, Tensor&, const kernels::ReduceAttrs&);
      void (*bwd)(const Tensor&, const Tensor&, const Tensor&, Tensor*, const kernels::ReduceAttrs&);
    };
    for (const Case& c : {Case{"reduce_max", kernels::reduce_max, kernels::reduce_max_grad},
                          Case{"reduce_min", kernels::reduce_min, kernels::reduce_min_grad}}) {
      for (auto a : {dims({1}), dims({0, 2}, true)}) {
        Tensor out;
        CHECK_GRADCHECK_OP(c.op, {&x}, [&](Tensor& o) { c.fwd(x, o, a); },
                           [&](const Tensor& dout, std::vector<Tensor*>& g) {
                             c.fwd(x, out, a);
                             c.bwd(x, out, dout, g[0], a);
                           },
                           opt);
      }
    }
    Tensor px = random(Shape{3, 4}, dt, rng, 0.5, 1.5);
    for (int64_t i = 0; i < px.numel(); i += 3) set(px, i, -get(px, i));  // signs matter for prod and p_norm
    Tensor out;
    auto pa = dims({1});
    CHECK_GRADCHECK_OP("reduce_prod", {&px}, [&](Tensor& o) { kernels::reduce_prod(px, o, pa); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::reduce_prod(px, out, pa);
                         kernels::reduce_prod_grad(px, out, dout, g[0], pa);
                       },
                       opt);
    for (auto a : {pnorm(2, 1), pnorm(3, 0, true), pnorm(1.5f, -1, false, true),
                   pnorm(std::numeric_limits<float>::infinity(), 1)}) {
      CHECK_GRADCHECK_OP("p_norm", {&px}, [&](Tensor& o) { kernels::p_norm(px, o, a); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           kernels::p_norm(px, out, a);
                           kernels::p_norm_grad(px, out, dout, g[0], a);
                         },
                         opt);
    }
    for (auto a : {dims({0, 1}), dims({1})}) {
      CHECK_GRADCHECK_OP("frobenius_norm", {&px}, [&](Tensor& o) { kernels::frobenius_norm(px, o, a); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           kernels::frobenius_norm(px, out, a);
                           kernels::frobenius_norm_grad(px, out, dout, g[0], a);
                         },
                         opt);
    }
  }
}

TEST_CASE("frobenius_norm: sqrt of the sum of squares over dim, keep_dim", "[reduce]") {
  Tensor out;
  const Tensor x = f32(Shape{2, 2}, {3, 4, 0, 0});
  kernels::frobenius_norm(x, out, dims({1}));
  CHECK(values(out) == std::vector<double>{5, 0});
  kernels::frobenius_norm(x, out, dims({0, 1}));
  CHECK(out.shape() == Shape{});
  CHECK(values(out)[0] == 5);
  Tensor g;
  Tensor row;
  kernels::frobenius_norm(x, row, dims({1}));
  kernels::frobenius_norm_grad(x, row, f32(Shape{2}, {1, 1}), &g, dims({1}));
  CHECK(get(g, 0) == Approx(0.6));
  CHECK(get(g, 1) == Approx(0.8));
  CHECK(std::isnan(get(g, 2)));  // 0 / 0 where the norm is 0, as in Paddle
}
