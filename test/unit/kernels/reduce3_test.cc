// test/unit/kernels/reduce3_test.cc - logsumexp and reduce_amax / reduce_amin: values, tie splitting, gradients.
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

kernels::LogsumexpAttrs lse(std::vector<int> axis, bool keep = false, bool all = false) {
  kernels::LogsumexpAttrs a;
  a.axis = axis;
  a.keepdim = keep;
  a.reduce_all = all;
  return a;
}

}  // namespace

TEST_CASE("logsumexp: values, axes, large inputs, infinite groups", "[logsumexp]") {
  Tensor out;
  const Tensor x = f64(Shape{2, 3}, {0, 1, 2, -1, 5, 3});
  kernels::logsumexp(x, out, lse({1}));
  REQUIRE(out.shape() == Shape{2});
  CHECK(get(out, 0) == Approx(std::log(1 + std::exp(1.0) + std::exp(2.0))));
  CHECK(get(out, 1) == Approx(std::log(std::exp(-1.0) + std::exp(5.0) + std::exp(3.0))));
  kernels::logsumexp(x, out, lse({0}, true));
  REQUIRE(out.shape() == Shape{1, 3});
  CHECK(get(out, 2) == Approx(std::log(std::exp(2.0) + std::exp(3.0))));
  kernels::logsumexp(x, out, lse({}, false, true));
  CHECK(out.shape().rank == 0);
  // 1000 would overflow exp: the maximum is taken out first.
  kernels::logsumexp(f32(Shape{2}, {1000, 1000}), out, lse({0}));
  CHECK(get(out, 0) == Approx(1000 + std::log(2.0)));
  const float inf = std::numeric_limits<float>::infinity();
  kernels::logsumexp(f32(Shape{2, 2}, {-inf, -inf, inf, 0}), out, lse({1}));
  CHECK(get(out, 0) == -inf);
  CHECK(get(out, 1) == inf);
  CHECK_THROWS_WITH(kernels::logsumexp(x, out, lse({2})), Catch::Contains("out of range"));
}

TEST_CASE("reduce_amax / reduce_amin: values; ties share the gradient", "[reduce_amax]") {
  Tensor out, dx;
  const Tensor x = f32(Shape{2, 3}, {1, 3, 3, 2, 2, 2});
  kernels::reduce_amax(x, out, dims({1}));
  CHECK(values(out) == std::vector<double>{3, 2});
  kernels::reduce_amax_grad(x, out, f32(Shape{2}, {1, 9}), &dx, dims({1}));
  CHECK(values(dx) == std::vector<double>{0, 0.5, 0.5, 3, 3, 3});
  kernels::reduce_amin(x, out, dims({1}, true));
  REQUIRE(out.shape() == Shape{2, 1});
  CHECK(values(out) == std::vector<double>{1, 2});
  kernels::reduce_amin_grad(x, out, f32(Shape{2, 1}, {4, 6}), &dx, dims({1}, true));
  CHECK(values(dx) == std::vector<double>{4, 0, 0, 2, 2, 2});
  kernels::reduce_amax(i64(Shape{3}, {4, -2, 7}), out, dims({0}));
  CHECK(values(out) == std::vector<double>{7});
  CHECK_THROWS_WITH(kernels::reduce_amax_grad(x, out, f32(Shape{5}, {1, 1, 1, 1, 1}), &dx, dims({1})),
                    Catch::Contains("do not match"));
}

TEST_CASE("logsumexp / amax / amin grads match finite differences", "[reduce][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    INFO(rt::dtype_name(dt));
    std::mt19937 rng(7);
    const auto opt = GradCheckOptions::for_dtype(dt);
    Tensor x = random(Shape{3, 4, 2}, dt, rng, -2, 2);
    Tensor out;
    for (auto a : {lse({1}), lse({0, 2}, true), lse({}, false, true)})
      CHECK_GRADCHECK_OP("logsumexp", {&x}, [&](Tensor& o) { kernels::logsumexp(x, o, a); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           kernels::logsumexp(x, out, a);
                           kernels::logsumexp_grad(x, out, dout, g[0], a);
                         },
                         opt);
    // Distinct values spaced more than the step apart: no tie flips under perturbation.
    for (int64_t i = 0; i < x.numel(); ++i) set(x, i, (i * 7 % 24) * 0.1 - 1.2);
    struct Case {
      const char* op;
      void (*fwd)(const Tensor&, Tensor&, const kernels::ReduceAttrs&);
      void (*bwd)(const Tensor&, const Tensor&, const Tensor&, Tensor*, const kernels::ReduceAttrs&);
    };
    for (const Case& c : {Case{"reduce_amax", kernels::reduce_amax, kernels::reduce_amax_grad},
                          Case{"reduce_amin", kernels::reduce_amin, kernels::reduce_amin_grad}})
      for (auto a : {dims({1}), dims({0, 2}, true)})
        CHECK_GRADCHECK_OP(c.op, {&x}, [&](Tensor& o) { c.fwd(x, o, a); },
                           [&](const Tensor& dout, std::vector<Tensor*>& g) {
                             c.fwd(x, out, a);
                             c.bwd(x, out, dout, g[0], a);
                           },
                           opt);
  }
}
