// kernels/cpu/histogram.cc - bincount and histogram: one pass of counts over X.
#include <algorithm>
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/histogram.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

/// X's largest value, each checked to be >= 0 (-1 for an empty X).
template <class I>
int64_t largest_checked(const char* op, const I* v, int64_t n) {
  int64_t top = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (v[i] < 0) rt::fail(fmt::format("{}: X value {} (entry {}) is negative", op, static_cast<int64_t>(v[i]), i));
    top = std::max<int64_t>(top, v[i]);
  }
  return top;
}

/// f(int32_t{}) or f(int64_t{}) by X's dtype (checked to be one of them).
template <class F>
void visit_ids(const Tensor& x, F&& f) {
  if (x.dtype() == DType::kInt32) f(int32_t{});
  else f(int64_t{});
}

}  // namespace

void bincount(const Tensor& x, const Tensor* weights, Tensor& out, const BincountAttrs& a) {
  constexpr const char* op = "bincount";
  require_init(op, "X", x);
  if (x.dtype() != DType::kInt32 && x.dtype() != DType::kInt64)
    rt::fail(fmt::format("{}: X must be int32 or int64, not {}", op, rt::dtype_name(x.dtype())));
  if (x.shape().rank != 1) rt::fail(fmt::format("{}: X {} must be 1-D", op, x.shape().str()));
  if (a.minlength < 0) rt::fail(fmt::format("{}: minlength {} must not be negative", op, a.minlength));
  if (weights) {
    require_init(op, "Weights", *weights);
    require_same_shape(op, "X", x, "Weights", *weights);
  }
  const int64_t n = x.numel();
  int64_t top = -1;
  visit_ids(x, [&](auto tag) { top = largest_checked(op, x.data<decltype(tag)>(), n); });
  const int64_t len = n == 0 ? 0 : std::max<int64_t>(top + 1, a.minlength);
  const DType dt = !weights ? DType::kInt64
                   : (weights->dtype() == DType::kFP32 || weights->dtype() == DType::kFP64) ? weights->dtype()
                                                                                              : DType::kFP64;
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x, weights}));
  Tensor& o = buf.get();
  o.resize(Shape{len}, dt);
  o.zero();
  visit_ids(x, [&](auto xtag) {
    const auto* xv = x.data<decltype(xtag)>();
    if (!weights) {
      int64_t* c = o.data<int64_t>();
      for (int64_t i = 0; i < n; ++i) ++c[xv[i]];
      return;
    }
    visit_numeric(op, "Weights", weights->dtype(), [&](auto wtag) {
      const auto* wv = weights->data<decltype(wtag)>();
      visit_float(op, "Out", dt, [&](auto otag) {
        using O = decltype(otag);
        O* s = o.data<O>();
        for (int64_t i = 0; i < n; ++i) s[xv[i]] += static_cast<O>(wv[i]);
      });
    });
  });
  buf.finish();
}

void histogram(const Tensor& x, Tensor& out, const HistogramAttrs& a) {
  constexpr const char* op = "histogram";
  require_init(op, "X", x);
  if (a.bins < 1) rt::fail(fmt::format("{}: bins {} must be at least 1", op, a.bins));
  if (a.min > a.max) rt::fail(fmt::format("{}: min {} is greater than max {}", op, a.min, a.max));
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x}));
  Tensor& o = buf.get();
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* v = x.data<T>();
    const int64_t n = x.numel();
    double lo = a.min, hi = a.max;
    if (a.min == 0 && a.max == 0 && n > 0) {
      lo = hi = static_cast<double>(v[0]);
      for (int64_t i = 1; i < n; ++i) lo = std::min(lo, double(v[i])), hi = std::max(hi, double(v[i]));
    }
    if (!std::isfinite(lo) || !std::isfinite(hi))
      rt::fail(fmt::format("{}: the range [{}, {}] is not finite (X holds an infinity or NaN)", op, lo, hi));
    if (lo == hi) lo -= 1, hi += 1;
    o.resize(Shape{a.bins}, DType::kInt64);
    o.zero();
    int64_t* c = o.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      const double d = static_cast<double>(v[i]);
      if (!(d >= lo && d <= hi)) continue;  // NaN too
      const int64_t bin = std::min<int64_t>(static_cast<int64_t>((d - lo) * static_cast<double>(a.bins) / (hi - lo)), a.bins - 1);
      ++c[bin];
    }
  });
  buf.finish();
}

}  // namespace fluidc::kernels
