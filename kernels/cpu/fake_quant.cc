// kernels/cpu/fake_quant.cc - the older fake_* quantization ops (abs_max, channel-wise, moving average, range) and their straight-through gradient.
#include "kernels/cpu/quant_math.h"
#include "kernels/quant.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// The fake_* kernels are registered by Paddle for fp32 (the dequantize ones
// for fp64 too); X must be fp32 here except where noted.
void require_fp32(const char* op, const Tensor& x) {
  require_init(op, "X", x);
  if (x.dtype() != DType::kFP32) fail_dtype(op, "X", x.dtype());
}

void put_scalar(Tensor* t, float v) {
  if (!t) return;
  t->resize(Shape{1}, DType::kFP32);
  t->data<float>()[0] = v;
}

// Out = the levels (or their dequantized values) of X with one scale,
// max|X| of this run, written to OutScale.
void abs_max_op(const char* op, const Tensor& x, Tensor& out, Tensor& out_scale, const FakeQuantAbsMaxAttrs& a,
                bool dequantize) {
  require_fp32(op, x);
  const int bin = quant::bin_count(op, a.bit_length);
  quant::check_round_type(op, a.round_type);
  const float s = quant::abs_max(x.data<float>(), x.numel());
  out.resize(x.shape(), DType::kFP32);  // same-index loop: Out may be X
  quant::apply_levels(x.data<float>(), &s, quant::whole(x), bin, a.round_type, dequantize, out.data<float>());
  put_scalar(&out_scale, s);
}

// The moving-average ops: at is_test the scale is InScale; in training it
// is the moving average of max|X| over InState and InAccum.
void moving_op(const char* op, const Tensor& x, const Tensor& in_scale, const Tensor* in_accum, const Tensor* in_state,
               Tensor& out, Tensor& out_scale, Tensor* out_state, Tensor* out_accum, const FakeQuantMovingAttrs& a,
               bool dequantize) {
  require_fp32(op, x);
  const int bin = quant::bin_count(op, a.bit_length);
  quant::check_round_type(op, a.round_type);
  float s = 0;
  if (a.is_test) {
    quant::require_scales(op, "InScale", in_scale, x, 1);
    s = in_scale.data<float>()[0];
  } else {
    quant::require_scalar(op, "InAccum", in_accum, x);
    quant::require_scalar(op, "InState", in_state, x);
    float state = in_state->data<float>()[0], accum = in_accum->data<float>()[0];
    s = quant::moving_average(a.moving_rate, quant::abs_max(x.data<float>(), x.numel()), state, accum);
    put_scalar(out_state, state);
    put_scalar(out_accum, accum);
  }
  out.resize(x.shape(), DType::kFP32);
  quant::apply_levels(x.data<float>(), &s, quant::whole(x), bin, a.round_type, dequantize, out.data<float>());
  put_scalar(&out_scale, s);
}

}  // namespace

void fake_quantize_abs_max(const Tensor& x, Tensor& out, Tensor& out_scale, const FakeQuantAbsMaxAttrs& a) {
  abs_max_op("fake_quantize_abs_max", x, out, out_scale, a, false);
}

void fake_quantize_dequantize_abs_max(const Tensor& x, Tensor& out, Tensor& out_scale,
                                      const FakeQuantAbsMaxAttrs& a) {
  abs_max_op("fake_quantize_dequantize_abs_max", x, out, out_scale, a, true);
}

void fake_channel_wise_quantize_dequantize_abs_max(const Tensor& x, Tensor& out, Tensor& out_scale,
                                                   const FakeChannelQuantAttrs& a) {
  constexpr const char* op = "fake_channel_wise_quantize_dequantize_abs_max";
  require_fp32(op, x);
  const int bin = quant::bin_count(op, a.bit_length);
  quant::check_round_type(op, a.round_type);
  const quant::Channels v = quant::channels_of(op, x.shape(), a.quant_axis);
  // OutScale is written after Out; Out may be X, so the scales go to scratch first.
  Tensor& tmp = scratch(Slot::kTmp0);
  tmp.resize(Shape{v.channels}, DType::kFP32);
  float* ps = tmp.data<float>();
  const float* px = x.data<float>();
  for (int64_t c = 0; c < v.channels; ++c) ps[c] = 0;
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t c = 0; c < v.channels; ++c) {
      const float m = quant::abs_max(px + (o * v.channels + c) * v.inner, v.inner);
      ps[c] = m > ps[c] ? m : ps[c];
    }
  out.resize(x.shape(), DType::kFP32);
  quant::apply_levels(px, ps, v, bin, a.round_type, true, out.data<float>());
  out_scale.copy_from(tmp);
}

void fake_quantize_moving_average_abs_max(const Tensor& x, const Tensor& in_scale, const Tensor* in_accum,
                                          const Tensor* in_state, Tensor& out, Tensor& out_scale, Tensor* out_state,
                                          Tensor* out_accum, const FakeQuantMovingAttrs& a) {
  moving_op("fake_quantize_moving_average_abs_max", x, in_scale, in_accum, in_state, out, out_scale, out_state,
            out_accum, a, false);
}

void fake_quantize_dequantize_moving_average_abs_max(const Tensor& x, const Tensor& in_scale, const Tensor* in_accum,
                                                     const Tensor* in_state, Tensor& out, Tensor& out_scale,
                                                     Tensor* out_state, Tensor* out_accum,
                                                     const FakeQuantMovingAttrs& a) {
  moving_op("fake_quantize_dequantize_moving_average_abs_max", x, in_scale, in_accum, in_state, out, out_scale,
            out_state, out_accum, a, true);
}

namespace {

// Training form of fake_quantize_range_abs_max (Paddle's FindRangeAbsMax):
// OutScales is a ring of the last window_size scales, Iter the step. The
// step's max|X| replaces slot Iter % window; the scale is the larger of
// InScale and it, except that when the replaced value was InScale's (the
// window's maximum left), the maximum is taken again over the filled slots.
float range_scale(const char* op, const Tensor& x, const Tensor& in_scale, const Tensor* iter, Tensor* ring,
                  int window) {
  if (window < 1) rt::fail(fmt::format("{}: window_size {} must be positive", op, window));
  if (!iter) rt::fail(fmt::format("{}: training (is_test false) needs input Iter", op));
  require_init(op, "Iter", *iter);
  if (iter->dtype() != DType::kInt64 || iter->numel() < 1) rt::fail(fmt::format("{}: Iter must be one int64", op));
  if (!ring || !ring->initialized() || ring->dtype() != DType::kFP32 || ring->numel() != window)
    rt::fail(fmt::format("{}: training needs output OutScales holding the window of past scales "
                         "(window_size {} float32 values, kept between runs)",
                         op, window));
  const int64_t it = iter->data<int64_t>()[0];
  if (it < 0) rt::fail(fmt::format("{}: Iter {} is negative", op, it));
  float* r = ring->data<float>();
  const float cur = quant::abs_max(x.data<float>(), x.numel());
  const int64_t idx = it % window;
  const float removed = r[idx];
  r[idx] = cur;
  float m = in_scale.data<float>()[0];
  if (m < cur) {
    m = cur;
  } else if (std::fabs(removed - m) < 1e-6f) {
    // Paddle scans min(Iter, window) slots; at Iter 0 that is none (it reads
    // past the range), here the one just written.
    m = quant::abs_max(r, std::max<int64_t>(1, std::min<int64_t>(it, window)));
  }
  return m;
}

}  // namespace

void fake_quantize_range_abs_max(const Tensor& x, const Tensor& in_scale, const Tensor* iter, Tensor& out,
                                 Tensor& out_scale, Tensor* out_scales, const FakeQuantRangeAttrs& a) {
  constexpr const char* op = "fake_quantize_range_abs_max";
  require_fp32(op, x);
  const int bin = quant::bin_count(op, a.bit_length);
  quant::check_round_type(op, a.round_type);
  quant::require_scales(op, "InScale", in_scale, x, 1);
  const float s = a.is_test ? in_scale.data<float>()[0] : range_scale(op, x, in_scale, iter, out_scales, a.window_size);
  out.resize(x.shape(), DType::kFP32);
  quant::apply_levels(x.data<float>(), &s, quant::whole(x), bin, a.round_type, false, out.data<float>());
  put_scalar(&out_scale, s);
}

void fake_dequantize_max_abs(const Tensor& x, const Tensor& scale, Tensor& out, const FakeDequantAttrs& a) {
  constexpr const char* op = "fake_dequantize_max_abs";
  require_init(op, "X", x);
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    quant::require_scales(op, "Scale", scale, x, 1);
    const T s = scale.data<T>()[0], r = static_cast<T>(a.max_range);
    const T* px = x.data<T>();
    out.resize(x.shape(), x.dtype());
    T* po = out.data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) po[i] = quant::dequant(px[i], s, r);
  });
}

void fake_channel_wise_dequantize_max_abs(const Tensor& x, const Tensor* const* scales, int n, Tensor& out,
                                          const FakeChannelDequantAttrs& a) {
  constexpr const char* op = "fake_channel_wise_dequantize_max_abs";
  require_init(op, "X", x);
  if (n != 1 && n != 2) rt::fail(fmt::format("{}: Scales holds {} tensors; 1 or 2 are allowed", op, n));
  if (static_cast<int>(a.quant_bits.size()) != n)
    rt::fail(fmt::format("{}: quant_bits has {} entries for {} Scales", op, a.quant_bits.size(), n));
  // One scale tensor: per-channel along quant_axis (a dequantized weight).
  // Two: the output of a quantized mul/conv, channel along x_num_col_dims
  // (>= 1), times the one activation scale.
  quant::Channels v;
  if (n == 1) {
    v = quant::channels_of(op, x.shape(), a.quant_axis);
  } else {
    if (a.x_num_col_dims < 1 || a.x_num_col_dims >= x.shape().rank)
      rt::fail(fmt::format("{}: x_num_col_dims {} is out of range for X {}", op, a.x_num_col_dims, x.shape().str()));
    v.outer = prod(x.shape(), 0, a.x_num_col_dims);
    v.channels = x.shape().d[a.x_num_col_dims];
    v.inner = prod(x.shape(), a.x_num_col_dims + 1, x.shape().rank);
  }
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    quant::require_scales(op, "Scales[0]", *scales[0], x, v.channels);
    if (n == 2) quant::require_scales(op, "Scales[1]", *scales[1], x, 1);
    T range = 1;
    for (int b : a.quant_bits) range *= static_cast<T>(quant::bin_count(op, b));
    const T* ps = scales[0]->data<T>();
    const T* px = x.data<T>();
    out.resize(x.shape(), x.dtype());  // same-index loop: Out may be X
    T* po = out.data<T>();
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t c = 0; c < v.channels; ++c) {
        const int64_t base = (o * v.channels + c) * v.inner;
        for (int64_t k = 0; k < v.inner; ++k) {
          // Paddle's order: x * s (* s2) / range.
          T t = px[base + k] * ps[c];
          if (n == 2) t = t * scales[1]->data<T>()[0];
          po[base + k] = t / range;
        }
      }
  });
}

void stright_throuth_estimator_grad(const Tensor& out_grad, Tensor* x_grad) {
  if (!x_grad) return;
  require_init("stright_throuth_estimator_grad", "Out@GRAD", out_grad);
  if (x_grad != &out_grad) x_grad->copy_from(out_grad);
}

}  // namespace fluidc::kernels
