// test/unit/kernels/rnn_act_test.cc - the fp32 exp/sigmoid/tanh of the recurrent gates, in ulps against double-precision libm over the whole float range.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/cpu/rnn_act.h"
#include "kernels/pointwise.h"

namespace pw = fluidc::kernels::pw;
namespace act = fluidc::kernels::rnn_act;

namespace {

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

/// |got - want| in units in the last place of fp32 at want (the spacing of
/// floats in want's binade; 2^-149 among the subnormals). A result that
/// should overflow must be inf and counts 0 if it is; a NaN where a number
/// is wanted counts as infinitely wrong.
double ulps(float got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0.0 : HUGE_VAL;
  if (std::isnan(got)) return HUGE_VAL;
  if (std::fabs(want) > std::numeric_limits<float>::max()) return got == static_cast<float>(want) ? 0.0 : HUGE_VAL;
  int e = 0;
  std::frexp(want, &e);  // |want| in [2^(e-1), 2^e)
  const double ulp = std::ldexp(1.0, std::max(e - 24, -149));
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

struct Worst {
  double ulps = 0.0;
  float at = 0.0f;
};

/// The worst error of fn (which fills out[i] from xs[i], n values) against
/// ref over every 61st fp32 bit pattern from +0 up to +inf and its negative
/// (35 million values: all exponents, subnormals included, and mantissa
/// patterns), then the points the bounds turn on. In chunks, as the gate
/// loops see arrays.
template <class Fn, class R>
Worst sweep(Fn fn, R ref) {
  Worst w;
  std::vector<float> xs, out;
  auto check = [&] {
    out.resize(xs.size());
    fn(xs.data(), out.data(), static_cast<int64_t>(xs.size()));
    for (size_t i = 0; i < xs.size(); ++i) {
      const double e = ulps(out[i], ref(static_cast<double>(xs[i])));
      if (e > w.ulps) w.ulps = e, w.at = xs[i];
    }
    xs.clear();
  };
  for (uint32_t bits = 0; bits < 0x7f800000u; bits += 61) {
    float x;
    std::memcpy(&x, &bits, 4);
    xs.push_back(x);
    xs.push_back(-x);
    if (xs.size() >= 8192) check();
  }
  for (float x : {0.55f, 9.01f, 10.0f, 87.33f, 88.0f, 88.72f, 88.7228f, 89.0f, 103.9f, 104.0f, 1e-45f,
                  1.17549435e-38f, kInf})
    xs.push_back(x), xs.push_back(-x);
  check();
  return w;
}

double exact_sigmoid(double x) { return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); }

}  // namespace

TEST_CASE("fp32 exp, sigmoid and tanh are within a few ulp over the whole float range", "[rnn_act]") {
  // One value at a time (the pointwise ops' inline forms) and the gate loops
  // (this CPU's copy of rnn_act.cc: AVX-512, AVX2+FMA or SSE2). Measured worst
  // cases on a baseline x86-64 build: 1.2 (exp), 2.4 (sigmoid), 1.5 (tanh)
  // ulp; glibc's own tanhf reaches 2.2 on the same sweep.
  auto each = [](auto f) {
    return [f](const float* x, float* y, int64_t n) {
      for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
    };
  };
  auto gate_loop = [](void (*f)(float*, int64_t)) {
    return [f](const float* x, float* y, int64_t n) {
      std::copy(x, x + n, y);
      f(y, n);
    };
  };
  const auto libm_exp = [](double x) { return std::exp(x); };
  const auto libm_tanh = [](double x) { return std::tanh(x); };
  Worst w = sweep(each([](float x) { return pw::exp_f32(x); }), libm_exp);
  INFO("exp worst " << w.ulps << " ulp at " << w.at);
  CHECK(w.ulps < 2.0);
  w = sweep(each([](float x) { return pw::sigmoid_f32(x); }), exact_sigmoid);
  INFO("sigmoid worst " << w.ulps << " ulp at " << w.at);
  CHECK(w.ulps < 3.0);
  w = sweep(gate_loop(&act::sigmoid_f32_n), exact_sigmoid);
  INFO("sigmoid_f32_n worst " << w.ulps << " ulp at " << w.at);
  CHECK(w.ulps < 3.0);
  w = sweep(each([](float x) { return pw::tanh_f32(x); }), libm_tanh);
  INFO("tanh worst " << w.ulps << " ulp at " << w.at);
  CHECK(w.ulps < 2.0);
  w = sweep(gate_loop(&act::tanh_f32_n), libm_tanh);
  INFO("tanh_f32_n worst " << w.ulps << " ulp at " << w.at);
  CHECK(w.ulps < 2.0);
}

TEST_CASE("fp32 exp, sigmoid and tanh at the edges: saturation, subnormals, inf, NaN", "[rnn_act]") {
  // exp: subnormal results (one rounding), underflow to 0, overflow to inf.
  CHECK(ulps(pw::exp_f32(-100.0f), std::exp(-100.0)) < 1.0);  // 3.7e-44, a subnormal
  CHECK(pw::exp_f32(-100.0f) > 0.0f);
  CHECK(pw::exp_f32(-104.0f) == 0.0f);
  CHECK(pw::exp_f32(-1000.0f) == 0.0f);
  CHECK(pw::exp_f32(-kInf) == 0.0f);
  CHECK(std::isfinite(pw::exp_f32(88.72f)));
  CHECK(pw::exp_f32(88.73f) == kInf);
  CHECK(pw::exp_f32(kInf) == kInf);
  CHECK(pw::exp_f32(0.0f) == 1.0f);
  CHECK(pw::exp_f32(1e-45f) == 1.0f);  // a subnormal argument
  CHECK(std::isnan(pw::exp_f32(kNaN)));
  CHECK(std::isnan(pw::exp_f32(-kNaN)));
  // sigmoid: exactly 1 and 0.5 where fp32 rounds there, subnormal tails, 0 beyond.
  CHECK(pw::sigmoid_f32(0.0f) == 0.5f);
  CHECK(pw::sigmoid_f32(-0.0f) == 0.5f);
  CHECK(pw::sigmoid_f32(17.0f) == 1.0f);
  CHECK(pw::sigmoid_f32(kInf) == 1.0f);
  CHECK(pw::sigmoid_f32(-kInf) == 0.0f);
  CHECK(pw::sigmoid_f32(-100.0f) > 0.0f);  // e^-100, subnormal, not flushed
  CHECK(ulps(pw::sigmoid_f32(-100.0f), exact_sigmoid(-100.0)) < 1.0);
  CHECK(ulps(pw::sigmoid_f32(-90.0f), exact_sigmoid(-90.0)) < 3.0);  // past where 1 + e^90 overflows
  CHECK(pw::sigmoid_f32(-200.0f) == 0.0f);
  CHECK(pw::sigmoid_f32(1e-45f) == 0.5f);
  CHECK(std::isnan(pw::sigmoid_f32(kNaN)));
  // tanh: odd, exact near 0 (subnormals), +-1 from 9.01 on, NaN through.
  CHECK(pw::tanh_f32(1e-45f) == 1e-45f);
  CHECK(pw::tanh_f32(-1e-40f) == -1e-40f);
  CHECK(std::signbit(pw::tanh_f32(-0.0f)));
  CHECK(pw::tanh_f32(9.1f) == 1.0f);
  CHECK(pw::tanh_f32(-1e30f) == -1.0f);
  CHECK(pw::tanh_f32(-kInf) == -1.0f);
  CHECK(std::isnan(pw::tanh_f32(kNaN)));
  // The gate loops: the same values, NaN in one lane not leaking into the others.
  std::vector<float> s = {kNaN, -kInf, -200.0f, -100.0f, 0.0f, 17.0f, kInf, 0.25f, -0.25f};
  std::vector<float> t = s;
  act::sigmoid_f32_n(s.data(), static_cast<int64_t>(s.size()));
  act::tanh_f32_n(t.data(), static_cast<int64_t>(t.size()));
  CHECK(std::isnan(s[0]));
  CHECK(std::isnan(t[0]));
  CHECK(s[1] == 0.0f);
  CHECK(s[2] == 0.0f);
  CHECK(s[3] > 0.0f);
  CHECK(s[4] == 0.5f);
  CHECK(s[5] == 1.0f);
  CHECK(s[6] == 1.0f);
  CHECK(t[1] == -1.0f);
  CHECK(t[6] == 1.0f);
  CHECK(ulps(s[7], exact_sigmoid(0.25)) < 3.0);
  CHECK(ulps(t[8], std::tanh(-0.25)) < 2.0);
}

TEST_CASE("apply_n applies each named activation; fp64 keeps libm's", "[rnn_act]") {
  std::vector<double> d = {-2.0, -0.5, 0.0, 0.5, 3.0};
  std::vector<double> sig = d, th = d, relu = d, id = d;
  act::apply_n(act::Act::kSigmoid, sig.data(), 5);
  act::apply_n(act::Act::kTanh, th.data(), 5);
  act::apply_n(act::Act::kRelu, relu.data(), 5);
  act::apply_n(act::Act::kIdentity, id.data(), 5);
  for (size_t i = 0; i < d.size(); ++i) {
    CHECK(sig[i] == 1.0 / (1.0 + std::exp(-d[i])));
    CHECK(th[i] == std::tanh(d[i]));
    CHECK(relu[i] == (d[i] > 0 ? d[i] : 0.0));
    CHECK(id[i] == d[i]);
  }
  std::vector<float> f = {-2.0f, -0.5f, 0.0f, 0.5f, 3.0f};
  std::vector<float> fs = f, ft = f;
  act::apply_n(act::Act::kSigmoid, fs.data(), 5);
  act::apply_n(act::Act::kTanh, ft.data(), 5);
  for (size_t i = 0; i < f.size(); ++i) {
    CHECK(ulps(fs[i], exact_sigmoid(f[i])) < 3.0);
    CHECK(ulps(ft[i], std::tanh(static_cast<double>(f[i]))) < 2.0);
    CHECK(act::apply(act::Act::kSigmoid, f[i]) == pw::sigmoid_f32(f[i]));
  }
}
