// kernels/cpu/unbind_meshgrid.cc - unbind (slices along an axis) and meshgrid with its gradient (sums over the grid).
#include <cstring>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/tensor_manip_misc.h"
#include "kernels/tensor_manip_misc.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// The shapes of the inputs, checked, and the grid they span.
Shape grid_of(const char* op, const Tensor* const* xs, int n, std::vector<Shape>& shapes_out) {
  shapes_out.assign(static_cast<size_t>(n), Shape{});
  for (int i = 0; i < n; ++i) {
    if (!xs[i]) rt::fail(fmt::format("{}: X[{}] is missing", op, i));
    require_init(op, "X", *xs[i]);
    if (i > 0) require_same_dtype(op, "X[0]", *xs[0], "another X", *xs[i]);
    shapes_out[i] = xs[i]->shape();
  }
  Shape grid;
  require_rule(op, shapes::meshgrid_shape(shapes_out.data(), n, grid));
  return grid;
}

}  // namespace

void unbind(const Tensor& x, Tensor* const* outs, int n, const UnbindAttrs& attrs) {
  const char* op = "unbind";
  require_init(op, "X", x);
  int a = 0;
  Shape os;
  require_rule(op, shapes::unbind_shape(x.shape(), attrs.axis, n, a, os));
  for (int i = 0; i < n; ++i)
    if (outs[i] == &x) rt::fail(fmt::format("{}: Out[{}] is X itself", op, i));
  const size_t es = rt::dtype_size(x.dtype());
  const int64_t outer = prod(x.shape(), 0, a), inner = prod(x.shape(), a + 1, x.shape().rank);
  const size_t run = static_cast<size_t>(inner) * es;
  const char* src = x.data<char>();
  for (int i = 0; i < n; ++i) {
    if (!outs[i]) continue;
    outs[i]->resize(os, x.dtype());
    char* dst = outs[i]->data<char>();
    for (int64_t o = 0; o < outer; ++o) std::memcpy(dst + o * run, src + (o * n + i) * run, run);
  }
}

void meshgrid(const Tensor* const* xs, int n, Tensor* const* outs, int m) {
  const char* op = "meshgrid";
  if (m != n) rt::fail(fmt::format("{}: {} inputs but {} outputs; it takes one output per input", op, n, m));
  std::vector<Shape> in;
  const Shape grid = grid_of(op, xs, n, in);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (outs[i] == xs[j]) rt::fail(fmt::format("{}: Out[{}] is X[{}] itself", op, i, j));
  visit_all(op, "X", xs[0]->dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int i = 0; i < n; ++i) {
      if (!outs[i]) continue;
      outs[i]->resize(grid, xs[0]->dtype());
      const T* px = xs[i]->data<T>();
      T* po = outs[i]->data<T>();
      const int64_t outer = prod(grid, 0, i), mid = grid.d[i], inner = prod(grid, i + 1, n);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < mid; ++j, po += inner)
          for (int64_t k = 0; k < inner; ++k) po[k] = px[j];
    }
  });
}

void meshgrid_grad(const Tensor* const* xs, int n, const Tensor* const* out_grads, int m, Tensor* const* x_grads,
                   int k) {
  const char* op = "meshgrid_grad";
  if (m != n || k != n)
    rt::fail(fmt::format("{}: {} X, {} outputs@GRAD and {} X@GRAD entries; it takes one of each per input", op, n,
                         m, k));
  std::vector<Shape> in;
  const Shape grid = grid_of(op, xs, n, in);
  visit_float(op, "X", xs[0]->dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int i = 0; i < n; ++i) {
      if (!x_grads[i]) continue;
      const Tensor* g = out_grads[i];
      const int64_t outer = prod(grid, 0, i), mid = grid.d[i], inner = prod(grid, i + 1, n);
      // Summed in double into scratch: X@GRAD[i] may be X[i] or an Out@GRAD.
      double* acc = zeroed(Slot::kAcc, mid);
      if (g && g->initialized()) {
        if (g->shape() != grid || g->dtype() != xs[0]->dtype())
          rt::fail(fmt::format("{}: outputs@GRAD[{}] is {} {} but the grid is {}", op, i, rt::dtype_name(g->dtype()),
                               g->shape().str(), grid.str()));
        const T* pg = g->data<T>();
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t j = 0; j < mid; ++j, pg += inner) {
            double s = 0;
            for (int64_t q = 0; q < inner; ++q) s += pg[q];
            acc[j] += s;
          }
      }
      x_grads[i]->resize(in[i], xs[0]->dtype());
      T* pd = x_grads[i]->data<T>();
      for (int64_t j = 0; j < mid; ++j) pd[j] = static_cast<T>(acc[j]);
    }
  });
}

}  // namespace fluidc::kernels
