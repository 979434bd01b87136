// kernels/cpu/dropout.cc - dropout and its gradient (declared in kernels/norm.h, the regularisation ops' header).
#include <cstdint>

#include "kernels/cpu/kernel_util.h"
#include "kernels/fill.h"
#include "kernels/norm.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// The Seed input: one int32/int64 value computed by the program.
int seed_value(const Tensor& t) {
  require_init("dropout", "Seed", t);
  if (t.numel() != 1) rt::fail(fmt::format("dropout: Seed must hold one value, not {}", t.shape().str()));
  if (t.dtype() == DType::kInt32) return *t.data<int32_t>();
  if (t.dtype() == DType::kInt64) return static_cast<int>(*t.data<int64_t>());
  fail_dtype("dropout", "Seed", t.dtype());
}

}  // namespace

namespace {

bool upscale(const char* op, const DropoutAttrs& a) {
  if (a.dropout_implementation == "upscale_in_train") return true;
  if (a.dropout_implementation == "downgrade_in_infer") return false;
  rt::fail(fmt::format("{}: dropout_implementation {} is neither downgrade_in_infer nor upscale_in_train", op,
                       a.dropout_implementation));
}

void check_prob(const char* op, float p) {
  if (!(p >= 0.0f && p <= 1.0f)) rt::fail(fmt::format("{}: dropout_prob {} is not in [0, 1]", op, p));
}

}  // namespace

void dropout(const Tensor& x, const Tensor* seed, Tensor& out, Tensor* mask, const DropoutAttrs& a) {
  const char* op = "dropout";
  require_init(op, "X", x);
  check_prob(op, a.dropout_prob);
  const bool up = upscale(op, a);
  const double p = a.dropout_prob;
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t n = x.numel();
    const T* px = x.data<T>();
    if (a.is_test) {
      const T f = static_cast<T>(dropout_test_factor(a));
      out.resize(x.shape(), x.dtype());
      T* po = out.data<T>();
      for (int64_t i = 0; i < n; ++i) po[i] = px[i] * f;
      return;
    }
    const int s = seed ? seed_value(*seed) : (a.fix_seed ? a.seed : 0);
    const RandomStreamStart st = claim_random_stream(s, static_cast<uint64_t>(n));
    const T keep_scale = static_cast<T>(up ? (p < 1.0 ? 1.0 / (1.0 - p) : 0.0) : 1.0);
    Tensor& m = mask ? *mask : scratch(Slot::kTmp0);
    m.resize(x.shape(), DType::kUInt8);
    uint8_t* pm = m.data<uint8_t>();
    out.resize(x.shape(), x.dtype());
    T* po = out.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      const bool keep = p < 1.0 && random_unit(st, static_cast<uint64_t>(i)) >= p;
      pm[i] = keep ? 1 : 0;
      po[i] = keep ? px[i] * keep_scale : T(0);
    }
  });
}

void dropout_grad(const Tensor& mask, const Tensor& out_grad, Tensor* x_grad, const DropoutAttrs& a) {
  const char* op = "dropout_grad";
  if (!x_grad) return;
  require_init(op, "Out@GRAD", out_grad);
  check_prob(op, a.dropout_prob);
  const bool up = upscale(op, a);
  const double p = a.dropout_prob;
  if (!a.is_test) {
    require_init(op, "Mask", mask);
    if (mask.dtype() != DType::kUInt8) fail_dtype(op, "Mask", mask.dtype());
    require_same_shape(op, "Mask", mask, "Out@GRAD", out_grad);
  }
  visit_float(op, "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t n = out_grad.numel();
    const T* pd = out_grad.data<T>();
    x_grad->resize(out_grad.shape(), out_grad.dtype());
    T* px = x_grad->data<T>();
    if (a.is_test) {
      const T f = static_cast<T>(dropout_test_factor(a));
      for (int64_t i = 0; i < n; ++i) px[i] = pd[i] * f;
      return;
    }
    const T f = static_cast<T>(up ? (p < 1.0 ? 1.0 / (1.0 - p) : 0.0) : 1.0);
    const uint8_t* pm = mask.data<uint8_t>();
    for (int64_t i = 0; i < n; ++i) px[i] = pm[i] ? pd[i] * f : T(0);
  });
}

}  // namespace fluidc::kernels
