// kernels/cpu/tensor_manip.cc - reshape2, reshape, slice, concat and grads as strided byte copies (any dtype).
#include "kernels/tensor_manip.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "kernels/cpu/attr_tensors.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/tensor_manip.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

using Window = shapes::SliceWindow;

// The run-time bound tensors of one slice op (all optional).
struct SliceBounds {
  const Tensor* starts_tensor;
  const Tensor* ends_tensor;
  const Tensor* const* starts_list;
  int num_starts;
  const Tensor* const* ends_list;
  int num_ends;
};

// The bounds in effect, held on the stack: slicing runs inside training
// steps, which must not allocate. One value per sliced axis, so never more
// than a tensor's rank unless the program repeats an axis (refused).
struct BoundValues {
  int64_t v[Shape::kMaxRank];
  size_t n = 0;
  std::span<const int64_t> span() const { return {v, n}; }
};

// A run-time tensor (all its values, one per axis) or tensor list (one
// 1-element tensor per axis) wins over the attribute.
BoundValues bounds(const std::vector<int>& attr, const Tensor* tensor, const Tensor* const* list, int n,
                   const char*& from, const char* tensor_role, const char* list_role) {
  BoundValues b;
  const int64_t count = tensor ? tensor->numel() : n > 0 ? n : static_cast<int64_t>(attr.size());
  if (count > Shape::kMaxRank)
    rt::fail(fmt::format("slice: {} bounds, more than a tensor's {} axes", count, Shape::kMaxRank));
  b.n = static_cast<size_t>(count);
  if (tensor) {
    from = tensor_role;
    for (int64_t k = 0; k < count; ++k) b.v[k] = int_at("slice", tensor_role, *tensor, k);
  } else if (n > 0) {
    from = list_role;
    for (int k = 0; k < n; ++k) b.v[k] = int_list_entry("slice", list_role, list, k);
  } else {
    for (size_t k = 0; k < attr.size(); ++k) b.v[k] = attr[k];
  }
  return b;
}

Window slice_window(const Shape& in, const SliceAttrs& a, const SliceBounds& b) {
  const char* starts_from = "starts";
  const char* ends_from = "ends";
  const BoundValues starts =
      bounds(a.starts, b.starts_tensor, b.starts_list, b.num_starts, starts_from, "StartsTensor", "StartsTensorList");
  const BoundValues ends =
      bounds(a.ends, b.ends_tensor, b.ends_list, b.num_ends, ends_from, "EndsTensor", "EndsTensorList");
  Window w;
  require_rule("slice", shapes::slice_window(in, a, starts.span(), ends.span(), w, starts_from, ends_from));
  return w;
}

// Copies between a dense tensor of shape `win.size` and the window of a
// larger tensor of shape `full`; to_window selects the direction.
void copy_window(char* full_data, const Shape& full, const Window& win, char* dense, size_t elem, bool to_window) {
  const int r = full.rank;
  if (win.size.numel() == 0) return;
  if (r == 0) {
    to_window ? std::memcpy(full_data, dense, elem) : std::memcpy(dense, full_data, elem);
    return;
  }
  int64_t stride[Shape::kMaxRank];
  stride[r - 1] = 1;
  for (int i = r - 2; i >= 0; --i) stride[i] = stride[i + 1] * full.d[i + 1];
  const int64_t run = win.size.d[r - 1];
  int64_t idx[Shape::kMaxRank] = {};
  for (int64_t done = 0, total = win.size.numel(); done < total; done += run) {
    int64_t off = 0;
    for (int i = 0; i < r; ++i) off += (win.begin[i] + idx[i]) * stride[i];
    char* f = full_data + off * elem;
    char* d = dense + done * elem;
    to_window ? std::memcpy(f, d, run * elem) : std::memcpy(d, f, run * elem);
    for (int i = r - 2; i >= 0; --i) {
      if (++idx[i] < win.size.d[i]) break;
      idx[i] = 0;
    }
  }
}

Shape decreased(const Shape& s, const std::vector<int>& decrease_axis) {
  Shape out;
  require_rule("slice", shapes::slice_out_shape(s, decrease_axis, out));
  return out;
}

}  // namespace

namespace {

// reshape2 and Fluid 1.x's reshape, with Paddle's precedence: ShapeTensor, then Shape, then the attribute.
void reshape_to(const char* op, const Tensor& x, const Tensor* shape, const Tensor* const* shape_tensor,
                int num_shape_tensor, Tensor& out, Tensor* x_shape, const Reshape2Attrs& a) {
  require_init(op, "X", x);
  Shape s;
  if (num_shape_tensor > 0)
    require_rule(op, shapes::reshape2_shape(x.shape(), int_list_values(op, "ShapeTensor", shape_tensor, num_shape_tensor), s));
  else if (shape)
    require_rule(op, shapes::reshape2_shape(x.shape(), int_values(op, "Shape", *shape), s));
  else
    require_rule(op, shapes::reshape2_shape(x.shape(), a, s));
  copy_reshaped(x, s, out, x_shape);
}

}  // namespace

void reshape2(const Tensor& x, const Tensor* shape, const Tensor* const* shape_tensor, int num_shape_tensor,
              Tensor& out, Tensor* x_shape, const Reshape2Attrs& a) {
  reshape_to("reshape2", x, shape, shape_tensor, num_shape_tensor, out, x_shape, a);
}

void reshape(const Tensor& x, const Tensor* shape, const Tensor* const* shape_tensor, int num_shape_tensor, Tensor& out,
             const Reshape2Attrs& a) {
  reshape_to("reshape", x, shape, shape_tensor, num_shape_tensor, out, nullptr, a);
}

void reshape_grad(const Tensor& x, const Tensor*, const Tensor* const*, int, const Tensor*, const Tensor& out_grad,
                  Tensor* x_grad) {
  if (!x_grad) return;
  require_init("reshape_grad", "X", x);
  require_init("reshape_grad", "Out@GRAD", out_grad);
  if (x.numel() != out_grad.numel())
    rt::fail(fmt::format("reshape_grad: Out@GRAD {} does not fit X {}", out_grad.shape().str(), x.shape().str()));
  copy_reshaped(out_grad, x.shape(), *x_grad, nullptr);
}

void reshape2_grad(const Tensor& x_shape, const Tensor& out_grad, Tensor* x_grad) {
  if (!x_grad) return;
  require_init("reshape2_grad", "Out@GRAD", out_grad);
  if (x_shape.rank() < 1) rt::fail("reshape2_grad: XShape must have rank >= 1");
  Shape s;
  s.rank = x_shape.rank() - 1;
  for (int i = 0; i < s.rank; ++i) s.d[i] = x_shape.dim(i + 1);
  if (s.numel() != out_grad.numel())
    rt::fail(fmt::format("reshape2_grad: Out@GRAD {} does not fit X {}", out_grad.shape().str(), s.str()));
  if (x_grad != &out_grad) {
    x_grad->resize(s, out_grad.dtype());
    std::memcpy(x_grad->raw(), out_grad.raw(), out_grad.nbytes());
  } else {
    x_grad->resize(s, out_grad.dtype());
  }
}

void slice(const Tensor& input, const Tensor* starts_tensor, const Tensor* ends_tensor,
           const Tensor* const* starts_list, int num_starts, const Tensor* const* ends_list, int num_ends,
           Tensor& out, const SliceAttrs& a) {
  require_init("slice", "Input", input);
  Window w = slice_window(input.shape(), a,
                          {starts_tensor, ends_tensor, starts_list, num_starts, ends_list, num_ends});
  OutBuf buf(&out, Slot::kOut0, &out == &input);
  Tensor& o = buf.get();
  o.resize(w.size, input.dtype());
  copy_window(const_cast<char*>(static_cast<const char*>(input.raw())), input.shape(), w, static_cast<char*>(o.raw()),
              rt::dtype_size(input.dtype()), false);
  o.resize(decreased(w.size, a.decrease_axis));
  buf.finish();
}

void slice_grad(const Tensor& input, const Tensor* starts_tensor, const Tensor* ends_tensor,
                const Tensor* const* starts_list, int num_starts, const Tensor* const* ends_list, int num_ends,
                const Tensor& out_grad, Tensor* input_grad, const SliceAttrs& a) {
  if (!input_grad) return;
  require_init("slice_grad", "Out@GRAD", out_grad);
  Window w = slice_window(input.shape(), a,
                          {starts_tensor, ends_tensor, starts_list, num_starts, ends_list, num_ends});
  if (w.size.numel() != out_grad.numel())
    rt::fail(fmt::format("slice_grad: Out@GRAD {} does not match the slice {}", out_grad.shape().str(), w.size.str()));
  OutBuf buf(input_grad, Slot::kOut0, input_grad == &out_grad);
  Tensor& g = buf.get();
  g.resize(input.shape(), out_grad.dtype());
  g.zero();
  copy_window(static_cast<char*>(g.raw()), input.shape(), w,
              const_cast<char*>(static_cast<const char*>(out_grad.raw())), rt::dtype_size(out_grad.dtype()), true);
  buf.finish();
}

// Out's LoD, Paddle's rule: along axis 0, when every input has a LoD, their
// sequences one after another (the offsets renumbered); otherwise X[0]'s.
static void concat_lod(const Tensor* const* xs, int n, int axis, Tensor& out) {
  const rt::Lod* first = xs[0]->lod();
  bool append = axis == 0 && first;
  for (int i = 1; append && i < n; ++i) {
    const rt::Lod* l = xs[i]->lod();
    if (!l) append = false;
    else if (l->size() != first->size())
      rt::fail(fmt::format("concat: X #{} has {} LoD levels but X #0 has {}", i, l->size(), first->size()));
  }
  if (!append) {
    out.share_lod(*xs[0]);
    return;
  }
  rt::Lod lod = *first;  // built apart: Out may be one of the inputs
  for (int i = 1; i < n; ++i)
    for (size_t level = 0; level < lod.size(); ++level) {
      const std::vector<uint64_t>& in = (*xs[i]->lod())[level];
      for (size_t j = 1; j < in.size(); ++j) lod[level].push_back(lod[level].back() + (in[j] - in[j - 1]));
    }
  out.mutable_lod() = std::move(lod);
}

void concat(const Tensor* const* xs, int n, const Tensor* axis_tensor, Tensor& out, const ConcatAttrs& attrs) {
  if (n < 1) rt::fail("concat: needs at least one input");
  ConcatAttrs a = attrs;
  if (axis_tensor) a.axis = static_cast<int>(int_at("concat", "AxisTensor", *axis_tensor, 0));
  require_init("concat", "X", *xs[0]);
  for (int i = 0; i < n; ++i) {
    require_init("concat", "X", *xs[i]);
    if (xs[i]->dtype() != xs[0]->dtype())
      rt::fail(fmt::format("concat: X #{} is {} but X #0 is {}", i, rt::dtype_name(xs[i]->dtype()),
                           rt::dtype_name(xs[0]->dtype())));
  }
  Shape s;
  int axis = 0;
  require_rule("concat", shapes::concat_shape(n, [&](int i) -> const Shape& { return xs[i]->shape(); }, a, s, axis));
  bool aliased = false;
  for (int i = 0; i < n; ++i) aliased |= xs[i] == &out;
  OutBuf buf(&out, Slot::kOut0, aliased);
  Tensor& o = buf.get();
  o.resize(s, xs[0]->dtype());
  Window w;
  w.size = s;
  for (int i = 0; i < s.rank; ++i) w.begin[i] = 0;
  for (int i = 0; i < n; ++i) {
    w.size.d[axis] = xs[i]->dim(axis);
    copy_window(static_cast<char*>(o.raw()), s, w, const_cast<char*>(static_cast<const char*>(xs[i]->raw())),
                rt::dtype_size(o.dtype()), true);
    w.begin[axis] += xs[i]->dim(axis);
  }
  buf.finish();
  concat_lod(xs, n, axis, out);
}

void concat_grad(const Tensor* const* xs, int n, const Tensor& out_grad, Tensor* const* x_grads, int m,
                 const ConcatAttrs& a) {
  if (m != n) rt::fail(fmt::format("concat_grad: {} inputs but {} gradient slots", n, m));
  require_init("concat_grad", "Out@GRAD", out_grad);
  const Shape& full = out_grad.shape();
  const int axis = canonical_axis("concat_grad", "axis", a.axis, full.rank);
  Window w;
  w.size = full;
  for (int i = 0; i < full.rank; ++i) w.begin[i] = 0;
  for (int i = 0; i < n; ++i) {
    w.size.d[axis] = xs[i]->dim(axis);
    if (x_grads[i]) {
      x_grads[i]->resize(w.size, out_grad.dtype());
      copy_window(const_cast<char*>(static_cast<const char*>(out_grad.raw())), full, w,
                  static_cast<char*>(x_grads[i]->raw()), rt::dtype_size(out_grad.dtype()), false);
    }
    w.begin[axis] += xs[i]->dim(axis);
  }
}

}  // namespace fluidc::kernels
