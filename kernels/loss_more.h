// kernels/loss_more.h - elementwise losses with their gradients: sigmoid_cross_entropy_with_logits, bce_loss, huber_loss, kldiv_loss, log_loss.
//
// fp32 and fp64. Labels are inputs without a gradient (Paddle's grad ops
// give none), except huber_loss's Y.
#pragma once

#include <string>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `sigmoid_cross_entropy_with_logits` and its gradient.
struct SigmoidCrossEntropyWithLogitsAttrs {
  bool normalize = false;
  int ignore_index = -100;
  template <class F>
  static void fields(F&& f) {
    f("normalize", &SigmoidCrossEntropyWithLogitsAttrs::normalize);
    f("ignore_index", &SigmoidCrossEntropyWithLogitsAttrs::ignore_index);
  }
};
/// Out = max(X, 0) - X * Label + pos_weight * log(1 + exp(-|X|)) (pos_weight
/// 1 when absent; Paddle 2.6.2 weighs only that term), 0 where
/// int(Label) == ignore_index; with normalize, divided by the number of
/// elements not ignored (at least 1). X, Label, pos_weight of one shape.
void sigmoid_cross_entropy_with_logits(const Tensor& x, const Tensor& label, const Tensor* pos_weight, Tensor& out,
                                       const SigmoidCrossEntropyWithLogitsAttrs& attrs);
/// X@GRAD: the derivative of Out in X times Out@GRAD, 0 where ignored.
/// With pos_weight this differs from Paddle 2.6.2's CPU grad kernel, which
/// gives (sigmoid(X) pos_weight - Label) Out@GRAD, not its forward's
/// derivative (they agree without pos_weight); the references check the
/// pos_weight forward only.
void sigmoid_cross_entropy_with_logits_grad(const Tensor& x, const Tensor& label, const Tensor* pos_weight,
                                            const Tensor& out_grad, Tensor* x_grad,
                                            const SigmoidCrossEntropyWithLogitsAttrs& attrs);

/// Out = -(Label log X + (1 - Label) log(1 - X)), each log at least -100 (Paddle's clamp).
void bce_loss(const Tensor& x, const Tensor& label, Tensor& out);
/// X@GRAD = Out@GRAD (X - Label) / max(X (1 - X), 1e-12).
void bce_loss_grad(const Tensor& x, const Tensor& label, const Tensor& out_grad, Tensor* x_grad);

/// Attributes of `huber_loss` and its gradient.
struct HuberLossAttrs {
  float delta = 1.0f;
  template <class F>
  static void fields(F&& f) {
    f("delta", &HuberLossAttrs::delta);
  }
};
/// Residual = Y - X; Out = r^2 / 2 where |r| <= delta, else delta (|r| - delta / 2).
void huber_loss(const Tensor& x, const Tensor& y, Tensor& out, Tensor& residual, const HuberLossAttrs& attrs);
/// With d = r where |r| <= delta, else delta sign(r): X@GRAD = -d Out@GRAD, Y@GRAD = d Out@GRAD.
void huber_loss_grad(const Tensor& residual, const Tensor& out_grad, Tensor* x_grad, Tensor* y_grad,
                     const HuberLossAttrs& attrs);

/// Attributes of `kldiv_loss`: reduction none, mean (over all elements),
/// batchmean (sum over dim 0's size) or sum.
struct KldivLossAttrs {
  std::string reduction = "mean";
  /// Paddle 3: Target holds log-probabilities too.
  bool log_target = false;
  template <class F>
  static void fields(F&& f) {
    f("reduction", &KldivLossAttrs::reduction);
    f("log_target", &KldivLossAttrs::log_target);
  }
};
/// X holds log-probabilities, Target probabilities: elementwise
/// Target (log Target - X) where Target > 0, else 0 (with log_target:
/// exp(Target) (Target - X)); Loss keeps X's shape (none) or is 0-D.
void kldiv_loss(const Tensor& x, const Tensor& target, Tensor& loss, const KldivLossAttrs& attrs);
/// X@GRAD = -Target Loss@GRAD where Target > 0 (divided as the reduction divides).
void kldiv_loss_grad(const Tensor& x, const Tensor& target, const Tensor& loss_grad, Tensor* x_grad,
                     const KldivLossAttrs& attrs);

/// Attributes of `log_loss` and its gradient.
struct LogLossAttrs {
  float epsilon = 1e-4f;
  template <class F>
  static void fields(F&& f) {
    f("epsilon", &LogLossAttrs::epsilon);
  }
};
/// Loss = -Labels log(Predicted + epsilon) - (1 - Labels) log(1 - Predicted + epsilon),
/// elementwise over any shape (Paddle 2.6.2 asks for [N, 1]; fluidc does not).
void log_loss(const Tensor& predicted, const Tensor& labels, Tensor& loss, const LogLossAttrs& attrs);
/// Predicted@GRAD = Loss@GRAD (-Labels / (P + eps) + (1 - Labels) / (1 - P + eps)).
void log_loss_grad(const Tensor& predicted, const Tensor& labels, const Tensor& loss_grad, Tensor* predicted_grad,
                   const LogLossAttrs& attrs);

}  // namespace fluidc::kernels
