// kernels/cpu/split_stack.cc - split, stack, unstack and their grads as runs of memcpy (any dtype).
#include <cstring>

#include "kernels/cpu/attr_tensors.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/split_stack.h"
#include "kernels/tensor_manip.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// Bytes of X before / after `axis` as (outer count, inner bytes).
void outer_inner(const Shape& s, int axis, size_t elem, int64_t& outer, int64_t& inner_bytes) {
  outer = prod(s, 0, axis);
  inner_bytes = prod(s, axis + 1, s.rank) * static_cast<int64_t>(elem);
}

// Gathers n equally shaped blocks into `dst` along a new axis: dst's row o
// holds block i's row o at position i. srcs[i] == nullptr writes zeros.
void interleave(const char* const* srcs, int n, int64_t outer, int64_t row_bytes, char* dst) {
  for (int64_t o = 0; o < outer; ++o)
    for (int i = 0; i < n; ++i) {
      char* d = dst + (o * n + i) * row_bytes;
      if (srcs[i]) std::memcpy(d, srcs[i] + o * row_bytes, row_bytes);
      else std::memset(d, 0, row_bytes);
    }
}

// The inverse: block i gets row o of position i from `src`.
void deinterleave(const char* src, int n, int64_t outer, int64_t row_bytes, char* const* dsts) {
  for (int i = 0; i < n; ++i) {
    if (!dsts[i]) continue;
    for (int64_t o = 0; o < outer; ++o) std::memcpy(dsts[i] + o * row_bytes, src + (o * n + i) * row_bytes, row_bytes);
  }
}

}  // namespace

void split(const Tensor& x_in, const Tensor* axis_tensor, const Tensor* const* sections_list, int num_sections,
           Tensor* const* outs, int num_outs, const SplitAttrs& a) {
  const char* op = "split";
  require_init(op, "X", x_in);
  const int axis_attr = axis_tensor ? static_cast<int>(int_at(op, "AxisTensor", *axis_tensor, 0)) : a.axis;
  int axis = 0;
  require_rule(op, shapes::axis_in(axis_attr, x_in.rank(), axis));
  if (num_outs > Shape::kMaxRank * 1024) rt::fail("split: too many outputs");
  thread_local std::vector<Shape> shapes_out;
  shapes_out.resize(num_outs);
  if (num_sections > 0) {
    const std::vector<int64_t> s = int_list_values(op, "SectionsTensorList", sections_list, num_sections);
    require_rule(op, shapes::split_shapes(x_in.shape(), axis, a.num, &s, num_outs, shapes_out.data()));
  } else {
    require_rule(op, shapes::split_shapes(x_in.shape(), axis, a.num, &a.sections, num_outs, shapes_out.data()));
  }
  const Tensor& x = safe_source(x_in, outs, num_outs);
  const size_t elem = rt::dtype_size(x.dtype());
  int64_t outer = 0, inner = 0;
  outer_inner(x.shape(), axis, elem, outer, inner);
  const int64_t x_row = x.dim(axis) * inner;
  const char* src = static_cast<const char*>(x.raw());
  int64_t offset = 0;
  for (int i = 0; i < num_outs; ++i) {
    const int64_t part = shapes_out[i].d[axis] * inner;
    if (outs[i]) {
      outs[i]->resize(shapes_out[i], x.dtype());
      char* dst = static_cast<char*>(outs[i]->raw());
      for (int64_t o = 0; o < outer; ++o) std::memcpy(dst + o * part, src + o * x_row + offset, part);
    }
    offset += part;
  }
}

void stack(const Tensor* const* xs, int n, Tensor& y, const StackAttrs& a) {
  const char* op = "stack";
  for (int i = 0; i < n; ++i) {
    require_init(op, "X", *xs[i]);
    require_same_dtype(op, "X #0", *xs[0], "another X", *xs[i]);
  }
  Shape ys;
  int axis = 0;
  require_rule(op, shapes::stack_shape(n, [&](int i) -> const Shape& { return xs[i]->shape(); }, a.axis, ys, axis));
  bool aliased = false;
  for (int i = 0; i < n; ++i) aliased |= xs[i] == &y;
  OutBuf buf(&y, Slot::kOut0, aliased);
  Tensor& o = buf.get();
  o.resize(ys, xs[0]->dtype());
  int64_t outer = 0, row = 0;
  outer_inner(ys, axis, rt::dtype_size(o.dtype()), outer, row);
  thread_local std::vector<const char*> srcs;
  srcs.resize(n);
  for (int i = 0; i < n; ++i) srcs[i] = static_cast<const char*>(xs[i]->raw());
  interleave(srcs.data(), n, outer, row, static_cast<char*>(o.raw()));
  buf.finish();
}

void stack_grad(const Tensor* const*, int n, const Tensor& y_grad_in, Tensor* const* x_grads, int m,
                const StackAttrs& a) {
  const char* op = "stack_grad";
  require_init(op, "Y@GRAD", y_grad_in);
  if (n > 0 && m != n) rt::fail(fmt::format("{}: {} inputs but {} gradient slots", op, n, m));
  const int rank = y_grad_in.rank();
  int axis = 0;
  require_rule(op, shapes::axis_in(a.axis, rank, axis));
  if (y_grad_in.dim(axis) != m)
    rt::fail(fmt::format("{}: Y@GRAD {} has {} entries along axis {}, not {}", op, y_grad_in.shape().str(),
                         y_grad_in.dim(axis), axis, m));
  const Tensor& dy = safe_source(y_grad_in, x_grads, m);
  Shape xs;
  xs.rank = rank - 1;
  for (int d = 0, s = 0; d < rank; ++d)
    if (d != axis) xs.d[s++] = dy.dim(d);
  int64_t outer = 0, row = 0;
  outer_inner(dy.shape(), axis, rt::dtype_size(dy.dtype()), outer, row);
  thread_local std::vector<char*> dsts;
  dsts.resize(m);
  for (int i = 0; i < m; ++i) {
    dsts[i] = nullptr;
    if (!x_grads[i]) continue;
    x_grads[i]->resize(xs, dy.dtype());
    dsts[i] = static_cast<char*>(x_grads[i]->raw());
  }
  deinterleave(static_cast<const char*>(dy.raw()), m, outer, row, dsts.data());
}

void unstack(const Tensor& x_in, Tensor* const* ys, int n, const UnstackAttrs& a) {
  const char* op = "unstack";
  require_init(op, "X", x_in);
  Shape yshape;
  int axis = 0;
  require_rule(op, shapes::unstack_shape(x_in.shape(), a.axis, n, yshape, axis));
  const Tensor& x = safe_source(x_in, ys, n);
  int64_t outer = 0, row = 0;
  outer_inner(x.shape(), axis, rt::dtype_size(x.dtype()), outer, row);
  thread_local std::vector<char*> dsts;
  dsts.resize(n);
  for (int i = 0; i < n; ++i) {
    dsts[i] = nullptr;
    if (!ys[i]) continue;
    ys[i]->resize(yshape, x.dtype());
    dsts[i] = static_cast<char*>(ys[i]->raw());
  }
  deinterleave(static_cast<const char*>(x.raw()), n, outer, row, dsts.data());
}

void unstack_grad(const Tensor* const* y_grads, int n, Tensor* x_grad, const UnstackAttrs& a) {
  const char* op = "unstack_grad";
  if (!x_grad) return;
  // The gradients that exist fix the shape and dtype; the others are zeros.
  const Tensor* first = nullptr;
  for (int i = 0; i < n; ++i)
    if (y_grads[i] && y_grads[i]->initialized()) {
      if (!first) first = y_grads[i];
      require_same_dtype(op, "Y@GRAD #0", *first, "another Y@GRAD", *y_grads[i]);
      require_same_shape(op, "a Y@GRAD", *first, "another Y@GRAD", *y_grads[i]);
    }
  if (!first) rt::fail(fmt::format("{}: none of the {} Y@GRAD is initialized", op, n));
  Shape xs;
  int axis = 0;
  require_rule(op, shapes::stack_shape(1, [&](int) -> const Shape& { return first->shape(); }, a.axis, xs, axis));
  xs.d[axis] = n;
  bool aliased = false;
  for (int i = 0; i < n; ++i) aliased |= y_grads[i] == x_grad;
  OutBuf buf(x_grad, Slot::kOut0, aliased);
  Tensor& o = buf.get();
  o.resize(xs, first->dtype());
  int64_t outer = 0, row = 0;
  outer_inner(xs, axis, rt::dtype_size(o.dtype()), outer, row);
  thread_local std::vector<const char*> srcs;
  srcs.resize(n);
  for (int i = 0; i < n; ++i)
    srcs[i] = y_grads[i] && y_grads[i]->initialized() ? static_cast<const char*>(y_grads[i]->raw()) : nullptr;
  interleave(srcs.data(), n, outer, row, static_cast<char*>(o.raw()));
  buf.finish();
}

}  // namespace fluidc::kernels
