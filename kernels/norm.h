// kernels/norm.h - batch_norm, layer_norm, instance_norm, group_norm, dropout and their gradients.
//
// fp32 and fp64; statistics are accumulated in double. Variances are the
// biased ones (divided by the element count), as Paddle computes them.
// batch_norm's MeanOut/VarianceOut are normally the very same variables as
// Mean/Variance (Paddle updates the running statistics in place): the
// kernel reads each running value before writing it.
#pragma once

#include <string>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of batch_norm and batch_norm_grad.
struct BatchNormAttrs {
  float momentum = 0.9f;
  float epsilon = 1e-5f;
  std::string data_layout = "NCHW";  ///< NCHW (channel dim 1) or NHWC (channel dim last)
  bool is_test = false;
  bool use_global_stats = false;
  bool trainable_statistics = false;

  template <class F>
  static void fields(F&& f) {
    f("momentum", &BatchNormAttrs::momentum);
    f("epsilon", &BatchNormAttrs::epsilon);
    f("data_layout", &BatchNormAttrs::data_layout);
    f("is_test", &BatchNormAttrs::is_test);
    f("use_global_stats", &BatchNormAttrs::use_global_stats);
    f("trainable_statistics", &BatchNormAttrs::trainable_statistics);
  }
  /// Normalise with the running statistics rather than the batch's.
  bool global_stats() const { return (is_test && !trainable_statistics) || use_global_stats; }
};

/// Y = (X - mean) / sqrt(var + epsilon) * Scale + Bias per channel.
/// With global_stats(), mean/var are Mean/Variance (one pass, per-channel
/// scale and shift), SavedMean/SavedVariance are zeroed. Otherwise they are
/// the batch's (over every dim but the channel); SavedMean = batch mean,
/// SavedVariance = 1/sqrt(batch var + epsilon), and the running statistics
/// become momentum * running + (1 - momentum) * batch (biased batch
/// variance), momentum from MomentumTensor when given. ReserveSpace holds
/// nothing (shape [0]).
void batch_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, const Tensor& mean, const Tensor& variance,
                const Tensor* momentum_tensor, Tensor& y, Tensor* mean_out, Tensor* variance_out,
                Tensor* saved_mean, Tensor* saved_variance, Tensor* reserve_space, const BatchNormAttrs& attrs);
/// Gradients of batch_norm: with batch statistics from SavedMean and
/// SavedVariance (the inverse std), with global_stats() from the running
/// ones: Mean and Variance (Paddle passes them in test mode), else MeanOut
/// and VarianceOut.
void batch_norm_grad(const Tensor& x, const Tensor& scale, const Tensor* bias, const Tensor* mean,
                     const Tensor* variance, const Tensor& saved_mean,
                     const Tensor& saved_variance, const Tensor* mean_out, const Tensor* variance_out,
                     const Tensor* reserve_space, const Tensor& y_grad, Tensor* x_grad, Tensor* scale_grad,
                     Tensor* bias_grad, const BatchNormAttrs& attrs);

/// Attributes of layer_norm and layer_norm_grad.
struct LayerNormAttrs {
  float epsilon = 1e-5f;
  int begin_norm_axis = 1;

  template <class F>
  static void fields(F&& f) {
    f("epsilon", &LayerNormAttrs::epsilon);
    f("begin_norm_axis", &LayerNormAttrs::begin_norm_axis);
  }
};

/// X seen as [left, right] split at begin_norm_axis; each row normalised.
/// Scale and Bias (optional) have `right` elements; Mean and Variance
/// (biased, not inverted) are 1-D of `left` elements.
void layer_norm(const Tensor& x, const Tensor* scale, const Tensor* bias, Tensor& y, Tensor* mean, Tensor* variance,
                const LayerNormAttrs& attrs);
void layer_norm_grad(const Tensor& x, const Tensor* scale, const Tensor* bias, const Tensor& mean,
                     const Tensor& variance, const Tensor& y_grad, Tensor* x_grad, Tensor* scale_grad,
                     Tensor* bias_grad, const LayerNormAttrs& attrs);

/// Attributes of instance_norm and instance_norm_grad.
struct InstanceNormAttrs {
  float epsilon = 1e-5f;

  template <class F>
  static void fields(F&& f) {
    f("epsilon", &InstanceNormAttrs::epsilon);
  }
};

/// X [N, C, ...]: each (n, c) plane normalised, then Scale[c], Bias[c]
/// (optional). SavedMean and SavedVariance ([N*C]) hold the mean and the
/// inverse std.
void instance_norm(const Tensor& x, const Tensor* scale, const Tensor* bias, Tensor& y, Tensor* saved_mean,
                   Tensor* saved_variance, const InstanceNormAttrs& attrs);
void instance_norm_grad(const Tensor& x, const Tensor* scale, const Tensor& saved_mean, const Tensor& saved_variance,
                        const Tensor& y_grad, Tensor* x_grad, Tensor* scale_grad, Tensor* bias_grad,
                        const InstanceNormAttrs& attrs);

/// Attributes of group_norm and group_norm_grad.
struct GroupNormAttrs {
  float epsilon = 1e-5f;
  int groups = 1;
  std::string data_layout = "NCHW";  ///< NCHW or NHWC

  template <class F>
  static void fields(F&& f) {
    f("epsilon", &GroupNormAttrs::epsilon);
    f("groups", &GroupNormAttrs::groups);
    f("data_layout", &GroupNormAttrs::data_layout);
  }
};

/// X [N, C, ...] (or channel-last): the channels split into `groups`
/// consecutive groups, each (n, group) normalised, then Scale[c], Bias[c]
/// (optional). Mean and Variance ([N, groups]) hold the biased statistics.
void group_norm(const Tensor& x, const Tensor* scale, const Tensor* bias, Tensor& y, Tensor* mean, Tensor* variance,
                const GroupNormAttrs& attrs);
void group_norm_grad(const Tensor& x, const Tensor* scale, const Tensor* bias, const Tensor* y, const Tensor& mean,
                     const Tensor& variance, const Tensor& y_grad, Tensor* x_grad, Tensor* scale_grad,
                     Tensor* bias_grad, const GroupNormAttrs& attrs);

/// Attributes of dropout and dropout_grad.
struct DropoutAttrs {
  float dropout_prob = 0.5f;
  bool is_test = false;
  bool fix_seed = false;
  int seed = 0;
  std::string dropout_implementation = "downgrade_in_infer";  ///< or "upscale_in_train"

  template <class F>
  static void fields(F&& f) {
    f("dropout_prob", &DropoutAttrs::dropout_prob);
    f("is_test", &DropoutAttrs::is_test);
    f("fix_seed", &DropoutAttrs::fix_seed);
    f("seed", &DropoutAttrs::seed);
    f("dropout_implementation", &DropoutAttrs::dropout_implementation);
  }
};

/// What dropout multiplies X by when is_test: 1 - p (downgrade_in_infer) or
/// 1 (upscale_in_train). Shared with the compiler's remove-dropout pass.
inline double dropout_test_factor(const DropoutAttrs& a) {
  return a.dropout_implementation == "upscale_in_train" ? 1.0 : 1.0 - a.dropout_prob;
}

/// Training: Mask (uint8, X's shape) keeps each element with probability
/// 1 - dropout_prob; Out = X * Mask, divided by 1 - p under
/// upscale_in_train. Random numbers come from the generator of
/// uniform_random (kernels/fill.h): a Seed tensor, else `seed` when
/// fix_seed, else the global stream; not Paddle's bits.
/// is_test: Out = X * (1 - p) (downgrade_in_infer) or X (upscale_in_train);
/// Mask is not written.
void dropout(const Tensor& x, const Tensor* seed, Tensor& out, Tensor* mask, const DropoutAttrs& attrs);
/// X@GRAD = Out@GRAD * Mask (/ (1 - p) under upscale_in_train); in test
/// mode the same factor as the forward.
void dropout_grad(const Tensor& mask, const Tensor& out_grad, Tensor* x_grad, const DropoutAttrs& attrs);

}  // namespace fluidc::kernels
