// kernels/cpu/rrelu.cc - rrelu (random leaky ReLU) and its gradient.
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/fill.h"
#include "kernels/rrelu.h"

namespace fluidc::kernels {

using namespace detail;

void rrelu(const Tensor& x, Tensor& out, Tensor* noise, const RreluAttrs& a) {
  constexpr const char* op = "rrelu";
  require_init(op, "X", x);
  if (!(a.lower >= 0.0f && a.lower <= a.upper && a.upper <= 1.0f))
    rt::fail(fmt::format("{}: lower {} and upper {} must satisfy 0 <= lower <= upper <= 1", op, a.lower, a.upper));
  // Noise is read from X's element i only to be written at i; a Noise bound
  // to X itself (never in a Paddle program) goes through scratch.
  OutBuf nb(noise ? noise : &scratch(Slot::kTmp0), Slot::kOut1, noise == &x);
  const int64_t n = x.numel();
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    nb.get().resize(x.shape(), x.dtype());
    T* pn = nb.get().data<T>();
    if (a.is_test) {
      const T mid = static_cast<T>((a.lower + a.upper) / 2.0);
      for (int64_t i = 0; i < n; ++i) pn[i] = px[i] < T(0) ? mid : T(1);
    } else {
      const RandomStreamStart st = claim_random_stream(0, static_cast<uint64_t>(n));
      const double span = static_cast<double>(a.upper) - a.lower;
      for (int64_t i = 0; i < n; ++i)
        pn[i] = px[i] < T(0) ? static_cast<T>(a.lower + span * random_unit(st, static_cast<uint64_t>(i))) : T(1);
    }
    out.resize(x.shape(), x.dtype());  // Out may be X: element i is read above before it is written here
    T* po = out.data<T>();
    for (int64_t i = 0; i < n; ++i) po[i] = px[i] < T(0) ? pn[i] * px[i] : px[i];
  });
  nb.finish();
}

void rrelu_grad(const Tensor& x, const Tensor& noise, const Tensor& out_grad, Tensor* x_grad) {
  constexpr const char* op = "rrelu_grad";
  if (!x_grad) return;
  require_init(op, "X", x);
  require_init(op, "Noise", noise);
  require_init(op, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Noise", noise);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  if (noise.shape() != x.shape() || out_grad.shape() != x.shape())
    rt::fail(fmt::format("{}: X {}, Noise {} and Out@GRAD {} must have one shape", op, x.shape().str(),
                         noise.shape().str(), out_grad.shape().str()));
  const int64_t n = x.numel();
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    const T* pn = noise.data<T>();
    const T* pg = out_grad.data<T>();
    // Same-index reads and writes: X@GRAD may be any of the inputs.
    x_grad->resize(x.shape(), x.dtype());
    T* pd = x_grad->data<T>();
    for (int64_t i = 0; i < n; ++i) pd[i] = px[i] > T(0) ? pg[i] : pn[i] * pg[i];
  });
}

}  // namespace fluidc::kernels
