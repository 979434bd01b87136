// test/unit/kernels/pointwise_test.cc - fluidc's fp32 exp/tanh/sigmoid against double-precision libm, swept over the float range.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/pointwise.h"

namespace pw = fluidc::kernels::pw;

namespace {

/// Largest relative error of f against ref over positive fp32 values in
/// [lo, hi) and their negatives: every 61st representable value (millions,
/// all exponents and mantissa patterns; every one would take minutes).
template <class F, class R>
double max_rel_error(float lo, float hi, F f, R ref, float* worst) {
  double max = 0.0;
  uint32_t bits, end;
  std::memcpy(&bits, &lo, 4);
  std::memcpy(&end, &hi, 4);
  for (; bits < end; bits += 61) {
    float x;
    std::memcpy(&x, &bits, 4);
    for (float v : {x, -x}) {
      const double want = ref(static_cast<double>(v));
      if (want == 0.0) continue;
      const double err = std::fabs(static_cast<double>(f(v)) - want) / std::fabs(want);
      if (err > max) max = err, *worst = v;
    }
  }
  return max;
}

}  // namespace

TEST_CASE("fp32 tanh and sigmoid stay within 2e-7 relative of the exact values", "[pointwise]") {
  float worst = 0.0f;
  // From 1e-6 up (and the negatives) covers both of tanh's formulas and the clamp; below, tanh(x) = x.
  double e = max_rel_error(1e-6f, 12.0f, [](float x) { return pw::Tanh::f(x); },
                           [](double x) { return std::tanh(x); }, &worst);
  INFO("tanh worst at " << worst);
  CHECK(e < 2e-7);
  e = max_rel_error(1e-6f, 80.0f, [](float x) { return pw::Sigmoid::f(x); },
                    [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, &worst);
  INFO("sigmoid worst at " << worst);
  CHECK(e < 2e-7);
  e = max_rel_error(1e-6f, 80.0f, [](float x) { return pw::exp_f32(x); }, [](double x) { return std::exp(x); },
                    &worst);
  INFO("exp worst at " << worst);
  CHECK(e < 2e-7);
}

TEST_CASE("fp32 tanh and sigmoid at the edges: zero, tiny, huge, inf, NaN", "[pointwise]") {
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(pw::Tanh::f(0.0f) == 0.0f);
  CHECK(std::signbit(pw::Tanh::f(-0.0f)));
  CHECK(pw::Tanh::f(1e-20f) == 1e-20f);
  CHECK(pw::Tanh::f(30.0f) == 1.0f);
  CHECK(pw::Tanh::f(inf) == 1.0f);
  CHECK(pw::Tanh::f(-inf) == -1.0f);
  CHECK(std::isnan(pw::Tanh::f(std::numeric_limits<float>::quiet_NaN())));
  CHECK(pw::Sigmoid::f(200.0f) == 1.0f);
  CHECK(pw::Sigmoid::f(-200.0f) < 1e-37f);
  CHECK(pw::Sigmoid::f(0.0f) == 0.5f);
  // fp64 keeps libm's functions.
  CHECK(pw::Tanh::f(0.5) == std::tanh(0.5));
}
