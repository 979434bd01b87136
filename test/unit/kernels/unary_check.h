// test/unit/kernels/unary_check.h - value and finite-difference checks shared by the unary op kernel tests.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <initializer_list>
#include <random>

#include "test/unit/kernels/gradcheck.h"

namespace fluidc::test {

using Fwd = std::function<void(const Tensor& x, Tensor& out)>;
using Ref = std::function<double(double)>;

/// Runs `fwd` in fp64 and fp32 on `xs` and compares with the double formula.
inline void check_values(const char* op, const Fwd& fwd, const Ref& ref, std::initializer_list<double> xs) {
  for (DType dt : {DType::kFP64, DType::kFP32}) {
    Tensor x;
    x.resize(Shape{static_cast<int64_t>(xs.size())}, dt);
    int64_t i = 0;
    for (double v : xs) set(x, i++, v);
    Tensor out;
    fwd(x, out);
    REQUIRE(out.dtype() == dt);
    REQUIRE(out.shape() == x.shape());
    const double eps = dt == DType::kFP64 ? 1e-12 : 2e-6;
    for (i = 0; i < x.numel(); ++i) {
      INFO(op << "(" << get(x, i) << ") " << rt::dtype_name(dt));
      CHECK(get(out, i) == Approx(ref(get(x, i))).epsilon(eps).margin(eps));
    }
  }
}

/// Uniform values in [lo, hi) at least 0.05 (farther than the fp32 step)
/// from every point of `kinks`.
inline Tensor draw(DType dt, double lo, double hi, std::initializer_list<double> kinks, uint32_t seed = 21) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  Tensor t;
  t.resize(Shape{3, 5}, dt);
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v;
    bool near;
    do {
      v = u(rng);
      near = false;
      for (double kk : kinks) near |= std::abs(v - kk) < 0.05;
    } while (near);
    set(t, i, v);
  }
  return t;
}

/// The gradient kernel as called with every slot Paddle gives it; it may use
/// X, Out or both.
using Bwd = std::function<void(const Tensor& x, const Tensor& out, const Tensor& dout, Tensor* dx)>;

inline void grad(const char* op, const Fwd& fwd, const Bwd& bwd, double lo, double hi,
                 std::initializer_list<double> kinks = {}) {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    INFO(op << " " << rt::dtype_name(dt));
    Tensor x = draw(dt, lo, hi, kinks);
    CHECK_GRADCHECK_OP(op, {&x}, [&](Tensor& out) { fwd(x, out); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         Tensor out;
                         fwd(x, out);
                         bwd(x, out, dout, g[0]);
                       });
  }
}

}  // namespace fluidc::test
