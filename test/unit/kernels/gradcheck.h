// test/unit/kernels/gradcheck.h - finite-difference check of a *_grad kernel against its forward kernel.
//
// The op's output Out is reduced to a scalar L = sum_i w_i * Out_i with fixed
// random weights w, so the analytic gradient is the grad kernel called with
// Out@GRAD = w. (Random weights rather than plain sum: with a plain sum some
// gradients vanish identically, e.g. softmax's, and the check would pass
// for any kernel.) Each input element x is then perturbed to x+h and x-h and
//   numeric = (L(x+h) - L(x-h)) / (x_+ - x_-)
// is compared with the analytic value, where x_+ and x_- are the values
// actually stored (rounded to the tensor's dtype), not x +- h.
//
// Step and tolerances per dtype, and why:
//   fp32: h = 1e-2, |a - n| <= 1e-3 + 1e-2 * max(|a|, |n|).
//     fp32 rounding of each output is ~6e-8 relative; divided by 2h that is
//     ~3e-6 * |Out| per output touched by the perturbation. The central
//     difference's truncation error is ~h^2/6 * |f'''|, ~2e-5 for the smooth
//     O(1) functions tested. A smaller h would drown in rounding, a larger
//     one in truncation; the tolerances leave a ~50x margin over both.
//   fp64: h = 1e-6, |a - n| <= 1e-7 + 1e-6 * max(|a|, |n|).
//     Rounding ~1e-16/2e-6 = 5e-11, truncation ~1e-13: a far tighter check
//     of the same formulas, run wherever the kernel supports fp64.
// Inputs are drawn in [-1, 1] (away from kinks and poles where needed) so
// the scales above hold.
//
// The check FAILS when every analytic gradient is zero: a grad kernel that
// writes zeros would otherwise pass against a locally flat forward.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test/unit/kernels/kernel_test_util.h"

namespace fluidc::test {

struct GradCheckOptions {
  double eps = 1e-2;
  double rtol = 1e-2;
  double atol = 1e-3;
  uint32_t seed = 1234;

  /// The defaults above are for fp32; see the file comment for both choices.
  static GradCheckOptions for_dtype(DType dt) {
    GradCheckOptions o;
    if (dt == DType::kFP64) {
      o.eps = 1e-6;
      o.rtol = 1e-6;
      o.atol = 1e-7;
    }
    return o;
  }
};

struct GradCheckResult {
  bool ok = true;
  std::string report;
};

/// Recomputes Out from the current contents of the inputs.
using Forward = std::function<void(Tensor& out)>;
/// Runs the grad kernel with Out@GRAD = dout; grads[k] must receive the
/// gradient w.r.t. *wrt[k] (the checker owns those tensors).
using Backward = std::function<void(const Tensor& dout, std::vector<Tensor*>& grads)>;

inline double weighted_sum(const Tensor& out, const Tensor& w) {
  double s = 0;
  for (int64_t i = 0; i < out.numel(); ++i) s += get(out, i) * get(w, i);
  return s;
}

/// Checks backward against central differences of forward w.r.t. every
/// element of every tensor in `wrt` (which forward must read).
inline GradCheckResult gradcheck(const std::vector<Tensor*>& wrt, const Forward& forward,
                                 const Backward& backward, GradCheckOptions opt) {
  GradCheckResult r;
  std::ostringstream rep;
  Tensor out;
  forward(out);
  std::mt19937 rng(opt.seed);
  Tensor w = random(out.shape(), out.dtype(), rng);

  std::vector<Tensor> grads(wrt.size());
  std::vector<Tensor*> gp;
  for (auto& g : grads) gp.push_back(&g);
  backward(w, gp);

  double max_abs_analytic = 0;
  double worst = 0;
  for (size_t k = 0; k < wrt.size(); ++k) {
    Tensor& x = *wrt[k];
    const Tensor& g = grads[k];
    if (!g.initialized() || g.shape() != x.shape()) {
      r.ok = false;
      rep << "input " << k << ": gradient has shape " << (g.initialized() ? g.shape().str() : "<unset>")
          << " but the input has " << x.shape().str() << "\n";
      continue;
    }
    for (int64_t i = 0; i < x.numel(); ++i) {
      const double orig = get(x, i);
      set(x, i, orig + opt.eps);
      const double xp = get(x, i);
      forward(out);
      const double lp = weighted_sum(out, w);
      set(x, i, orig - opt.eps);
      const double xm = get(x, i);
      forward(out);
      const double lm = weighted_sum(out, w);
      set(x, i, orig);
      const double num = (lp - lm) / (xp - xm);
      const double ana = get(g, i);
      max_abs_analytic = std::max(max_abs_analytic, std::abs(ana));
      const double err = std::abs(ana - num);
      const double tol = opt.atol + opt.rtol * std::max(std::abs(ana), std::abs(num));
      worst = std::max(worst, err / tol);
      if (!(err <= tol)) {  // also catches NaN
        if (r.ok) rep << "mismatches (input, element: analytic vs numeric):\n";
        r.ok = false;
        rep << "  " << k << ", " << i << ": " << ana << " vs " << num << "\n";
      }
    }
  }
  if (max_abs_analytic == 0) {
    r.ok = false;
    rep << "every analytic gradient is zero: the check would prove nothing\n";
  }
  rep << "worst error / tolerance = " << worst << " (eps " << opt.eps << ")";
  r.report = rep.str();
  return r;
}

inline GradCheckResult gradcheck(const std::vector<Tensor*>& wrt, const Forward& forward,
                                 const Backward& backward) {
  return gradcheck(wrt, forward, backward, GradCheckOptions::for_dtype(wrt.at(0)->dtype()));
}

/// The forward ops whose gradient passed a check in this process. When
/// $FLUIDC_GRADCHECK_LOG names a file, they are written there at exit, one a
/// line, for test/unit/compiler/gradcheck_coverage_test.cc to compare with
/// the op table's differentiable ops.
struct GradCheckCoverage {
  std::set<std::string> ops;
  ~GradCheckCoverage() {
    const char* path = std::getenv("FLUIDC_GRADCHECK_LOG");
    if (!path || !*path) return;
    std::ofstream out(path);
    for (const auto& op : ops) out << op << "\n";
  }
};
inline GradCheckCoverage g_gradcheck_coverage;

}  // namespace fluidc::test

/// Runs gradcheck and reports its findings through Catch.
#define CHECK_GRADCHECK(...)                                   \
  do {                                                         \
    auto gc_result_ = ::fluidc::test::gradcheck(__VA_ARGS__); \
    INFO(gc_result_.report);                                   \
    CHECK(gc_result_.ok);                                      \
  } while (0)

/// CHECK_GRADCHECK for the gradient rule of forward op `op` (its Paddle
/// type): a passing check counts `op` as covered.
#define CHECK_GRADCHECK_OP(op, ...)                                 \
  do {                                                              \
    auto gc_result_ = ::fluidc::test::gradcheck(__VA_ARGS__);      \
    INFO((op) << ": " << gc_result_.report);                        \
    CHECK(gc_result_.ok);                                           \
    if (gc_result_.ok) ::fluidc::test::g_gradcheck_coverage.ops.insert(op); \
  } while (0)
