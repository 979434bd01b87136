// kernels/cpu/bmm.cc - bmm and bmm_grad: matmul_v2 after bmm's stricter shape check (3-D, equal batches).
#include "kernels/cpu/kernel_util.h"
#include "kernels/matmul.h"
#include "kernels/shapes/matmul.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

void check_bmm(const char* op, const Tensor& x, const Tensor& y) {
  require_init(op, "X", x);
  require_init(op, "Y", y);
  shapes::MatmulShape s;
  require_rule(op, shapes::bmm_shape(x.shape(), y.shape(), BmmAttrs{}, s));
}

}  // namespace

void bmm(const Tensor& x, const Tensor& y, Tensor& out) {
  check_bmm("bmm", x, y);
  matmul_v2(x, y, out, MatmulV2Attrs{});
}

void bmm_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad, Tensor* y_grad) {
  check_bmm("bmm_grad", x, y);
  matmul_v2_grad(x, y, out_grad, x_grad, y_grad, MatmulV2Attrs{});
}

}  // namespace fluidc::kernels
