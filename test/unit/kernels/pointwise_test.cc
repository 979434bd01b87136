// test/unit/kernels/pointwise_test.cc - fluidc's fp32 exp/tanh/sigmoid/log/erf against double-precision libm, swept over the float range.
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

TEST_CASE("fp32 log and log1p stay within 2.5e-7 relative of the exact values", "[pointwise]") {
  // Over every 61st float from the smallest subnormal to the largest finite
  // (max_rel_error also tries the negatives; their NaN is checked below).
  double max = 0.0;
  float worst = 0.0f;
  for (uint32_t bits = 1; bits < 0x7f800000u; bits += 61) {
    float x;
    std::memcpy(&x, &bits, 4);
    const double want = std::log(static_cast<double>(x));
    if (want == 0.0) continue;
    const double err = std::fabs(static_cast<double>(pw::log_f32(x)) - want) / std::fabs(want);
    if (err > max) max = err, worst = x;
  }
  INFO("log worst at " << worst);
  CHECK(max < 2.5e-7);
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(pw::log_f32(1.0f) == 0.0f);
  CHECK(pw::log_f32(0.0f) == -inf);
  CHECK(pw::log_f32(inf) == inf);
  CHECK(std::isnan(pw::log_f32(-1.0f)));
  CHECK(std::isnan(pw::log_f32(std::numeric_limits<float>::quiet_NaN())));
  // log1p keeps tiny arguments that 1 + t would round away.
  for (float t : {1e-30f, 1e-9f, 3e-8f, 1e-4f, 0.3f, 1.0f}) {
    INFO("log1p(" << t << ")");
    CHECK(pw::log1p_f32(t) == Approx(std::log1p(static_cast<double>(t))).epsilon(3e-7));
  }
  CHECK(pw::Log::f(2.0) == std::log(2.0));  // fp64 keeps libm's
}

TEST_CASE("fp32 erf stays within 4e-7 relative of the exact value", "[pointwise]") {
  float worst = 0.0f;
  // From 1e-6 (below, erf(x) = 2x/sqrt(pi) to fp32 precision) past the clamp at 4.
  const double e = max_rel_error(1e-6f, 10.0f, [](float x) { return pw::erf_f32(x); },
                                 [](double x) { return std::erf(x); }, &worst);
  INFO("erf worst at " << worst);
  CHECK(e < 4e-7);
  CHECK(pw::erf_f32(0.0f) == 0.0f);
  CHECK(pw::erf_f32(1e-30f) == Approx(1.1283791670955126e-30).epsilon(1e-6));
  CHECK(pw::erf_f32(100.0f) == 1.0f);
  CHECK(pw::erf_f32(-std::numeric_limits<float>::infinity()) == -1.0f);
  CHECK(std::isnan(pw::erf_f32(std::numeric_limits<float>::quiet_NaN())));
  CHECK(pw::Erf::f(0.5) == std::erf(0.5));  // fp64 keeps libm's
}
