// kernels/cuda/cross_entropy.cc - cross_entropy2 (cross entropy of probabilities, hard labels) and its gradient.
#include <string>

#include "kernels/cuda/kernel_util.h"
#include "kernels/shapes/loss.h"

namespace fluidc::kernels::cuda {

using namespace util;

namespace {

bool hard_label(const char* op, const DTensor& label, const rt::Shape& want) {
  require_dev(op, "Label", label);
  if (label.dshape() != want)
    rt::fail(std::string(op) + ": Label has shape " + label.dshape().str() + ", expected " + want.str());
  if (label.ddtype() != rt::DType::kInt64 && label.ddtype() != rt::DType::kInt32)
    rt::fail(std::string(op) + ": Label must be int64 or int32, not " + rt::dtype_name(label.ddtype()));
  return label.ddtype() == rt::DType::kInt64;
}

}  // namespace

void cross_entropy2(const DTensor& x, const DTensor& label, DTensor& y, DTensor& x_shape, DTensor& match_x,
                    const CrossEntropy2Attrs& attrs) {
  const char* op = "cross_entropy2";
  require_f32(op, "X", x);
  const rt::Shape xs = x.dshape();  // copied: XShape may be X itself
  rt::Shape ys, xshape;
  require_rule(op, shapes::cross_entropy2_shape(xs, ys, xshape));
  const bool l64 = hard_label(op, label, ys);
  if (&y == &match_x) rt::fail("cross_entropy2: Y and MatchX are the same tensor");
  if (same_storage(y, x) || same_storage(match_x, x)) rt::fail("cross_entropy2: Y and MatchX must not share X's storage");
  y.dresize(ys, rt::DType::kFP32);
  match_x.dresize(ys, rt::DType::kFP32);
  // An out-of-range label gives a NaN loss (see softmax_with_cross_entropy).
  dev::xent2(f(x), label.dev().raw(), l64, f(y), f(match_x), ys.numel(), xs.d[xs.rank - 1], attrs.ignore_index,
             stream());
  cu::launched(op);
  x_shape.dresize(xshape, rt::DType::kFP32);  // last: nothing reads X after this
}

void cross_entropy_grad2(const DTensor& label, const DTensor& match_x, const DTensor& x_shape, const DTensor& y_grad,
                         DTensor* x_grad, const CrossEntropy2Attrs& attrs) {
  const char* op = "cross_entropy_grad2";
  if (!x_grad) return;
  require_dev(op, "XShape", x_shape);
  require_f32(op, "MatchX", match_x);
  require_f32(op, "Y@GRAD", y_grad);
  rt::Shape xs;
  require_rule(op, shapes::x_from_cross_entropy2_xshape(x_shape.dshape(), xs));
  rt::Shape ys = xs;
  ys.d[ys.rank - 1] = 1;
  const bool l64 = hard_label(op, label, ys);
  if (match_x.dshape() != ys || y_grad.dshape() != ys)
    rt::fail(std::string(op) + ": MatchX " + match_x.dshape().str() + " and Y@GRAD " + y_grad.dshape().str() +
             " must have shape " + ys.str());
  if (same_storage(*x_grad, label) || same_storage(*x_grad, match_x) || same_storage(*x_grad, y_grad))
    rt::fail(std::string(op) + ": X@GRAD must not share storage with its inputs");
  x_grad->dresize(xs, rt::DType::kFP32);
  dev::xent2_grad(f(match_x), label.dev().raw(), l64, f(y_grad), f(*x_grad), ys.numel(), xs.d[xs.rank - 1],
                  attrs.ignore_index, stream());
  cu::launched(op);
}

}  // namespace fluidc::kernels::cuda
