// test/unit/kernels/activation_unary_test.cc - the ops of kernels/activation_unary.h and kernels/unary_math.h: values, edges, gradients (logit and erfinv included).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/activation.h"
#include "test/unit/kernels/gradcheck.h"
#include "test/unit/kernels/unary_check.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

// The double formulas the kernels are checked against, written from the
// definitions rather than from the kernels' forms.
double celu_ref(double v, double a) { return std::max(v, 0.0) + std::min(a * (std::exp(v / a) - 1), 0.0); }

std::vector<bool> bools(const Tensor& t) {
  REQUIRE(t.dtype() == DType::kBool);
  return std::vector<bool>(t.data<bool>(), t.data<bool>() + t.numel());
}

}  // namespace

TEST_CASE("clamping, shrinking and sigmoid-like activations: values", "[activation]") {
  k::BreluAttrs br;
  br.t_min = -0.5f;
  br.t_max = 2;
  check_values("brelu", [&](const Tensor& x, Tensor& o) { k::brelu(x, o, br); },
               [](double v) { return std::min(std::max(v, -0.5), 2.0); }, {-1, -0.5, 0.3, 1.9, 3});
  check_values("logsigmoid", [](const Tensor& x, Tensor& o) { k::logsigmoid(x, o); },
               [](double v) { return -std::log1p(std::exp(-v)); }, {-30, -1, 0, 2, 30});
  k::SeluAttrs se;
  const double scale = se.scale, alpha = se.alpha;
  check_values("selu", [&](const Tensor& x, Tensor& o) { k::selu(x, o, se); },
               [&](double v) { return scale * (v > 0 ? v : alpha * (std::exp(v) - 1)); }, {-3, -0.2, 0, 0.5, 2});
  for (float a : {0.5f, -0.5f}) {
    k::CeluAttrs ce;
    ce.alpha = a;
    check_values("celu", [&](const Tensor& x, Tensor& o) { k::celu(x, o, ce); },
                 [&](double v) { return celu_ref(v, a); }, {-2, -0.3, 0, 0.4, 3});
  }
  check_values("softsign", [](const Tensor& x, Tensor& o) { k::softsign(x, o); },
               [](double v) { return v / (1 + std::abs(v)); }, {-5, -0.5, 0, 2});
  k::SoftshrinkAttrs ss;
  ss.lambda = 0.25f;
  check_values("softshrink", [&](const Tensor& x, Tensor& o) { k::softshrink(x, o, ss); },
               [](double v) { return v > 0.25 ? v - 0.25 : (v < -0.25 ? v + 0.25 : 0.0); }, {-1, -0.2, 0, 0.25, 0.3, 2});
  k::HardShrinkAttrs hs;
  hs.threshold = 0.25f;
  check_values("hard_shrink", [&](const Tensor& x, Tensor& o) { k::hard_shrink(x, o, hs); },
               [](double v) { return std::abs(v) > 0.25 ? v : 0.0; }, {-1, -0.2, 0, 0.25, 0.3, 2});
  check_values("tanh_shrink", [](const Tensor& x, Tensor& o) { k::tanh_shrink(x, o); },
               [](double v) { return v - std::tanh(v); }, {-3, -0.1, 0, 0.7, 12});
  k::ThresholdedReluAttrs tr;
  tr.threshold = 0.4f;
  check_values("thresholded_relu", [&](const Tensor& x, Tensor& o) { k::thresholded_relu(x, o, tr); },
               [](double v) { return v > double(0.4f) ? v : 0.0; }, {-1, 0.3, 0.5, 2});
}

TEST_CASE("a negative lambda or threshold keeps Paddle's forms", "[activation]") {
  // softshrink adds its two terms, so between lambda and -lambda both apply;
  // hard_shrink passes every element.
  Tensor x = f64(Shape{4}, {-1, -0.1, 0.1, 1});
  Tensor out;
  k::SoftshrinkAttrs ss;
  ss.lambda = -0.2f;
  k::softshrink(x, out, ss);
  const double l = ss.lambda;
  CHECK(values(out) == std::vector<double>{-1 + l, (-0.1 - l) + (-0.1 + l), (0.1 - l) + (0.1 + l), 1 - l});
  Tensor d = f64(Shape{4}, {1, 1, 1, 1}), dx;
  k::softshrink_grad(x, d, &dx, ss);
  CHECK(values(dx) == std::vector<double>{1, 2, 2, 1});
  k::HardShrinkAttrs hs;
  hs.threshold = -0.2f;
  k::hard_shrink(x, out, hs);
  CHECK(values(out) == values(x));
}

TEST_CASE("logarithms, exponentials and trigonometry: values", "[activation]") {
  using F = double (*)(double);
  struct Case {
    const char* op;
    void (*fwd)(const Tensor&, Tensor&);
    F ref;
    std::initializer_list<double> xs;
  };
  const Case cases[] = {
      {"log1p", k::log1p, [](double v) { return std::log1p(v); }, {-0.5, 0, 1e-5, 3}},
      {"log2", k::log2, [](double v) { return std::log2(v); }, {0.25, 1, 10}},
      {"log10", k::log10, [](double v) { return std::log10(v); }, {0.01, 1, 50}},
      {"expm1", k::expm1, [](double v) { return std::expm1(v); }, {-2, 0, 1e-6, 3}},
      {"asin", k::asin, [](double v) { return std::asin(v); }, {-0.9, 0, 0.5}},
      {"acos", k::acos, [](double v) { return std::acos(v); }, {-0.9, 0, 0.5}},
      {"atan", k::atan, [](double v) { return std::atan(v); }, {-5, 0, 2}},
      {"tan", k::tan, [](double v) { return std::tan(v); }, {-1.2, 0, 0.7}},
      {"sinh", k::sinh, [](double v) { return std::sinh(v); }, {-3, 0, 2}},
      {"cosh", k::cosh, [](double v) { return std::cosh(v); }, {-3, 0, 2}},
      {"asinh", k::asinh, [](double v) { return std::asinh(v); }, {-3, 0, 2}},
      {"acosh", k::acosh, [](double v) { return std::acosh(v); }, {1, 1.5, 10}},
      {"atanh", k::atanh, [](double v) { return std::atanh(v); }, {-0.9, 0, 0.5}},
      {"trunc", k::trunc, [](double v) { return std::trunc(v); }, {-2.7, -0.5, 0, 1.9}},
  };
  for (const Case& c : cases) check_values(c.op, c.fwd, c.ref, c.xs);
  Tensor out;
  k::asin(f32(Shape{2}, {2, -1.5f}), out);  // outside the domain: NaN, as Paddle
  CHECK(std::isnan(get(out, 0)));
  CHECK(std::isnan(get(out, 1)));
}

TEST_CASE("round takes halves away from zero; trunc keeps integers", "[activation]") {
  Tensor out;
  k::round(f32(Shape{7}, {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 0.49999997f}), out);
  CHECK(values(out) == std::vector<double>{-3, -2, -1, 1, 2, 3, 0});
  k::round(f64(Shape{3}, {-0.49999999999999994, 2.5000001, -7}), out);
  CHECK(values(out) == std::vector<double>{0, 3, -7});
  Tensor xi = i64(Shape{3}, {-5, 0, 9});
  k::trunc(xi, xi);  // in place
  CHECK(xi.dtype() == DType::kInt64);
  CHECK(values(xi) == std::vector<double>{-5, 0, 9});
  CHECK_THROWS_WITH(k::round(i32(Shape{1}, {1}), out), Catch::Contains("round") && Catch::Contains("int32"));
}

TEST_CASE("round_grad and trunc_grad are zeros shaped like Out@GRAD", "[activation][grad]") {
  Tensor d = f32(Shape{2, 2}, {1, -2, 3, 4});
  Tensor dx = f32(Shape{1}, {7});
  k::round_grad(d, &dx);
  CHECK(dx.shape() == d.shape());
  CHECK(values(dx) == std::vector<double>{0, 0, 0, 0});
  k::trunc_grad(d, &d);  // over Out@GRAD
  CHECK(values(d) == std::vector<double>{0, 0, 0, 0});
  k::trunc_grad(d, nullptr);
}

TEST_CASE("isnan_v2, isinf_v2, isfinite_v2 on every dtype", "[activation]") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    INFO(rt::dtype_name(dt));
    Tensor x;
    x.resize(Shape{2, 3}, dt);
    const double vs[] = {nan, inf, -inf, 0, -1.5, 1e-40};
    for (int i = 0; i < 6; ++i) set(x, i, vs[i]);
    Tensor out;
    k::isnan_v2(x, out);
    CHECK(out.shape() == x.shape());
    CHECK(bools(out) == std::vector<bool>{true, false, false, false, false, false});
    k::isinf_v2(x, out);
    CHECK(bools(out) == std::vector<bool>{false, true, true, false, false, false});
    k::isfinite_v2(x, x);  // Out over X: written aside, then moved
    CHECK(bools(x) == std::vector<bool>{false, false, false, true, true, true});
  }
  Tensor xi = i32(Shape{3}, {-1, 0, 7}), out;
  k::isnan_v2(xi, out);
  CHECK(bools(out) == std::vector<bool>{false, false, false});
  k::isinf_v2(i64(Shape{2}, {1, 2}), out);
  CHECK(bools(out) == std::vector<bool>{false, false});
  k::isfinite_v2(xi, out);
  CHECK(bools(out) == std::vector<bool>{true, true, true});
  Tensor xb;
  xb.resize(Shape{1}, DType::kBool);
  xb.data<bool>()[0] = true;
  CHECK_THROWS_WITH(k::isnan_v2(xb, out), Catch::Contains("isnan_v2") && Catch::Contains("bool"));
  Tensor uninit;
  CHECK_THROWS_WITH(k::isfinite_v2(uninit, out), Catch::Contains("isfinite_v2") && Catch::Contains("X"));
}

TEST_CASE("Fluid 1.x isnan and isinf: one bool for the whole of X", "[activation]") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    INFO(rt::dtype_name(dt));
    Tensor x, out;
    x.resize(Shape{2, 3}, dt);
    for (int i = 0; i < 6; ++i) set(x, i, 0.5 * i - 1);
    k::isnan(x, out);
    CHECK(out.shape() == Shape{1});
    CHECK(bools(out) == std::vector<bool>{false});
    k::isinf(x, out);
    CHECK(bools(out) == std::vector<bool>{false});
    set(x, 5, -inf);  // the last element: the scan reaches the end
    k::isinf(x, out);
    CHECK(bools(out) == std::vector<bool>{true});
    k::isnan(x, out);
    CHECK(bools(out) == std::vector<bool>{false});
    set(x, 0, nan);
    k::isnan(x, x);  // Out over X: X is read before it becomes [1]
    CHECK(x.shape() == Shape{1});
    CHECK(bools(x) == std::vector<bool>{true});
  }
  Tensor out;
  k::isnan(i64(Shape{2}, {1, 2}), out);
  CHECK(bools(out) == std::vector<bool>{false});
  Tensor uninit;
  CHECK_THROWS_WITH(k::isinf(uninit, out), Catch::Contains("isinf") && Catch::Contains("X"));
}

TEST_CASE("activation_unary: errors", "[activation][errors]") {
  Tensor out, dx;
  CHECK_THROWS_WITH(k::selu(i32(Shape{2}, {1, 2}), out, {}), Catch::Contains("selu") && Catch::Contains("int32"));
  Tensor x = f32(Shape{3}, {1, 2, 3});
  Tensor g = f32(Shape{2}, {1, 1});
  CHECK_THROWS_WITH(k::brelu_grad(x, g, &dx, {}), Catch::Contains("brelu_grad"));  // shapes differ
  CHECK_THROWS_AS(k::expm1_grad(x, f64(Shape{3}, {1, 1, 1}), &dx), rt::Error);      // dtypes differ
}

TEST_CASE("activation_unary grads match finite differences", "[activation][grad][gradcheck]") {
  k::BreluAttrs br;
  br.t_min = -0.5f;
  br.t_max = 1.5f;
  grad("brelu", [&](const Tensor& x, Tensor& o) { k::brelu(x, o, br); },
       [&](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::brelu_grad(x, d, dx, br); }, -2, 3,
       {-0.5, 1.5});
  grad("logsigmoid", [](const Tensor& x, Tensor& o) { k::logsigmoid(x, o); },
       [](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::logsigmoid_grad(x, d, dx); }, -4, 4);
  k::SeluAttrs se;
  se.scale = 1.5f;
  se.alpha = 2;
  grad("selu", [&](const Tensor& x, Tensor& o) { k::selu(x, o, se); },
       [&](const Tensor&, const Tensor& o, const Tensor& d, Tensor* dx) { k::selu_grad(o, d, dx, se); }, -3, 3, {0});
  for (float a : {0.7f, -0.5f}) {
    k::CeluAttrs ce;
    ce.alpha = a;
    grad("celu", [&](const Tensor& x, Tensor& o) { k::celu(x, o, ce); },
         [&](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::celu_grad(x, d, dx, ce); }, -2, 2,
         {0});
  }
  grad("softsign", [](const Tensor& x, Tensor& o) { k::softsign(x, o); },
       [](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::softsign_grad(x, d, dx); }, -3, 3);
  k::SoftshrinkAttrs ss;
  ss.lambda = 0.4f;
  grad("softshrink", [&](const Tensor& x, Tensor& o) { k::softshrink(x, o, ss); },
       [&](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::softshrink_grad(x, d, dx, ss); }, -1.5,
       1.5, {-0.4, 0.4});
  k::HardShrinkAttrs hs;
  hs.threshold = 0.4f;
  grad("hard_shrink", [&](const Tensor& x, Tensor& o) { k::hard_shrink(x, o, hs); },
       [&](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::hard_shrink_grad(x, d, dx, hs); }, -1.5,
       1.5, {-0.4, 0.4});
  grad("tanh_shrink", [](const Tensor& x, Tensor& o) { k::tanh_shrink(x, o); },
       [](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::tanh_shrink_grad(x, d, dx); }, -3, 3);
  k::ThresholdedReluAttrs tr;
  tr.threshold = 0.3f;
  grad("thresholded_relu", [&](const Tensor& x, Tensor& o) { k::thresholded_relu(x, o, tr); },
       [&](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::thresholded_relu_grad(x, d, dx, tr); },
       -1, 2, {0.3});
}

TEST_CASE("unary math grads match finite differences", "[activation][grad][gradcheck]") {
  using Kernel = void (*)(const Tensor&, Tensor&);
  using GradX = void (*)(const Tensor&, const Tensor&, Tensor*);
  struct Case {
    const char* op;
    Kernel fwd;
    GradX bwd;
    double lo, hi;
  };
  // Ranges inside each domain, away from the poles of the derivatives.
  const Case from_x[] = {
      {"log1p", k::log1p, k::log1p_grad, -0.5, 3}, {"log2", k::log2, k::log2_grad, 0.3, 3},
      {"log10", k::log10, k::log10_grad, 0.3, 3},  {"asin", k::asin, k::asin_grad, -0.8, 0.8},
      {"acos", k::acos, k::acos_grad, -0.8, 0.8},  {"atan", k::atan, k::atan_grad, -3, 3},
      {"tan", k::tan, k::tan_grad, -1.2, 1.2},     {"sinh", k::sinh, k::sinh_grad, -2, 2},
      {"cosh", k::cosh, k::cosh_grad, -2, 2},      {"asinh", k::asinh, k::asinh_grad, -3, 3},
      {"acosh", k::acosh, k::acosh_grad, 1.2, 4},  {"atanh", k::atanh, k::atanh_grad, -0.8, 0.8},
  };
  for (const Case& c : from_x)
    grad(c.op, c.fwd, [&](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { c.bwd(x, d, dx); }, c.lo,
         c.hi);
  // expm1_grad reads Out.
  grad("expm1", k::expm1, [](const Tensor&, const Tensor& o, const Tensor& d, Tensor* dx) { k::expm1_grad(o, d, dx); },
       -2, 2);
}

TEST_CASE("logit clips by eps; erfinv inverts erf and saturates past +-1", "[activation]") {
  check_values("logit", [](const Tensor& x, Tensor& out) { k::logit(x, out, {0.0f}); },
               [](double v) { return std::log(v / (1 - v)); }, {0.1, 0.5, 0.75, 0.9});
  // eps 0.2 (the float attribute, as Paddle stores it): 0.1 is read as eps and 0.95 as 1 - eps.
  check_values("logit", [](const Tensor& x, Tensor& out) { k::logit(x, out, {0.2f}); },
               [](double v) {
                 const double e = 0.2f, t = v < 0.3 ? e : 1 - e;
                 return std::log(t / (1 - t));
               }, {0.1, 0.95});
  Tensor out;
  k::logit(f32(Shape{2}, {-0.5f, 1.5f}), out, {0.0f});
  CHECK(std::isnan(get(out, 0)));
  CHECK(std::isnan(get(out, 1)));
  for (double v : {-0.999, -0.5, -1e-6, 0.0, 0.3, 0.9, 0.99999}) {
    k::erfinv(f64(Shape{1}, {v}), out);
    CHECK(std::erf(get(out, 0)) == Approx(v).epsilon(1e-14).margin(1e-16));
  }
  k::erfinv(f64(Shape{4}, {1, -1, 2, -3}), out);
  CHECK(values(out) == std::vector<double>{INFINITY, -INFINITY, INFINITY, -INFINITY});
}

TEST_CASE("logit and erfinv grads match finite differences; logit's is 0 where eps clips", "[activation][grad][gradcheck]") {
  grad("logit", [](const Tensor& x, Tensor& o) { k::logit(x, o, {0.0f}); },
       [](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::logit_grad(x, d, dx, {0.0f}); }, 0.1, 0.9);
  grad("erfinv", k::erfinv,
       [](const Tensor&, const Tensor& o, const Tensor& d, Tensor* dx) { k::erfinv_grad(o, d, dx); }, -0.8, 0.8);
  Tensor dx;
  k::logit_grad(f64(Shape{3}, {0.05, 0.5, 0.97}), f64(Shape{3}, {1, 1, 1}), &dx, {0.1f});
  CHECK(values(dx) == std::vector<double>{0, 4, 0});
}
