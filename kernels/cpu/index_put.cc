// kernels/cpu/index_put.cc - index_put and index_put_grad: scattering a broadcast value to indexed places.
#include <cstring>

#include "kernels/cpu/kernel_util.h"
#include "kernels/index_put.h"
#include "kernels/shapes/broadcast.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

/// The indexed places: P offsets into x (in units of whole trailing rows of
/// `row` elements), and the target shape value broadcasts to (B + x's
/// trailing dims) with value's element stride per target dim.
struct Places {
  int64_t count = 0;
  int64_t row = 1;
  const int64_t* base = nullptr;  // P row offsets, in scratch
  Shape target;
  int64_t vstride[Shape::kMaxRank] = {};
};

Places places(const char* op, const Tensor& x, const Tensor* const* idx, int k, const Tensor& value) {
  require_init(op, "x", x);
  require_init(op, "value", value);
  require_same_dtype(op, "x", x, "value", value);
  const Shape& xs = x.shape();
  if (k < 1) rt::fail(fmt::format("{}: needs at least one index tensor", op));
  for (int j = 0; j < k; ++j) {
    if (!idx[j]) rt::fail(fmt::format("{}: indices entry {} is missing", op, j));
    require_init(op, "indices", *idx[j]);
  }
  Places p;
  Shape b;  // the places' shape
  int lead = 0;  // x dims the indices consume
  Tensor& buf = scratch(Slot::kTmp0);
  if (idx[0]->dtype() == DType::kBool) {
    if (k != 1) rt::fail(fmt::format("{}: a bool index must be the only index, got {}", op, k));
    const Shape& ms = idx[0]->shape();
    lead = ms.rank;
    if (lead > xs.rank) rt::fail(fmt::format("{}: the bool index {} has more dims than x {}", op, ms.str(), xs.str()));
    for (int d = 0; d < lead; ++d)
      if (ms.d[d] != xs.d[d])
        rt::fail(fmt::format("{}: the bool index {} does not match x {}'s leading dims", op, ms.str(), xs.str()));
    const bool* m = idx[0]->data<bool>();
    int64_t n = 0;
    for (int64_t i = 0; i < idx[0]->numel(); ++i) n += m[i] ? 1 : 0;
    buf.resize(Shape{n}, DType::kInt64);
    int64_t* out = buf.data<int64_t>();
    for (int64_t i = 0, w = 0; i < idx[0]->numel(); ++i)
      if (m[i]) out[w++] = i;
    b = Shape{n};
  } else {
    if (k > xs.rank) rt::fail(fmt::format("{}: {} index tensors for x {}", op, k, xs.str()));
    lead = k;
    b = idx[0]->shape();
    for (int j = 1; j < k; ++j) {
      Shape o, ba, ia;
      require_rule(op, shapes::broadcast_numpy(b, idx[j]->shape(), ba, ia, o));
      b = o;
    }
    const int64_t n = b.numel();
    buf.resize(Shape{n}, DType::kInt64);
    int64_t* out = buf.data<int64_t>();
    std::fill(out, out + n, int64_t{0});
    for (int j = 0; j < k; ++j) {
      const Tensor& t = *idx[j];
      if (t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64)
        rt::fail(fmt::format("{}: indices[{}] must be int32, int64 or bool, got {}", op, j, rt::dtype_name(t.dtype())));
      // t's element stride per dim of b (aligned at the right, 0 where broadcast).
      int64_t st[Shape::kMaxRank] = {};
      const Shape& ts = t.shape();
      int64_t s = 1;
      for (int d = ts.rank - 1; d >= 0; --d) {
        st[b.rank - ts.rank + d] = ts.d[d] == 1 ? 0 : s;
        s *= ts.d[d];
      }
      const int64_t dim = xs.d[j], inner = prod(xs, j + 1, lead);
      int64_t c[Shape::kMaxRank] = {};
      int64_t off = 0;
      for (int64_t e = 0; e < n; ++e) {
        int64_t v = t.dtype() == DType::kInt32 ? t.data<int32_t>()[off] : t.data<int64_t>()[off];
        if (v < -dim || v >= dim)
          rt::fail(fmt::format("{}: indices[{}] holds {} at entry {}, out of range for x's dim {} of size {}", op, j,
                               v, e, j, dim));
        if (v < 0) v += dim;
        out[e] += v * inner;
        for (int d = b.rank - 1; d >= 0; --d) {
          off += st[d];
          if (++c[d] < b.d[d]) break;
          off -= c[d] * st[d];
          c[d] = 0;
        }
      }
    }
  }
  p.count = b.numel();
  p.row = prod(xs, lead, xs.rank);
  p.base = buf.data<int64_t>();
  if (b.rank + xs.rank - lead > Shape::kMaxRank)
    rt::fail(fmt::format("{}: the indexed places have more than {} dims", op, Shape::kMaxRank));
  p.target = b;
  for (int d = lead; d < xs.rank; ++d) p.target.d[p.target.rank++] = xs.d[d];
  const Shape& vs = value.shape();
  const int vlead = vs.rank - p.target.rank;
  for (int d = 0; d < vlead; ++d)
    if (vs.d[d] != 1)
      rt::fail(fmt::format("{}: value {} does not broadcast to the indexed places {}", op, vs.str(), p.target.str()));
  int64_t s = 1;
  for (int d = p.target.rank - 1; d >= 0; --d) {
    const int vd = d + vlead;
    if (vd < 0) continue;
    if (vs.d[vd] != 1 && vs.d[vd] != p.target.d[d])
      rt::fail(fmt::format("{}: value {} does not broadcast to the indexed places {}", op, vs.str(), p.target.str()));
    p.vstride[d] = vs.d[vd] == 1 ? 0 : s;
    s *= vs.d[vd];
  }
  return p;
}

/// f(x offset, value offset) for each element of the places, row-major.
template <class F>
void for_places(const Places& p, F&& f) {
  const int64_t total = p.count * p.row;
  int64_t c[Shape::kMaxRank] = {};
  int64_t voff = 0;
  for (int64_t e = 0; e < total; ++e) {
    f(p.base[e / p.row] * p.row + e % p.row, voff);
    for (int d = p.target.rank - 1; d >= 0; --d) {
      voff += p.vstride[d];
      if (++c[d] < p.target.d[d]) break;
      voff -= c[d] * p.vstride[d];
      c[d] = 0;
    }
  }
}

}  // namespace

void index_put(const Tensor& x, const Tensor* const* indices, int num_indices, const Tensor& value, Tensor& out,
               const IndexPutAttrs& attrs) {
  constexpr const char* op = "index_put";
  const Places p = places(op, x, indices, num_indices, value);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&value}) || std::any_of(indices, indices + num_indices,
                                                                        [&](const Tensor* t) { return t == &out; }));
  Tensor& o = buf.get();
  if (&o != &x) o.copy_from(x);
  visit_all(op, "x", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* od = o.data<T>();
    const T* vd = value.data<T>();
    if constexpr (std::is_same_v<T, bool>) {
      if (attrs.accumulate) for_places(p, [&](int64_t i, int64_t j) { od[i] = od[i] || vd[j]; });
      else for_places(p, [&](int64_t i, int64_t j) { od[i] = vd[j]; });
    } else {
      if (attrs.accumulate) for_places(p, [&](int64_t i, int64_t j) { od[i] += vd[j]; });
      else for_places(p, [&](int64_t i, int64_t j) { od[i] = vd[j]; });
    }
  });
  buf.finish();
}

void index_put_grad(const Tensor& x, const Tensor* const* indices, int num_indices, const Tensor& value,
                    const Tensor& out_grad, Tensor* x_grad, Tensor* value_grad, const IndexPutAttrs& attrs) {
  constexpr const char* op = "index_put_grad";
  const Places p = places(op, x, indices, num_indices, value);
  require_init(op, "out@GRAD", out_grad);
  require_same_shape(op, "out@GRAD", out_grad, "x", x);
  require_same_dtype(op, "out@GRAD", out_grad, "x", x);
  visit_float(op, "out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* g = out_grad.data<T>();
    if (value_grad) {  // first: x@GRAD may be out@GRAD itself
      OutBuf vb(value_grad, Slot::kOut1, aliases(value_grad, {&out_grad, &x, &value}));
      vb.get().resize(value.shape(), value.dtype());
      T* vg = vb.get().data<T>();
      std::fill(vg, vg + value.numel(), T(0));
      for_places(p, [&](int64_t i, int64_t j) { vg[j] += g[i]; });
      vb.finish();
    }
    if (x_grad) {
      if (x_grad != &out_grad) x_grad->copy_from(out_grad);
      T* xg = x_grad->data<T>();
      if (!attrs.accumulate) for_places(p, [&](int64_t i, int64_t) { xg[i] = T(0); });
    }
  });
}

}  // namespace fluidc::kernels
