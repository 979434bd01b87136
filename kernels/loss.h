// kernels/loss.h - softmax_with_cross_entropy and cross_entropy2 with their gradients.
//
// Hard labels are int64 (int32 is accepted too) and must lie in [0, C)
// unless equal to ignore_index, whose rows get loss 0 and gradient 0.
// A log of 0 is clamped to -1e20 as Paddle does, so losses stay finite.
// fp32 and fp64.
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `softmax_with_cross_entropy` and its gradient.
struct SoftmaxWithCrossEntropyAttrs {
  bool soft_label = false;
  int ignore_index = -100;
  bool numeric_stable_mode = true;
  int axis = -1;
  bool use_softmax = true;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("soft_label", &SoftmaxWithCrossEntropyAttrs::soft_label);
    f("ignore_index", &SoftmaxWithCrossEntropyAttrs::ignore_index);
    f("numeric_stable_mode", &SoftmaxWithCrossEntropyAttrs::numeric_stable_mode);
    f("axis", &SoftmaxWithCrossEntropyAttrs::axis);
    f("use_softmax", &SoftmaxWithCrossEntropyAttrs::use_softmax);
  }
};

/// Softmax = softmax(Logits, axis) (or a copy of Logits when !use_softmax,
/// which then already holds probabilities); Loss = -log(Softmax[label]) for
/// hard labels (Label has Logits' shape with the axis dim 1), or
/// -sum(Label * log(Softmax)) along axis for soft labels (Label has Logits'
/// shape and dtype). Loss has Logits' shape with the axis dim 1.
/// numeric_stable_mode is accepted and ignored: the CPU path always
/// subtracts the max.
void softmax_with_cross_entropy(const Tensor& logits, const Tensor& label, Tensor& softmax, Tensor& loss,
                                const SoftmaxWithCrossEntropyAttrs& attrs);
/// Logits@GRAD = (Softmax - onehot(Label)) * Loss@GRAD (soft: Softmax - Label);
/// when !use_softmax, the gradient of -log(p): -Label / Softmax * Loss@GRAD.
void softmax_with_cross_entropy_grad(const Tensor& label, const Tensor& softmax, const Tensor& loss_grad,
                                     Tensor* logits_grad, const SoftmaxWithCrossEntropyAttrs& attrs);

/// Attributes of `cross_entropy2` and `cross_entropy_grad2`.
struct CrossEntropy2Attrs {
  int ignore_index = -100;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("ignore_index", &CrossEntropy2Attrs::ignore_index);
  }
};

/// X holds probabilities [..., D]; Label [..., 1] holds class ids.
/// Y = -log(X[label]) and MatchX = X[label] (both [..., 1]; 0 for ignored
/// rows). XShape is shape-only: resized to [0, X dims...] (numel 0) so the
/// gradient can recover X's shape, as Paddle does.
void cross_entropy2(const Tensor& x, const Tensor& label, Tensor& y, Tensor& x_shape, Tensor& match_x,
                    const CrossEntropy2Attrs& attrs);
/// X@GRAD[label] = -Y@GRAD / MatchX, 0 elsewhere; shape = XShape dims[1:].
void cross_entropy_grad2(const Tensor& label, const Tensor& match_x, const Tensor& x_shape,
                         const Tensor& y_grad, Tensor* x_grad, const CrossEntropy2Attrs& attrs);

/// Attributes of `label_smooth` and `label_smooth_grad`.
struct LabelSmoothAttrs {
  float epsilon = 0.0f;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("epsilon", &LabelSmoothAttrs::epsilon);
  }
};
/// Out = (1 - epsilon) * X + epsilon * PriorDist (a [1, C] or [C] row, C =
/// X's last dim, repeated over the rows), or + epsilon / C without one. fp32/fp64.
void label_smooth(const Tensor& x, const Tensor* prior_dist, Tensor& out, const LabelSmoothAttrs& attrs);
/// X@GRAD = (1 - epsilon) * Out@GRAD.
void label_smooth_grad(const Tensor& out_grad, Tensor* x_grad, const LabelSmoothAttrs& attrs);

}  // namespace fluidc::kernels
