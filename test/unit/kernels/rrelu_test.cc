// test/unit/kernels/rrelu_test.cc - rrelu: test-mode slopes, training-mode slope properties, errors, gradients.
#include <catch2/catch.hpp>

#include <set>

#include "kernels/rrelu.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
namespace k = fluidc::kernels;

namespace {

k::RreluAttrs rr(float lower, float upper, bool is_test) {
  k::RreluAttrs a;
  a.lower = lower;
  a.upper = upper;
  a.is_test = is_test;
  return a;
}

}  // namespace

TEST_CASE("rrelu test mode: the mean slope below zero, identity above; Noise records it", "[rrelu]") {
  Tensor x = f32(Shape{5}, {-2, -0.5f, 0, 1.5f, 3}), out, noise;
  k::rrelu(x, out, &noise, rr(0.25f, 0.75f, true));
  CHECK(values(out) == std::vector<double>{-1, -0.25, 0, 1.5, 3});
  CHECK(values(noise) == std::vector<double>{0.5, 0.5, 1, 1, 1});
  // In place (Out bound to X), without Noise.
  k::rrelu(x, x, nullptr, rr(0.25f, 0.75f, true));
  CHECK(values(x) == std::vector<double>{-1, -0.25, 0, 1.5, 3});
  CHECK_THROWS_WITH(k::rrelu(x, out, &noise, rr(0.5f, 0.25f, true)), Catch::Contains("0 <= lower <= upper <= 1"));
  CHECK_THROWS_WITH(k::rrelu(x, out, &noise, rr(-0.1f, 0.25f, false)), Catch::Contains("0 <= lower <= upper <= 1"));
  CHECK_THROWS_WITH(k::rrelu(x, out, &noise, rr(0.1f, 1.5f, false)), Catch::Contains("0 <= lower <= upper <= 1"));
}

TEST_CASE("rrelu training: each negative element's slope lies in [lower, upper] and they differ", "[rrelu]") {
  // Reference values cannot be compared (Paddle's draws are its own): these
  // are the properties any correct draw has.
  const int n = 400;
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = (i % 2 ? 1.0f : -1.0f) * (0.5f + static_cast<float>(i) / n);
  Tensor x = f32(Shape{n}, v), out, noise;
  const float lower = 0.1f, upper = 0.3f;
  k::rrelu(x, out, &noise, rr(lower, upper, false));
  std::set<double> slopes;
  for (int i = 0; i < n; ++i) {
    const double xi = get(x, i), s = get(noise, i);
    if (xi < 0) {
      CHECK(s >= lower);
      CHECK(s <= upper);
      CHECK(get(out, i) == static_cast<double>(static_cast<float>(s) * static_cast<float>(xi)));
      slopes.insert(s);
    } else {
      CHECK(s == 1);
      CHECK(get(out, i) == xi);
    }
  }
  CHECK(slopes.size() > 150);  // 200 negative elements: independent draws almost never repeat
  // Their spread covers the range: a constant or mid-only slope would not.
  CHECK(*slopes.begin() < lower + 0.02);
  CHECK(*slopes.rbegin() > upper - 0.02);
  // The next call draws afresh (the global stream moves on).
  Tensor noise2;
  k::rrelu(x, out, &noise2, rr(lower, upper, false));
  CHECK(values(noise2) != values(noise));
  // The gradient is Noise where X < 0 and 1 elsewhere, whatever was drawn.
  Tensor dout = f32(Shape{n}, std::vector<float>(n, 2.0f)), dx;
  k::rrelu_grad(x, noise, dout, &dx);
  for (int i = 0; i < n; ++i) CHECK(get(dx, i) == (get(x, i) < 0 ? static_cast<double>(2.0f * static_cast<float>(get(noise, i))) : 2.0));
}

TEST_CASE("rrelu_grad: finite differences in test mode; shape mismatches fail", "[rrelu][grad]") {
  // fp64: the kink at 0 is then far (|x| > 1e-6 for these draws) from every step.
  std::mt19937 rng(3);
  Tensor x = random(Shape{4, 5}, DType::kFP64, rng), noise;
  const k::RreluAttrs a = rr(0.2f, 0.6f, true);
  CHECK_GRADCHECK_OP("rrelu", {&x}, [&](Tensor& out) { k::rrelu(x, out, &noise, a); },
                     [&](const Tensor& dout, std::vector<Tensor*>& g) { k::rrelu_grad(x, noise, dout, g[0]); });
  Tensor short_noise = f64(Shape{3}, {1, 1, 1}), dx;
  CHECK_THROWS_WITH(k::rrelu_grad(x, short_noise, x, &dx), Catch::Contains("must have one shape"));
}
