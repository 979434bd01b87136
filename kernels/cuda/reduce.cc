// kernels/cuda/reduce.cc - mean, reduce_sum/reduce_mean, softmax and softmax_with_cross_entropy (and gradients).
#include <string>

#include "kernels/cuda/kernel_util.h"
#include "kernels/shapes/activation.h"
#include "kernels/shapes/loss.h"
#include "kernels/shapes/reduce.h"

namespace fluidc::kernels::cuda {

using namespace util;

namespace {

// [outer, n, inner] around `axis` of `s`.
struct Split {
  int64_t outer = 1, n = 1, inner = 1;
};
Split split(const rt::Shape& s, int axis) {
  Split p;
  for (int i = 0; i < s.rank; ++i) (i < axis ? p.outer : i == axis ? p.n : p.inner) *= s.d[i];
  return p;
}

int canonical_axis(const char* op, int axis, int rank) {
  const int a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) rt::fail(std::string(op) + ": axis " + std::to_string(axis) + " is out of range for rank " +
                                   std::to_string(rank));
  return a;
}

void reduce_fwd(const char* op, const DTensor& x, DTensor& out, const ReduceAttrs& attrs, bool mean) {
  require_f32(op, "X", x);
  shapes::ReducePlan p;
  require_rule(op, shapes::reduce_shape(x.dshape(), attrs, p));
  if (same_storage(out, x)) rt::fail(std::string(op) + ": Out must not share storage with X");
  out.dresize(p.out, rt::DType::kFP32);
  const float factor = mean ? (p.count ? 1.f / static_cast<float>(p.count) : 0.f) : 1.f;
  dev::reduce_sum(f(x), f(out), reduce_spec(x.dshape(), p.kept), factor, stream());
  cu::launched(op);
}

void reduce_bwd(const char* op, const DTensor& x, const DTensor& out_grad, DTensor* x_grad, const ReduceAttrs& attrs,
                bool mean) {
  if (!x_grad) return;
  require_dev(op, "X", x);
  require_f32(op, "Out@GRAD", out_grad);
  shapes::ReducePlan p;
  require_rule(op, shapes::reduce_shape(x.dshape(), attrs, p));
  if (out_grad.dnumel() != p.out.numel())
    rt::fail(std::string(op) + ": Out@GRAD has shape " + out_grad.dshape().str() + ", expected " + p.out.str());
  if (same_storage(*x_grad, out_grad)) rt::fail(std::string(op) + ": X@GRAD must not share storage with Out@GRAD");
  const float factor = mean ? (p.count ? 1.f / static_cast<float>(p.count) : 0.f) : 1.f;
  x_grad->dresize(x.dshape(), rt::DType::kFP32);
  // Each X element takes the gradient of the Out element it was folded into.
  dev::broadcast(f(out_grad), f(*x_grad), x.dnumel(), strided(x.dshape(), p.kept, p.kept), factor, stream());
  cu::launched(op);
}

ReduceAttrs all_dims() {
  ReduceAttrs a;
  a.reduce_all = true;
  return a;
}

}  // namespace

void mean(const DTensor& x, DTensor& out) { reduce_fwd("mean", x, out, all_dims(), true); }
void mean_grad(const DTensor& x, const DTensor& out_grad, DTensor* x_grad) {
  reduce_bwd("mean_grad", x, out_grad, x_grad, all_dims(), true);
}
void reduce_sum(const DTensor& x, DTensor& out, const ReduceAttrs& attrs) { reduce_fwd("reduce_sum", x, out, attrs, false); }
void reduce_mean(const DTensor& x, DTensor& out, const ReduceAttrs& attrs) { reduce_fwd("reduce_mean", x, out, attrs, true); }
void reduce_sum_grad(const DTensor& x, const DTensor& out_grad, DTensor* x_grad, const ReduceAttrs& attrs) {
  reduce_bwd("reduce_sum_grad", x, out_grad, x_grad, attrs, false);
}
void reduce_mean_grad(const DTensor& x, const DTensor& out_grad, DTensor* x_grad, const ReduceAttrs& attrs) {
  reduce_bwd("reduce_mean_grad", x, out_grad, x_grad, attrs, true);
}

void softmax(const DTensor& x, DTensor& out, const SoftmaxAttrs& attrs) {
  const char* op = "softmax";
  require_f32(op, "X", x);
  rt::Shape os;
  require_rule(op, shapes::softmax_shape(x.dshape(), attrs, os));
  if (x.dshape().rank == 0) rt::fail("softmax: a 0-D X has no CUDA kernel yet");
  const Split sp = split(x.dshape(), canonical_axis(op, attrs.axis, x.dshape().rank));
  out.dresize(x.dshape(), rt::DType::kFP32);
  dev::softmax(f(x), f(out), sp.outer, sp.n, sp.inner, stream());
  cu::launched(op);
}

void softmax_grad(const DTensor& out, const DTensor& out_grad, DTensor* x_grad, const SoftmaxAttrs& attrs) {
  const char* op = "softmax_grad";
  if (!x_grad) return;
  require_f32(op, "Out", out);
  require_f32(op, "Out@GRAD", out_grad);
  if (out.dshape() != out_grad.dshape() || out.dshape().rank == 0)
    rt::fail("softmax_grad: Out " + out.dshape().str() + " and Out@GRAD " + out_grad.dshape().str() + " differ");
  const Split sp = split(out.dshape(), canonical_axis(op, attrs.axis, out.dshape().rank));
  x_grad->dresize(out.dshape(), rt::DType::kFP32);
  dev::softmax_grad(f(out), f(out_grad), f(*x_grad), sp.outer, sp.n, sp.inner, stream());
  cu::launched(op);
}

namespace {

// The label's layout as the CPU kernel checks it: Logits' shape for soft
// labels, Logits' shape with the axis dim 1 for hard ones (int32/int64).
bool check_label(const char* op, const rt::Shape& logits, const DTensor& label, int axis, bool soft) {
  require_dev(op, "Label", label);
  rt::Shape want = logits;
  if (!soft) want.d[axis] = 1;
  if (label.dshape() != want)
    rt::fail(std::string(op) + ": Label has shape " + label.dshape().str() + ", expected " + want.str());
  if (soft) {
    require_f32(op, "Label", label);
    return false;
  }
  if (label.ddtype() != rt::DType::kInt64 && label.ddtype() != rt::DType::kInt32)
    rt::fail(std::string(op) + ": a hard Label must be int64 or int32, not " + rt::dtype_name(label.ddtype()));
  return label.ddtype() == rt::DType::kInt64;
}

}  // namespace

void softmax_with_cross_entropy(const DTensor& logits, const DTensor& label, DTensor& softmax, DTensor& loss,
                                const SoftmaxWithCrossEntropyAttrs& attrs) {
  const char* op = "softmax_with_cross_entropy";
  require_f32(op, "Logits", logits);
  int axis = 0;
  rt::Shape loss_shape;
  require_rule(op, shapes::softmax_xent_shape(logits.dshape(), attrs, axis, loss_shape));
  const bool l64 = check_label(op, logits.dshape(), label, axis, attrs.soft_label);
  const Split sp = split(logits.dshape(), axis);
  softmax.dresize(logits.dshape(), rt::DType::kFP32);
  loss.dresize(loss_shape, rt::DType::kFP32);
  if (attrs.use_softmax) {
    dev::softmax(f(logits), f(softmax), sp.outer, sp.n, sp.inner, stream());
    cu::launched(op);
  } else if (!same_storage(softmax, logits) && logits.dnumel()) {  // Logits already holds probabilities
    cu::check(cudaMemcpyAsync(f(softmax), f(logits), static_cast<size_t>(logits.dnumel()) * sizeof(float),
                              cudaMemcpyDeviceToDevice, stream()),
              "softmax_with_cross_entropy (cudaMemcpyAsync)");
  }
  // An out-of-range hard label gives a NaN loss, which the trainer stops on
  // (checking it here would read the labels back: a synchronisation per step).
  if (attrs.soft_label) dev::xent_soft(f(softmax), f(label), f(loss), sp.outer, sp.n, sp.inner, stream());
  else dev::xent_hard(f(softmax), label.dev().raw(), l64, f(loss), sp.outer, sp.n, sp.inner, attrs.ignore_index,
                      nullptr, stream());
  cu::launched(op);
}

void softmax_with_cross_entropy_grad(const DTensor& label, const DTensor& softmax, const DTensor& loss_grad,
                                     DTensor* logits_grad, const SoftmaxWithCrossEntropyAttrs& attrs) {
  const char* op = "softmax_with_cross_entropy_grad";
  if (!logits_grad) return;
  require_f32(op, "Softmax", softmax);
  require_f32(op, "Loss@GRAD", loss_grad);
  int axis = 0;
  rt::Shape loss_shape;
  require_rule(op, shapes::softmax_xent_shape(softmax.dshape(), attrs, axis, loss_shape));
  if (loss_grad.dnumel() != loss_shape.numel())
    rt::fail(std::string(op) + ": Loss@GRAD has shape " + loss_grad.dshape().str() + ", expected " + loss_shape.str());
  const bool l64 = check_label(op, softmax.dshape(), label, axis, attrs.soft_label);
  const Split sp = split(softmax.dshape(), axis);
  if (same_storage(*logits_grad, label) || same_storage(*logits_grad, loss_grad))
    rt::fail(std::string(op) + ": Logits@GRAD must not share storage with Label or Loss@GRAD");
  logits_grad->dresize(softmax.dshape(), rt::DType::kFP32);
  if (attrs.soft_label)
    dev::xent_soft_grad(f(softmax), f(label), f(loss_grad), f(*logits_grad), sp.outer, sp.n, sp.inner,
                        !attrs.use_softmax, stream());
  else
    dev::xent_hard_grad(f(softmax), label.dev().raw(), l64, f(loss_grad), f(*logits_grad), sp.outer, sp.n, sp.inner,
                        attrs.ignore_index, !attrs.use_softmax, stream());
  cu::launched(op);
}

}  // namespace fluidc::kernels::cuda
