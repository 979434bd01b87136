// kernels/cuda/elementwise.cc - elementwise add/sub/mul/div with Paddle's broadcasting, and their gradients.
#include "kernels/cuda/kernel_util.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::kernels::cuda {

using namespace util;

namespace {

// X and Y aligned to Out's rank (shapes::broadcast_paddle) and Out's shape.
struct Aligned {
  rt::Shape xa, ya, out;
};
Aligned align(const char* op, const DTensor& x, const DTensor& y, int axis) {
  require_f32(op, "X", x);
  require_f32(op, "Y", y);
  Aligned a;
  require_rule(op, shapes::broadcast_paddle(x.dshape(), y.dshape(), axis, a.xa, a.ya, a.out));
  return a;
}

void forward(const char* op, dev::Binary kind, const DTensor& x, const DTensor& y, DTensor& out, int axis) {
  const Aligned a = align(op, x, y, axis);
  // Out may be X or Y itself (in place) only where it is not broadcast.
  if ((same_storage(out, x) && a.xa != a.out) || (same_storage(out, y) && a.ya != a.out))
    rt::fail(std::string(op) + ": Out shares storage with a broadcast input");
  out.dresize(a.out, rt::DType::kFP32);
  dev::binary(kind, f(x), f(y), f(out), a.out.numel(), strided(a.out, a.xa, a.ya), stream());
  cu::launched(op);
}

// dst (shaped like the operand `like`, aligned as `aligned`) = factor * the
// sum of `src` (Out's shape) over the dims the operand was broadcast along.
void reduce_into(const char* op, const float* src, const rt::Shape& out, const rt::Shape& aligned, const DTensor& like,
                 DTensor& dst, float factor) {
  dst.dresize(like.dshape(), rt::DType::kFP32);
  if (aligned == out) {
    dev::scale(src, f(dst), out.numel(), factor, 0.f, true, nullptr, stream());
  } else {
    dev::reduce_sum(src, f(dst), reduce_spec(out, aligned), factor, stream());
  }
  cu::launched(op);
}

// dOut * other (broadcast) into scratch, then reduced into dst.
void product_into(const char* op, const DTensor& out_grad, const DTensor& other, const rt::Shape& out,
                  const rt::Shape& other_aligned, const rt::Shape& aligned, const DTensor& like, DTensor& dst,
                  dev::Binary kind) {
  float* tmp = static_cast<float*>(cu::current().scratch(sizeof(float) * out.numel()));
  dev::binary(kind, f(out_grad), f(other), tmp, out.numel(), strided(out, out, other_aligned), stream());
  cu::launched(op);
  reduce_into(op, tmp, out, aligned, like, dst, 1.f);
}

void check_grad(const char* op, const DTensor& out_grad, const rt::Shape& out) {
  require_f32(op, "Out@GRAD", out_grad);
  if (out_grad.dshape() != out)
    rt::fail(std::string(op) + ": Out@GRAD has shape " + out_grad.dshape().str() + " but Out has " + out.str());
}

// Add and sub: the gradients are dOut reduced (negated for sub's Y). When
// X@GRAD is dOut's own storage it is written last, after Y@GRAD read dOut.
void add_sub_grad(const char* op, const DTensor& x, const DTensor& y, const DTensor& out_grad, DTensor* x_grad,
                  DTensor* y_grad, int axis, float y_sign) {
  const Aligned a = align(op, x, y, axis);
  check_grad(op, out_grad, a.out);
  auto dx = [&] { if (x_grad) reduce_into(op, f(out_grad), a.out, a.xa, x, *x_grad, 1.f); };
  auto dy = [&] { if (y_grad) reduce_into(op, f(out_grad), a.out, a.ya, y, *y_grad, y_sign); };
  if (x_grad && same_storage(*x_grad, out_grad)) dy(), dx();
  else dx(), dy();
}

}  // namespace

void elementwise_add(const DTensor& x, const DTensor& y, DTensor& out, const ElementwiseAttrs& attrs) {
  forward("elementwise_add", dev::Binary::kAdd, x, y, out, attrs.axis);
}
void elementwise_sub(const DTensor& x, const DTensor& y, DTensor& out, const ElementwiseAttrs& attrs) {
  forward("elementwise_sub", dev::Binary::kSub, x, y, out, attrs.axis);
}
void elementwise_mul(const DTensor& x, const DTensor& y, DTensor& out, const ElementwiseAttrs& attrs) {
  forward("elementwise_mul", dev::Binary::kMul, x, y, out, attrs.axis);
}
void elementwise_div(const DTensor& x, const DTensor& y, DTensor& out, const ElementwiseAttrs& attrs) {
  forward("elementwise_div", dev::Binary::kDiv, x, y, out, attrs.axis);
}

void elementwise_add_grad(const DTensor& x, const DTensor& y, const DTensor& out_grad, DTensor* x_grad,
                          DTensor* y_grad, const ElementwiseAttrs& attrs) {
  add_sub_grad("elementwise_add_grad", x, y, out_grad, x_grad, y_grad, attrs.axis, 1.f);
}

void elementwise_sub_grad(const DTensor& x, const DTensor& y, const DTensor& out_grad, DTensor* x_grad,
                          DTensor* y_grad, const ElementwiseAttrs& attrs) {
  add_sub_grad("elementwise_sub_grad", x, y, out_grad, x_grad, y_grad, attrs.axis, -1.f);
}

void elementwise_mul_grad(const DTensor& x, const DTensor& y, const DTensor& out_grad, DTensor* x_grad,
                          DTensor* y_grad, const ElementwiseAttrs& attrs) {
  const char* op = "elementwise_mul_grad";
  const Aligned a = align(op, x, y, attrs.axis);
  check_grad(op, out_grad, a.out);
  if ((x_grad && (same_storage(*x_grad, y) || same_storage(*x_grad, out_grad))) ||
      (y_grad && (same_storage(*y_grad, x) || same_storage(*y_grad, out_grad))))
    rt::fail("elementwise_mul_grad: a gradient shares storage with an input the other gradient reads");
  if (x_grad) product_into(op, out_grad, y, a.out, a.ya, a.xa, x, *x_grad, dev::Binary::kMul);  // dX = dOut * Y
  if (y_grad) product_into(op, out_grad, x, a.out, a.xa, a.ya, y, *y_grad, dev::Binary::kMul);  // dY = dOut * X
}

void elementwise_div_grad(const DTensor& x, const DTensor& y, const DTensor& out, const DTensor& out_grad,
                          DTensor* x_grad, DTensor* y_grad, const ElementwiseAttrs& attrs) {
  const char* op = "elementwise_div_grad";
  const Aligned a = align(op, x, y, attrs.axis);
  check_grad(op, out_grad, a.out);
  require_f32(op, "Out", out);
  if ((x_grad && (same_storage(*x_grad, y) || same_storage(*x_grad, out_grad) || same_storage(*x_grad, out))))
    rt::fail("elementwise_div_grad: X@GRAD shares storage with an input Y@GRAD reads");
  if (x_grad) product_into(op, out_grad, y, a.out, a.ya, a.xa, x, *x_grad, dev::Binary::kDiv);  // dX = dOut / Y
  if (y_grad) {
    // dY = -dOut * Out / Y, reduced.
    const int64_t n = a.out.numel();
    float* tmp = static_cast<float*>(cu::current().scratch(sizeof(float) * n));
    dev::binary(dev::Binary::kDiv, f(out), f(y), tmp, n, strided(a.out, a.out, a.ya), stream());
    cu::launched(op);
    dev::binary(dev::Binary::kMul, f(out_grad), tmp, tmp, n, strided(a.out, a.out, a.out), stream());
    cu::launched(op);
    reduce_into(op, tmp, a.out, a.ya, y, *y_grad, -1.f);
  }
}

}  // namespace fluidc::kernels::cuda
