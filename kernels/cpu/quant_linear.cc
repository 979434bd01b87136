// kernels/cpu/quant_linear.cc - quantize_linear and dequantize_linear (Paddle >= 2.3's fake-quant pair), simulated in float.
#include "kernels/cpu/quant_math.h"
#include "kernels/quant.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// Writes a one-value state output of dtype T.
template <class T>
void put_scalar(Tensor* t, T v) {
  if (!t) return;
  t->resize(Shape{1}, DTypeOf<T>::value);
  t->data<T>()[0] = v;
}

}  // namespace

void quantize_linear(const Tensor& x, const Tensor& scale, const Tensor& zero_point, const Tensor* in_accum,
                     const Tensor* in_state, Tensor& y, Tensor* out_state, Tensor* out_accum, Tensor* out_scale,
                     const QuantLinearAttrs& a) {
  constexpr const char* op = "quantize_linear";
  (void)zero_point;  // symmetric quantization: Paddle's kernel never reads it
  require_init(op, "X", x);
  if (x.dtype() != DType::kFP32) fail_dtype(op, "X", x.dtype());
  const int bin = quant::bin_count(op, a.bit_length);
  quant::check_round_type(op, a.round_type);
  const bool per_tensor = a.quant_axis < 0;
  const quant::Channels v = per_tensor ? quant::whole(x) : quant::channels_of(op, x.shape(), a.quant_axis);
  const float* px = x.data<float>();
  // The scales this run quantizes with; in training, computed from X.
  Tensor& tmp = scratch(Slot::kTmp0);
  const float* scales = nullptr;
  if (a.is_test) {
    quant::require_scales(op, "Scale", scale, x, v.channels);
    scales = scale.data<float>();
  } else if (per_tensor) {
    quant::require_scalar(op, "InAccum", in_accum, x);
    quant::require_scalar(op, "InState", in_state, x);
    float state = in_state->data<float>()[0], accum = in_accum->data<float>()[0];
    const float s = quant::moving_average(a.moving_rate, quant::abs_max(px, x.numel()), state, accum);
    put_scalar(out_state, state);
    put_scalar(out_accum, accum);
    put_scalar(out_scale, s);
    tmp.resize(Shape{1}, DType::kFP32);
    tmp.data<float>()[0] = s;
    scales = tmp.data<float>();
  } else {
    tmp.resize(Shape{v.channels}, DType::kFP32);
    float* ps = tmp.data<float>();
    for (int64_t c = 0; c < v.channels; ++c) ps[c] = 0;
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t c = 0; c < v.channels; ++c) {
        const float m = quant::abs_max(px + (o * v.channels + c) * v.inner, v.inner);
        ps[c] = m > ps[c] ? m : ps[c];
      }
    if (out_scale && out_scale != &x) out_scale->copy_from(tmp);
    scales = ps;
  }
  if (a.only_observer) {
    if (&y != &x) y.copy_from(x);
    return;
  }
  y.resize(x.shape(), DType::kFP32);  // same-index loop: Y may be X
  quant::apply_levels(px, scales, v, bin, a.round_type, false, y.data<float>());
}

void dequantize_linear(const Tensor& x, const Tensor& scale, const Tensor& zero_point, const Tensor* in_accum,
                       const Tensor* in_state, Tensor& y, Tensor* out_state, Tensor* out_accum, Tensor* out_scale,
                       const QuantLinearAttrs& a) {
  constexpr const char* op = "dequantize_linear";
  (void)zero_point, (void)in_accum, (void)in_state, (void)out_state, (void)out_accum, (void)out_scale;
  require_init(op, "X", x);
  require_init(op, "Scale", scale);
  const int bin = quant::bin_count(op, a.bit_length);
  const quant::Channels v = a.quant_axis < 0 ? quant::whole(x) : quant::channels_of(op, x.shape(), a.quant_axis);
  if (scale.numel() != v.channels)
    rt::fail(fmt::format("{}: Scale {} must hold {} value(s) for X {} (quant_axis {})", op, scale.shape().str(),
                         v.channels, x.shape().str(), a.quant_axis));
  // Y takes Scale's dtype; X is converted to it first (an int8 weight).
  visit_float(op, "Scale", scale.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* ps = scale.data<T>();
    const int64_t n = x.numel();
    auto run = [&](auto xtag) {
      using X = decltype(xtag);
      // Y may be X only when both have T's width; then the loop is same-index.
      OutBuf yb(&y, Slot::kOut0, &y == &x && sizeof(X) != sizeof(T));
      const X* px = x.data<X>();
      yb.get().resize(x.shape(), DTypeOf<T>::value);
      T* py = yb.get().data<T>();
      if (a.only_observer) {
        for (int64_t i = 0; i < n; ++i) py[i] = static_cast<T>(px[i]);
      } else {
        const T b = static_cast<T>(bin);
        for (int64_t o = 0; o < v.outer; ++o)
          for (int64_t c = 0; c < v.channels; ++c) {
            const T s = ps[c];
            const int64_t base = (o * v.channels + c) * v.inner;
            for (int64_t k = 0; k < v.inner; ++k) py[base + k] = quant::dequant(static_cast<T>(px[base + k]), s, b);
          }
      }
      yb.finish();
    };
    switch (x.dtype()) {
      case DType::kFP32: run(float{}); break;
      case DType::kFP64: run(double{}); break;
      case DType::kInt8: run(int8_t{}); break;
      default: fail_dtype(op, "X", x.dtype());
    }
  });
}

}  // namespace fluidc::kernels
