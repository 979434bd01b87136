// test/unit/kernels/activation_more_test.cc - the activations of kernels/activation_more.h: values, errors, gradients.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>

#include "kernels/activation.h"
#include "kernels/pointwise.h"
#include "test/unit/kernels/gradcheck.h"
#include "test/unit/kernels/unary_check.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

}  // namespace

TEST_CASE("parameterised activations: values", "[activation]") {
  k::Relu6Attrs r6;
  r6.threshold = 4;
  check_values("relu6", [&](const Tensor& x, Tensor& o) { k::relu6(x, o, r6); },
               [](double v) { return std::min(std::max(v, 0.0), 4.0); }, {-1, 0.5, 3.9, 4.1, 7});
  k::LeakyReluAttrs lr;
  lr.alpha = 0.1f;
  check_values("leaky_relu", [&](const Tensor& x, Tensor& o) { k::leaky_relu(x, o, lr); },
               [](double v) { return v > 0 ? v : 0.1f * v; }, {-2, -0.5, 0, 3});
  k::HardSwishAttrs hs;
  check_values("hard_swish", [&](const Tensor& x, Tensor& o) { k::hard_swish(x, o, hs); },
               [](double v) { return v * std::min(std::max(v + 3, 0.0), 6.0) / 6; }, {-4, -3, -1, 0.5, 2.9, 5});
  k::HardSigmoidAttrs hg;
  hg.slope = 1.0f / 6;
  check_values("hard_sigmoid", [&](const Tensor& x, Tensor& o) { k::hard_sigmoid(x, o, hg); },
               [](double v) { return std::min(std::max(double(1.0f / 6) * v + 0.5, 0.0), 1.0); },
               {-4, -2, 0, 2.5, 4});
  k::SwishAttrs sw;
  sw.beta = 1.5f;
  check_values("swish", [&](const Tensor& x, Tensor& o) { k::swish(x, o, sw); },
               [](double v) { return v * sigmoid(1.5 * v); }, {-3, -0.2, 0, 1, 4});
  check_values("silu", [](const Tensor& x, Tensor& o) { k::silu(x, o); }, [](double v) { return v * sigmoid(v); },
               {-5, -1, 0, 0.3, 6});
  k::EluAttrs el;
  el.alpha = 0.5f;
  check_values("elu", [&](const Tensor& x, Tensor& o) { k::elu(x, o, el); },
               [](double v) { return v > 0 ? v : 0.5 * (std::exp(v) - 1); }, {-3, -0.5, 0, 2});
  k::StanhAttrs st;
  check_values("stanh", [&](const Tensor& x, Tensor& o) { k::stanh(x, o, st); },
               [](double v) { return double(1.7159f) * std::tanh(double(0.67f) * v); }, {-4, -1, 0, 0.5, 3});
  k::SoftReluAttrs sr;
  sr.threshold = 2.0f;
  check_values("soft_relu", [&](const Tensor& x, Tensor& o) { k::soft_relu(x, o, sr); },
               [](double v) { return std::log1p(std::exp(std::min(std::max(v, -2.0), 2.0))); }, {-5, -2, 0, 1.5, 3});
  k::SoftplusAttrs sp;
  sp.beta = 2;
  sp.threshold = 3;
  check_values("softplus", [&](const Tensor& x, Tensor& o) { k::softplus(x, o, sp); },
               [](double v) { return 2 * v > 3 ? v : std::log1p(std::exp(2 * v)) / 2; }, {-30, -1, 0, 1.4, 1.6, 5});
  k::MishAttrs mi;
  check_values("mish", [&](const Tensor& x, Tensor& o) { k::mish(x, o, mi); },
               [](double v) { return v * std::tanh(std::log1p(std::exp(v))); }, {-8, -1, 0, 0.5, 3, 25});
  for (bool approx : {false, true}) {
    k::GeluAttrs ge;
    ge.approximate = approx;
    check_values("gelu", [&](const Tensor& x, Tensor& o) { k::gelu(x, o, ge); },
                 [&](double v) {
                   return approx ? 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)))
                                 : 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
                 },
                 {-3, -0.7, 0, 0.4, 2.5});
  }
}

TEST_CASE("transcendental and simple unary ops: values", "[activation]") {
  check_values("exp", [](const Tensor& x, Tensor& o) { k::exp(x, o); }, [](double v) { return std::exp(v); },
               {-5, -0.1, 0, 1, 10});
  check_values("log", [](const Tensor& x, Tensor& o) { k::log(x, o); }, [](double v) { return std::log(v); },
               {0.01, 0.5, 1, 7});
  check_values("sqrt", [](const Tensor& x, Tensor& o) { k::sqrt(x, o); }, [](double v) { return std::sqrt(v); },
               {0, 0.25, 2});
  check_values("rsqrt", [](const Tensor& x, Tensor& o) { k::rsqrt(x, o); },
               [](double v) { return 1 / std::sqrt(v); }, {0.25, 1, 9});
  check_values("reciprocal", [](const Tensor& x, Tensor& o) { k::reciprocal(x, o); },
               [](double v) { return 1 / v; }, {-4, 0.5, 3});
  check_values("abs", [](const Tensor& x, Tensor& o) { k::abs(x, o); }, [](double v) { return std::abs(v); },
               {-2.5, 0, 1});
  check_values("sign", [](const Tensor& x, Tensor& o) { k::sign(x, o); },
               [](double v) { return double((v > 0) - (v < 0)); }, {-2.5, 0, 1e-3});
  check_values("floor", [](const Tensor& x, Tensor& o) { k::floor(x, o); },
               [](double v) { return std::floor(v); }, {-2.5, -0.5, 0, 1.5, 2});
  check_values("ceil", [](const Tensor& x, Tensor& o) { k::ceil(x, o); }, [](double v) { return std::ceil(v); },
               {-2.5, -0.5, 0, 1.5, 2});
  check_values("erf", [](const Tensor& x, Tensor& o) { k::erf(x, o); }, [](double v) { return std::erf(v); },
               {-2, -0.1, 0, 0.8});
  check_values("sin", [](const Tensor& x, Tensor& o) { k::sin(x, o); }, [](double v) { return std::sin(v); },
               {-2, 0, 1});
  check_values("cos", [](const Tensor& x, Tensor& o) { k::cos(x, o); }, [](double v) { return std::cos(v); },
               {-2, 0, 1});
  k::PowAttrs pa;
  pa.factor = 3;
  check_values("pow", [&](const Tensor& x, Tensor& o) { k::pow(x, nullptr, o, pa); },
               [](double v) { return v * v * v; }, {-2, 0.5, 3});
  Tensor f = f32(Shape{1}, {0.5f});
  check_values("pow FactorTensor", [&](const Tensor& x, Tensor& o) { k::pow(x, &f, o, pa); },
               [](double v) { return std::sqrt(v); }, {0, 0.5, 3});
  k::ClipAttrs ca;
  ca.min = -0.5f;
  ca.max = 0.75f;
  check_values("clip", [&](const Tensor& x, Tensor& o) { k::clip(x, nullptr, nullptr, o, ca); },
               [](double v) { return std::min(std::max(v, -0.5), 0.75); }, {-2, -0.25, 0.5, 1});
  Tensor mx = f64(Shape{1}, {0.25});
  check_values("clip Max tensor", [&](const Tensor& x, Tensor& o) { k::clip(x, nullptr, &mx, o, ca); },
               [](double v) { return std::min(std::max(v, -0.5), 0.25); }, {-2, 0, 0.5});
}

TEST_CASE("gelu's vectorised fp32 loops give the scalar function's bits", "[activation]") {
  // kernels/cpu/activation_more.cc runs gelu in AVX2/AVX-512 copies on CPUs
  // that have them; with FMA contraction off there, every element equals
  // pw::Gelu's, the function fused loops and this baseline test build call.
  // 1000 values (a vector tail included) over both forms' ranges.
  Tensor x, out;
  x.resize(Shape{1000}, DType::kFP32);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = -9.0f + 0.01837f * static_cast<float>(i);
  for (bool approximate : {false, true}) {
    INFO("approximate " << approximate);
    k::GeluAttrs a;
    a.approximate = approximate;
    k::gelu(x, out, a);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const float v = x.data<float>()[i];
      const float want = approximate ? k::pw::Gelu::tanh_form(v) : k::pw::Gelu::erf_form(v);
      REQUIRE(std::memcmp(&out.data<float>()[i], &want, sizeof want) == 0);
    }
  }
}

TEST_CASE("activation_more: errors and in-place use", "[activation][errors]") {
  Tensor out;
  Tensor xi = i32(Shape{2}, {1, 2});
  CHECK_THROWS_WITH(k::gelu(xi, out, {}), Catch::Contains("gelu") && Catch::Contains("int32"));
  Tensor x = f32(Shape{3}, {1, 2, 3});
  k::ClipAttrs ca;
  ca.min = 1;
  ca.max = 0;
  CHECK_THROWS_WITH(k::clip(x, nullptr, nullptr, out, ca), Catch::Contains("min"));
  Tensor two = f32(Shape{2}, {1, 2});
  CHECK_THROWS_AS(k::pow(x, &two, out, {}), rt::Error);  // FactorTensor must be one element
  Tensor g = f32(Shape{2}, {1, 1});
  Tensor dx;
  CHECK_THROWS_AS(k::elu_grad(x, x, g, &dx, {}), rt::Error);
  CHECK_THROWS_AS(k::log_softmax(f32(Shape{2, 2}, {1, 2, 3, 4}), out, k::SoftmaxAttrs{2}), rt::Error);

  k::LeakyReluAttrs lr;
  lr.alpha = 0.5f;
  k::leaky_relu(x, x, lr);  // Out over X
  CHECK(values(x) == std::vector<double>{1, 2, 3});
  Tensor y = f32(Shape{2}, {-2, 4});
  Tensor dy = f32(Shape{2}, {1, 1});
  k::leaky_relu_grad(y, dy, &dy, lr);  // X@GRAD over Out@GRAD
  CHECK(values(dy) == std::vector<double>{0.5, 1});
}

TEST_CASE("floor_grad and ceil_grad are zeros shaped like Out@GRAD", "[activation][grad]") {
  Tensor d = f64(Shape{2, 2}, {1, -2, 3, 4});
  Tensor dx = f64(Shape{1}, {7});
  k::floor_grad(d, &dx);
  CHECK(dx.shape() == d.shape());
  CHECK(values(dx) == std::vector<double>{0, 0, 0, 0});
  k::ceil_grad(d, &d);  // over Out@GRAD
  CHECK(values(d) == std::vector<double>{0, 0, 0, 0});
  k::ceil_grad(d, nullptr);  // X needs no gradient
}

TEST_CASE("log_softmax along any axis", "[activation][softmax]") {
  std::mt19937 rng(3);
  Tensor x = random(Shape{2, 3, 4}, DType::kFP64, rng, -3, 3);
  for (int axis : {0, 1, 2, -1}) {
    INFO("axis " << axis);
    Tensor out, sm;
    k::SoftmaxAttrs a;
    a.axis = axis;
    k::log_softmax(x, out, a);
    k::softmax(x, sm, a);
    for (int64_t i = 0; i < x.numel(); ++i) CHECK(get(out, i) == Approx(std::log(get(sm, i))));
  }
  SECTION("large logits do not overflow, in place") {
    Tensor z = f32(Shape{2}, {1000, 0});
    k::log_softmax(z, z, {});
    CHECK(get(z, 0) == Approx(0).margin(1e-6));
    CHECK(get(z, 1) == Approx(-1000));
  }
}

TEST_CASE("activation_more grads match finite differences", "[activation][grad][gradcheck]") {
  k::Relu6Attrs r6;
  grad("relu6", [&](const Tensor& x, Tensor& o) { k::relu6(x, o, r6); },
       [&](const Tensor&, const Tensor& o, const Tensor& d, Tensor* dx) { k::relu6_grad(o, d, dx, r6); }, -2, 8,
       {0, 6});
  k::LeakyReluAttrs lr;
  lr.alpha = 0.1f;
  grad("leaky_relu", [&](const Tensor& x, Tensor& o) { k::leaky_relu(x, o, lr); },
       [&](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::leaky_relu_grad(x, d, dx, lr); }, -2,
       2, {0});
  k::HardSwishAttrs hs;
  grad("hard_swish", [&](const Tensor& x, Tensor& o) { k::hard_swish(x, o, hs); },
       [&](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::hard_swish_grad(x, d, dx, hs); }, -5,
       5, {-3, 3});
  k::HardSigmoidAttrs hg;
  grad("hard_sigmoid", [&](const Tensor& x, Tensor& o) { k::hard_sigmoid(x, o, hg); },
       [&](const Tensor&, const Tensor& o, const Tensor& d, Tensor* dx) { k::hard_sigmoid_grad(o, d, dx, hg); },
       -4, 4, {-2.5, 2.5});
  k::SwishAttrs sw;
  sw.beta = 1.5f;
  grad("swish", [&](const Tensor& x, Tensor& o) { k::swish(x, o, sw); },
       [&](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::swish_grad(x, d, dx, sw); }, -3, 3);
  grad("silu", [](const Tensor& x, Tensor& o) { k::silu(x, o); },
       [](const Tensor& x, const Tensor& o, const Tensor& d, Tensor* dx) { k::silu_grad(x, o, d, dx); }, -3, 3);
  k::EluAttrs el;
  el.alpha = 0.5f;
  grad("elu", [&](const Tensor& x, Tensor& o) { k::elu(x, o, el); },
       [&](const Tensor& x, const Tensor& o, const Tensor& d, Tensor* dx) { k::elu_grad(x, o, d, dx, el); }, -3, 2,
       {0});
  k::StanhAttrs st;
  st.scale_a = 1.5f;
  grad("stanh", [&](const Tensor& x, Tensor& o) { k::stanh(x, o, st); },
       [&](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::stanh_grad(x, d, dx, st); }, -3, 3);
  // soft_relu's gradient follows Paddle's rule, which reads Out and is zero once Out reaches the
  // threshold (not the true derivative there); the range keeps X and Out inside (-2, 2).
  k::SoftReluAttrs sr;
  sr.threshold = 2.0f;
  grad("soft_relu", [&](const Tensor& x, Tensor& o) { k::soft_relu(x, o, sr); },
       [&](const Tensor&, const Tensor& o, const Tensor& d, Tensor* dx) { k::soft_relu_grad(o, d, dx, sr); }, -0.9,
       0.9);
  k::SoftplusAttrs sp;
  sp.beta = 2;
  sp.threshold = 3;  // switches to the identity at X = 1.5
  grad("softplus", [&](const Tensor& x, Tensor& o) { k::softplus(x, o, sp); },
       [&](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::softplus_grad(x, d, dx, sp); }, -3, 3,
       {1.5});
  k::MishAttrs mi;
  mi.threshold = 2;  // both sides: softplus below, X itself above
  grad("mish", [&](const Tensor& x, Tensor& o) { k::mish(x, o, mi); },
       [&](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::mish_grad(x, d, dx, mi); }, -3, 4,
       {2});
  grad("exp", [](const Tensor& x, Tensor& o) { k::exp(x, o); },
       [](const Tensor&, const Tensor& o, const Tensor& d, Tensor* dx) { k::exp_grad(o, d, dx); }, -2, 2);
  grad("log", [](const Tensor& x, Tensor& o) { k::log(x, o); },
       [](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::log_grad(x, d, dx); }, 0.3, 3);
  grad("sqrt", [](const Tensor& x, Tensor& o) { k::sqrt(x, o); },
       [](const Tensor&, const Tensor& o, const Tensor& d, Tensor* dx) { k::sqrt_grad(o, d, dx); }, 0.3, 3);
  grad("rsqrt", [](const Tensor& x, Tensor& o) { k::rsqrt(x, o); },
       [](const Tensor&, const Tensor& o, const Tensor& d, Tensor* dx) { k::rsqrt_grad(o, d, dx); }, 0.3, 3);
  grad("reciprocal", [](const Tensor& x, Tensor& o) { k::reciprocal(x, o); },
       [](const Tensor&, const Tensor& o, const Tensor& d, Tensor* dx) { k::reciprocal_grad(o, d, dx); }, 0.4, 3);
  grad("abs", [](const Tensor& x, Tensor& o) { k::abs(x, o); },
       [](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::abs_grad(x, d, dx); }, -2, 2, {0});
  grad("erf", [](const Tensor& x, Tensor& o) { k::erf(x, o); },
       [](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::erf_grad(x, d, dx); }, -2, 2);
  grad("sin", [](const Tensor& x, Tensor& o) { k::sin(x, o); },
       [](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::sin_grad(x, d, dx); }, -3, 3);
  grad("cos", [](const Tensor& x, Tensor& o) { k::cos(x, o); },
       [](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::cos_grad(x, d, dx); }, -3, 3);
  for (bool approx : {false, true}) {
    k::GeluAttrs ge;
    ge.approximate = approx;
    grad("gelu", [&](const Tensor& x, Tensor& o) { k::gelu(x, o, ge); },
         [&](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::gelu_grad(x, d, dx, ge); }, -3, 3);
  }
  k::PowAttrs pa;
  pa.factor = 3;
  grad("pow", [&](const Tensor& x, Tensor& o) { k::pow(x, nullptr, o, pa); },
       [&](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::pow_grad(x, nullptr, d, dx, pa); }, -2,
       2);
  Tensor f = f32(Shape{1}, {2.5f});
  grad("pow", [&](const Tensor& x, Tensor& o) { k::pow(x, &f, o, pa); },
       [&](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::pow_grad(x, &f, d, dx, pa); }, 0.2, 2);
  k::ClipAttrs ca;
  ca.min = -0.5f;
  ca.max = 0.7f;
  grad("clip", [&](const Tensor& x, Tensor& o) { k::clip(x, nullptr, nullptr, o, ca); },
       [&](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::clip_grad(x, nullptr, nullptr, d, dx, ca); },
       -1, 1, {-0.5, 0.7});
  Tensor mn = f32(Shape{1}, {-0.25f});
  grad("clip", [&](const Tensor& x, Tensor& o) { k::clip(x, &mn, nullptr, o, ca); },
       [&](const Tensor& x, const Tensor&, const Tensor& d, Tensor* dx) { k::clip_grad(x, &mn, nullptr, d, dx, ca); },
       -1, 1, {-0.25, 0.7});
}

TEST_CASE("log_softmax_grad matches finite differences", "[activation][softmax][grad][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64})
    for (int axis : {-1, 0, 1}) {
      INFO("axis " << axis << " " << rt::dtype_name(dt));
      std::mt19937 rng(17);
      Tensor x = random(Shape{2, 3, 4}, dt, rng, -2, 2);
      k::SoftmaxAttrs a;
      a.axis = axis;
      CHECK_GRADCHECK_OP("log_softmax", {&x}, [&](Tensor& out) { k::log_softmax(x, out, a); },
                         [&](const Tensor& dout, std::vector<Tensor*>& g) {
                           Tensor out;
                           k::log_softmax(x, out, a);
                           k::log_softmax_grad(out, dout, g[0], a);
                         });
    }
}
