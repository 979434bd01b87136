// kernels/cpu/index_gather.cc - lookup_table_v2, gather, index_select, gather_nd and scatter_nd_add with their grads: row copies by checked index.
#include <cstring>

#include "kernels/cpu/attr_tensors.h"
#include "kernels/cpu/index_util.h"
#include "kernels/index.h"
#include "kernels/index_misc.h"
#include "kernels/shapes/index.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

void grad_of_take(const char* op, const Tensor& x, int axis, const int64_t* idx, int64_t n, const Tensor& out_grad,
                  Tensor* x_grad) {
  const AxisView v = axis_view(x.shape(), axis);
  if (out_grad.numel() != v.outer * n * v.inner)
    rt::fail(fmt::format("{}: Out@GRAD {} does not match {} indices into X {}", op, out_grad.shape().str(), n,
                         x.shape().str()));
  OutBuf buf(x_grad, Slot::kOut0, x_grad == &out_grad);
  Tensor& g = buf.get();
  g.resize(x.shape(), out_grad.dtype());
  visit_float(op, "Out@GRAD", out_grad.dtype(),
              [&](auto tag) { add_rows(out_grad.data<decltype(tag)>(), v, idx, n, g.data<decltype(tag)>()); });
  buf.finish();
}

int gather_axis(const char* op, const Tensor& x, const Tensor* axis, const GatherAttrs& a) {
  const int64_t ax = axis ? int_at(op, "Axis", *axis, 0) : a.axis;
  int out = 0;
  require_rule(op, shapes::index_axis("axis", ax, x.rank(), out));
  return out;
}

// Paddle's -1 means "no padding id"; any other value is the id whose rows are zero.
int64_t padding_id(const LookupTableV2Attrs& a) { return a.padding_idx == -1 ? INT64_MIN : a.padding_idx; }

}  // namespace

void lookup_table_v2(const Tensor& ids, const Tensor& w, Tensor& out, const LookupTableV2Attrs& a) {
  require_init("lookup_table_v2", "W", w);
  Shape s;
  require_rule("lookup_table_v2", shapes::lookup_table_v2_shape(ids.shape(), w.shape(), s));
  const int64_t rows = w.dim(0), n = ids.numel();
  const int64_t pad = padding_id(a);
  const int64_t* idx = checked_indices("lookup_table_v2", "Ids", ids, rows, pad);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&ids, &w}));
  Tensor& o = buf.get();
  o.resize(s, w.dtype());
  copy_embedding_rows(w, idx, n, pad, o);
  buf.finish();
}

void lookup_table_v2_grad(const Tensor& ids, const Tensor& w, const Tensor& out_grad, Tensor* w_grad,
                          const LookupTableV2Attrs& a) {
  if (!w_grad) return;
  require_init("lookup_table_v2_grad", "Out@GRAD", out_grad);
  if (w.rank() != 2) rt::fail(fmt::format("lookup_table_v2_grad: W must be 2-D, got {}", w.shape().str()));
  const int64_t rows = w.dim(0), d = w.dim(1), n = ids.numel();
  if (out_grad.numel() != n * d)
    rt::fail(fmt::format("lookup_table_v2_grad: Out@GRAD {} does not match Ids {} and W {}", out_grad.shape().str(),
                         ids.shape().str(), w.shape().str()));
  const int64_t pad = padding_id(a);
  const int64_t* idx = checked_indices("lookup_table_v2_grad", "Ids", ids, rows, pad);
  OutBuf buf(w_grad, Slot::kOut0, w_grad == &out_grad);
  Tensor& g = buf.get();
  g.resize(w.shape(), out_grad.dtype());
  visit_float("lookup_table_v2_grad", "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* gd = g.data<T>();
    const T* dy = out_grad.data<T>();
    std::fill(gd, gd + rows * d, T(0));
    for (int64_t i = 0; i < n; ++i) {
      // Padding rows get no gradient, except with is_sparse: Paddle 2.6.2's
      // sparse gradient kernel gives them one like any other row (seen in
      // test/fixtures/embedding_sparse_*: its padding row trains).
      // (A padding id outside the table is never a row to write.)
      if (idx[i] == pad && (!a.is_sparse || pad < 0 || pad >= rows)) continue;
      T* dst = gd + idx[i] * d;
      const T* src = dy + i * d;
      for (int64_t j = 0; j < d; ++j) dst[j] += src[j];
    }
  });
  buf.finish();
}

void gather(const Tensor& x, const Tensor& index, const Tensor* axis, Tensor& out, const GatherAttrs& a) {
  require_init("gather", "X", x);
  const int ax = gather_axis("gather", x, axis, a);
  Shape s;
  require_rule("gather", shapes::gather_shape(x.shape(), index.shape(), ax, s));
  const AxisView v = axis_view(x.shape(), ax);
  const int64_t* idx = checked_indices("gather", "Index", index, v.mid);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x, &index}));
  buf.get().resize(s, x.dtype());
  take_rows(x, v, idx, index.numel(), buf.get());
  buf.finish();
}

void gather_grad(const Tensor& x, const Tensor& index, const Tensor* axis, const Tensor& out_grad, Tensor* x_grad,
                 const GatherAttrs& a) {
  if (!x_grad) return;
  require_init("gather_grad", "Out@GRAD", out_grad);
  const int ax = gather_axis("gather_grad", x, axis, a);
  const int64_t* idx = checked_indices("gather_grad", "Index", index, x.dim(ax));
  grad_of_take("gather_grad", x, ax, idx, index.numel(), out_grad, x_grad);
}

void index_select(const Tensor& x, const Tensor& index, Tensor& out, const IndexSelectAttrs& a) {
  require_init("index_select", "X", x);
  Shape s;
  require_rule("index_select", shapes::gather_shape(x.shape(), index.shape(), a.dim, s, "dim"));
  if (index.rank() == 0) rt::fail("index_select: Index must be 1-D");
  const int ax = canonical_axis("index_select", "dim", a.dim, x.rank());
  const AxisView v = axis_view(x.shape(), ax);
  const int64_t* idx = checked_indices("index_select", "Index", index, v.mid);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x, &index}));
  buf.get().resize(s, x.dtype());
  take_rows(x, v, idx, index.numel(), buf.get());
  buf.finish();
}

void index_select_grad(const Tensor& x, const Tensor& index, const Tensor& out_grad, Tensor* x_grad,
                       const IndexSelectAttrs& a) {
  if (!x_grad) return;
  require_init("index_select_grad", "Out@GRAD", out_grad);
  const int ax = canonical_axis("index_select_grad", "dim", a.dim, x.rank());
  const int64_t* idx = checked_indices("index_select_grad", "Index", index, x.dim(ax));
  grad_of_take("index_select_grad", x, ax, idx, index.numel(), out_grad, x_grad);
}

namespace {

// The flat row of X (in units of X dims[k:]) that each of Index's tuples
// addresses, checked per coordinate. Returns the row count; rows in scratch.
const int64_t* nd_rows(const char* op, const Tensor& x, const Tensor& index, int64_t& count, int64_t& inner) {
  Shape s;
  require_rule(op, shapes::gather_nd_shape(x.shape(), index.shape(), s));
  const int k = static_cast<int>(index.dim(index.rank() - 1));
  count = k ? index.numel() / k : prod(index.shape(), 0, index.rank() - 1);
  inner = prod(x.shape(), k, x.rank());
  // Each coordinate is checked against its own dim: reading the whole
  // index with the largest bound first, then per dim.
  int64_t bound = 1;
  for (int i = 0; i < k; ++i) bound = std::max(bound, x.dim(i));
  const int64_t* c = checked_indices(op, "Index", index, bound);
  Tensor& rows = scratch(Slot::kTmp0);
  rows.resize(Shape{count}, DType::kInt64);
  int64_t* r = rows.data<int64_t>();
  for (int64_t t = 0; t < count; ++t) {
    int64_t flat = 0;
    for (int i = 0; i < k; ++i) {
      const int64_t id = c[t * k + i];
      if (id >= x.dim(i))
        rt::fail(fmt::format("{}: Index value {} (tuple {}, coordinate {}) is out of range [0, {})", op, id, t, i,
                             x.dim(i)));
      flat = flat * x.dim(i) + id;
    }
    r[t] = flat;
  }
  return r;
}

}  // namespace

void gather_nd(const Tensor& x, const Tensor& index, Tensor& out) {
  require_init("gather_nd", "X", x);
  Shape s;
  require_rule("gather_nd", shapes::gather_nd_shape(x.shape(), index.shape(), s));
  int64_t count = 0, inner = 0;
  const int64_t* rows = nd_rows("gather_nd", x, index, count, inner);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x, &index}));
  buf.get().resize(s, x.dtype());
  AxisView v;
  v.mid = x.numel() / std::max<int64_t>(inner, 1);
  v.inner = inner;
  take_rows(x, v, rows, count, buf.get());
  buf.finish();
}

void gather_nd_grad(const Tensor& x, const Tensor& index, const Tensor& out_grad, Tensor* x_grad) {
  if (!x_grad) return;
  require_init("gather_nd_grad", "Out@GRAD", out_grad);
  int64_t count = 0, inner = 0;
  const int64_t* rows = nd_rows("gather_nd_grad", x, index, count, inner);
  if (out_grad.numel() != count * inner)
    rt::fail(fmt::format("gather_nd_grad: Out@GRAD {} does not match Index {} into X {}", out_grad.shape().str(),
                         index.shape().str(), x.shape().str()));
  OutBuf buf(x_grad, Slot::kOut0, x_grad == &out_grad);
  Tensor& g = buf.get();
  g.resize(x.shape(), out_grad.dtype());
  AxisView v;
  v.mid = x.numel() / std::max<int64_t>(inner, 1);
  v.inner = inner;
  visit_float("gather_nd_grad", "Out@GRAD", out_grad.dtype(),
              [&](auto tag) { add_rows(out_grad.data<decltype(tag)>(), v, rows, count, g.data<decltype(tag)>()); });
  buf.finish();
}

void scatter_nd_add(const Tensor& x, const Tensor& index, const Tensor& updates, Tensor& out) {
  const char* op = "scatter_nd_add";
  require_init(op, "X", x);
  require_init(op, "Updates", updates);
  require_same_dtype(op, "X", x, "Updates", updates);
  Shape s;
  require_rule(op, shapes::gather_nd_shape(x.shape(), index.shape(), s));
  if (updates.shape() != s)
    rt::fail(fmt::format("{}: Updates is {} but Index {} into X {} addresses {}", op, updates.shape().str(),
                         index.shape().str(), x.shape().str(), s.str()));
  int64_t count = 0, inner = 0;
  const int64_t* rows = nd_rows(op, x, index, count, inner);
  // Out starts as X (in place when Out is X), then each Updates row adds in.
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&index, &updates}));
  Tensor& o = buf.get();
  if (&o != &x) o.copy_from(x);
  AxisView v;
  v.mid = x.numel() / std::max<int64_t>(inner, 1);
  v.inner = inner;
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    add_rows(updates.data<T>(), v, rows, count, o.data<T>(), false);
  });
  buf.finish();
}

void scatter_nd_add_grad(const Tensor& index, const Tensor& updates, const Tensor& out_grad, Tensor* x_grad,
                         Tensor* updates_grad) {
  const char* op = "scatter_nd_add_grad";
  require_init(op, "Out@GRAD", out_grad);
  // Updates@GRAD first: X@GRAD may be Out@GRAD itself.
  if (updates_grad) {
    require_init(op, "Updates", updates);
    gather_nd(out_grad, index, *updates_grad);
    if (updates_grad->shape() != updates.shape())
      rt::fail(fmt::format("{}: Updates is {} but Index {} into Out@GRAD {} addresses {}", op,
                           updates.shape().str(), index.shape().str(), out_grad.shape().str(),
                           updates_grad->shape().str()));
  }
  if (x_grad && x_grad != &out_grad) x_grad->copy_from(out_grad);
}

}  // namespace fluidc::kernels
