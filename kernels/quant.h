// kernels/quant.h - fake quantization (PaddleSlim / paddle.quantization): quantize_linear, dequantize_linear and the older fake_* ops, simulated in float.
#pragma once

#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

// How every op here maps a float x to a level (Paddle 2.6.2's CPU kernels):
// with bin_cnt = 2^(bit_length-1) - 1 and inv = 1/s (1/(s+1e-6) when
// s <= 1e-30),
//   round_type 0: level = clamp(round_half_even(bin_cnt*inv*x), -bin_cnt-1, bin_cnt)
//   round_type 1: level = round_half_away(bin_cnt*inv*clamp(x, -s, s))
// A quantize-dequantize op writes level*s/bin_cnt; a quantize op writes the
// level itself (still a float). Per-channel scales run along quant_axis,
// which Paddle allows to be 0 or 1 only.

/// quantize_linear and dequantize_linear (the pair Paddle >= 2.3 saves).
/// quant_axis < 0: one scale (Scale[0]); 0 or 1: Scale holds one per
/// channel of X along that axis. round_type defaults to 0 here (the op's
/// declared default), unlike the fake_* ops. is_test defaults to true
/// (Paddle 2.6.2's registered default, though its comment says false):
/// QuantizationTransformPassV2 saves the ops without it, and Paddle runs
/// them in the inference form. only_observer: Y = X. moving_rate is not
/// declared by Paddle 2.6.2 (the pass writes it); 0.9 as its kernel uses.
struct QuantLinearAttrs {
  int quant_axis = 0;
  int bit_length = 8;
  int round_type = 0;
  bool is_test = true;
  bool only_observer = false;
  float moving_rate = 0.9f;
  template <class F>
  static void fields(F&& f) {
    f("quant_axis", &QuantLinearAttrs::quant_axis);
    f("bit_length", &QuantLinearAttrs::bit_length);
    f("round_type", &QuantLinearAttrs::round_type);
    f("is_test", &QuantLinearAttrs::is_test);
    f("only_observer", &QuantLinearAttrs::only_observer);
    f("moving_rate", &QuantLinearAttrs::moving_rate);
  }
};

/// fake_quantize_abs_max, fake_quantize_dequantize_abs_max: the scale is
/// max|X| of this run. round_type is an "extra" attribute in Paddle 2.6.2,
/// not saved in programs; its kernel default is 1 (half away from zero).
struct FakeQuantAbsMaxAttrs {
  int bit_length = 8;
  int round_type = 1;
  template <class F>
  static void fields(F&& f) {
    f("bit_length", &FakeQuantAbsMaxAttrs::bit_length);
    f("round_type", &FakeQuantAbsMaxAttrs::round_type);
  }
};

/// fake_channel_wise_quantize_dequantize_abs_max: one max|X| per channel
/// along quant_axis (0 or 1).
struct FakeChannelQuantAttrs {
  int quant_axis = 0;
  int bit_length = 8;
  int round_type = 1;
  template <class F>
  static void fields(F&& f) {
    f("quant_axis", &FakeChannelQuantAttrs::quant_axis);
    f("bit_length", &FakeChannelQuantAttrs::bit_length);
    f("round_type", &FakeChannelQuantAttrs::round_type);
  }
};

/// fake_quantize_moving_average_abs_max and its quantize-dequantize form.
/// is_test: the scale is InScale; training: state = rate*InState + 1,
/// accum = rate*InAccum + max|X|, scale = accum/state (all three written).
struct FakeQuantMovingAttrs {
  float moving_rate = 0.9f;
  int bit_length = 8;
  int round_type = 1;
  bool is_test = false;
  template <class F>
  static void fields(F&& f) {
    f("moving_rate", &FakeQuantMovingAttrs::moving_rate);
    f("bit_length", &FakeQuantMovingAttrs::bit_length);
    f("round_type", &FakeQuantMovingAttrs::round_type);
    f("is_test", &FakeQuantMovingAttrs::is_test);
  }
};

/// fake_quantize_range_abs_max: at is_test the scale is InScale; in
/// training, the maximum over a window of past max|X| values kept in
/// OutScales (indexed by Iter, which the op does not advance).
struct FakeQuantRangeAttrs {
  int window_size = 10000;
  int bit_length = 8;
  int round_type = 1;
  bool is_test = false;
  template <class F>
  static void fields(F&& f) {
    f("window_size", &FakeQuantRangeAttrs::window_size);
    f("bit_length", &FakeQuantRangeAttrs::bit_length);
    f("round_type", &FakeQuantRangeAttrs::round_type);
    f("is_test", &FakeQuantRangeAttrs::is_test);
  }
};

/// fake_dequantize_max_abs: Out = X * Scale[0] / max_range.
struct FakeDequantAttrs {
  float max_range = 0.0f;
  template <class F>
  static void fields(F&& f) {
    f("max_range", &FakeDequantAttrs::max_range, true);
  }
};

/// fake_channel_wise_dequantize_max_abs: one Scales entry per quant_bits
/// entry. One: Out = X * Scales[0][c] / (2^(bits0-1)-1), c along
/// quant_axis (0 or 1). Two: Out = X * Scales[0][c] * Scales[1][0] /
/// ((2^(bits0-1)-1) * (2^(bits1-1)-1)), c the index along the axis
/// x_num_col_dims (the output channel of a mul/matmul).
struct FakeChannelDequantAttrs {
  std::vector<int> quant_bits{8};
  int quant_axis = 0;
  int x_num_col_dims = 1;
  template <class F>
  static void fields(F&& f) {
    f("quant_bits", &FakeChannelDequantAttrs::quant_bits);
    f("quant_axis", &FakeChannelDequantAttrs::quant_axis);
    f("x_num_col_dims", &FakeChannelDequantAttrs::x_num_col_dims);
  }
};

/// X fp32 (Paddle registers fp32 only). is_test: Y = the levels of X with
/// Scale; training: per-tensor, the moving average of max|X| over
/// InState/InAccum (written to OutState/OutAccum/OutScale) is the scale;
/// per-channel, max|X| per channel (written to OutScale) is.
void quantize_linear(const Tensor& x, const Tensor& scale, const Tensor& zero_point, const Tensor* in_accum,
                     const Tensor* in_state, Tensor& y, Tensor* out_state, Tensor* out_accum, Tensor* out_scale,
                     const QuantLinearAttrs& attrs);
/// Y = T(X) * s / bin_cnt in Scale's dtype T (fp32 or fp64); X fp32, fp64
/// or int8 (the integer weights QuantWeightPass saves). The state slots are
/// accepted and ignored, as in Paddle.
void dequantize_linear(const Tensor& x, const Tensor& scale, const Tensor& zero_point, const Tensor* in_accum,
                       const Tensor* in_state, Tensor& y, Tensor* out_state, Tensor* out_accum, Tensor* out_scale,
                       const QuantLinearAttrs& attrs);

void fake_quantize_abs_max(const Tensor& x, Tensor& out, Tensor& out_scale, const FakeQuantAbsMaxAttrs& attrs);
void fake_quantize_dequantize_abs_max(const Tensor& x, Tensor& out, Tensor& out_scale,
                                      const FakeQuantAbsMaxAttrs& attrs);
void fake_channel_wise_quantize_dequantize_abs_max(const Tensor& x, Tensor& out, Tensor& out_scale,
                                                   const FakeChannelQuantAttrs& attrs);
/// At is_test OutScale gets InScale (Paddle leaves it unwritten; programs
/// bind it to InScale's variable).
void fake_quantize_moving_average_abs_max(const Tensor& x, const Tensor& in_scale, const Tensor* in_accum,
                                          const Tensor* in_state, Tensor& out, Tensor& out_scale, Tensor* out_state,
                                          Tensor* out_accum, const FakeQuantMovingAttrs& attrs);
void fake_quantize_dequantize_moving_average_abs_max(const Tensor& x, const Tensor& in_scale, const Tensor* in_accum,
                                                     const Tensor* in_state, Tensor& out, Tensor& out_scale,
                                                     Tensor* out_state, Tensor* out_accum,
                                                     const FakeQuantMovingAttrs& attrs);
void fake_quantize_range_abs_max(const Tensor& x, const Tensor& in_scale, const Tensor* iter, Tensor& out,
                                 Tensor& out_scale, Tensor* out_scales, const FakeQuantRangeAttrs& attrs);
void fake_dequantize_max_abs(const Tensor& x, const Tensor& scale, Tensor& out, const FakeDequantAttrs& attrs);
void fake_channel_wise_dequantize_max_abs(const Tensor& x, const Tensor* const* scales, int n, Tensor& out,
                                          const FakeChannelDequantAttrs& attrs);

/// stright_throuth_estimator_grad (Paddle's spelling), the gradient of the
/// three quantize-dequantize ops: straight through, X@GRAD = Out@GRAD.
/// X@GRAD may be Out@GRAD.
void stright_throuth_estimator_grad(const Tensor& out_grad, Tensor* x_grad);

}  // namespace fluidc::kernels
