// kernels/cpu/expand.cc - expand_v2, expand_as_v2, broadcast_tensors, tile, Fluid 1.x's expand and grads: one tiling walk of block copies / contiguous sums.
#include <cstring>

#include "kernels/cpu/attr_tensors.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/broadcast.h"
#include "kernels/shapes/expand.h"
#include "kernels/tensor_manip.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// Out dim d = xd[d] * rep[d] (X padded with leading 1s); dims that repeat
// once are merged with their inner neighbour so the copies are as long as
// the data allows. Strides are in elements.
struct TilePlan {
  int rank = 0;
  int64_t xd[Shape::kMaxRank] = {}, rep[Shape::kMaxRank] = {};
  int64_t xstride[Shape::kMaxRank] = {}, ostride[Shape::kMaxRank] = {};
};

TilePlan make_plan(const char* op, const Shape& x, const Shape& out) {
  if (out.rank < x.rank) rt::fail(fmt::format("{}: Out {} has fewer dims than X {}", op, out.str(), x.str()));
  int64_t xd[Shape::kMaxRank], rep[Shape::kMaxRank];
  const int r = out.rank;
  for (int i = 0; i < r; ++i) {
    const int xi = i - (r - x.rank);
    xd[i] = xi < 0 ? 1 : x.d[xi];
    rep[i] = xd[i] == out.d[i] ? 1 : xd[i] == 0 ? 0 : out.d[i] / xd[i];
    if (xd[i] * rep[i] != out.d[i])
      rt::fail(fmt::format("{}: Out {} is not a tiling of X {}", op, out.str(), x.str()));
  }
  TilePlan p;
  for (int i = 0; i < r; ++i) {
    if (xd[i] == 1 && rep[i] == 1) continue;
    if (p.rank > 0 && rep[i] == 1 && p.rep[p.rank - 1] == 1) {
      p.xd[p.rank - 1] *= xd[i];
      continue;
    }
    p.xd[p.rank] = xd[i];
    p.rep[p.rank] = rep[i];
    ++p.rank;
  }
  if (p.rank == 0) {
    p.rank = 1;
    p.xd[0] = p.rep[0] = 1;
  }
  int64_t xs = 1, os = 1;
  for (int i = p.rank - 1; i >= 0; --i) {
    p.xstride[i] = xs;
    p.ostride[i] = os;
    xs *= p.xd[i];
    os *= p.xd[i] * p.rep[i];
  }
  return p;
}

// Writes the first repetition of dim d by recursion, then copies it rep-1 times.
void tile_copy(const TilePlan& p, int d, const char* src, char* dst, int64_t elem) {
  const int64_t block = p.xd[d] * p.ostride[d] * elem;
  if (d == p.rank - 1) {
    std::memcpy(dst, src, block);
  } else {
    for (int64_t i = 0; i < p.xd[d]; ++i)
      tile_copy(p, d + 1, src + i * p.xstride[d] * elem, dst + i * p.ostride[d] * elem, elem);
  }
  for (int64_t k = 1; k < p.rep[d]; ++k) std::memcpy(dst + k * block, dst, block);
}

// dx += every tile of dout (dx zeroed by the caller); contiguous inner loop.
template <class T>
void tile_sum(const TilePlan& p, int d, const T* dout, T* dx) {
  const int64_t block = p.xd[d] * p.ostride[d];
  for (int64_t k = 0; k < p.rep[d]; ++k) {
    const T* base = dout + k * block;
    if (d == p.rank - 1) {
      for (int64_t i = 0; i < p.xd[d]; ++i) dx[i] += base[i];
    } else {
      for (int64_t i = 0; i < p.xd[d]; ++i) tile_sum(p, d + 1, base + i * p.ostride[d], dx + i * p.xstride[d]);
    }
  }
}

void tile_forward(const char* op, const Tensor& x, const Shape& os, Tensor& out) {
  const TilePlan p = make_plan(op, x.shape(), os);
  OutBuf buf(&out, Slot::kOut0, &out == &x);
  Tensor& o = buf.get();
  o.resize(os, x.dtype());
  if (o.numel() > 0)
    tile_copy(p, 0, static_cast<const char*>(x.raw()), static_cast<char*>(o.raw()),
              static_cast<int64_t>(rt::dtype_size(x.dtype())));
  buf.finish();
}

void tile_backward(const char* op, const Tensor& x, const Tensor& dout, Tensor* dx) {
  if (!dx) return;
  require_init(op, "X", x);
  require_init(op, "Out@GRAD", dout);
  const TilePlan p = make_plan(op, x.shape(), dout.shape());
  OutBuf buf(dx, Slot::kOut0, aliases(dx, {&x, &dout}));
  Tensor& g = buf.get();
  const Shape xs = x.shape();
  visit_float(op, "Out@GRAD", dout.dtype(), [&](auto tag) {
    using T = decltype(tag);
    g.resize(xs, dout.dtype());
    g.zero();
    if (dout.numel() > 0) tile_sum<T>(p, 0, dout.data<T>(), g.data<T>());
  });
  buf.finish();
}

// The values in effect: a 1-D tensor, else a list of 1-element tensors, else the attribute.
template <class Rule>
void with_values(const char* op, const char* tensor_role, const Tensor* t, const char* list_role,
                 const Tensor* const* list, int n, const std::vector<int>& attr, Rule rule) {
  if (t) rule(int_values(op, tensor_role, *t));
  else if (n > 0) rule(int_list_values(op, list_role, list, n));
  else rule(attr);
}

Shape expand_target(const Tensor& x, const Tensor* shape, const Tensor* const* list, int n, const ExpandV2Attrs& a) {
  Shape os;
  with_values("expand_v2", "Shape", shape, "expand_shapes_tensor", list, n, a.shape,
              [&](const auto& v) { require_rule("expand_v2", shapes::expand_shape(x.shape(), v, os)); });
  return os;
}

}  // namespace

void expand_v2(const Tensor& x, const Tensor* shape, const Tensor* const* shape_list, int num_shape_list,
               Tensor& out, const ExpandV2Attrs& a) {
  require_init("expand_v2", "X", x);
  tile_forward("expand_v2", x, expand_target(x, shape, shape_list, num_shape_list, a), out);
}

void expand_v2_grad(const Tensor& x, const Tensor*, const Tensor* const*, int, const Tensor& out_grad,
                    Tensor* x_grad, const ExpandV2Attrs&) {
  tile_backward("expand_v2_grad", x, out_grad, x_grad);
}

void expand_as_v2(const Tensor& x, const Tensor* y, Tensor& out, const ExpandAsV2Attrs& a) {
  const char* op = "expand_as_v2";
  require_init(op, "X", x);
  Shape os;
  if (y) {
    require_init(op, "Y", *y);
    const Shape& ys = y->shape();
    thread_local std::vector<int64_t> target;  // no allocation in steady state
    target.assign(ys.d, ys.d + ys.rank);
    require_rule(op, shapes::expand_shape(x.shape(), target, os));
  } else {
    require_rule(op, shapes::expand_shape(x.shape(), a.target_shape, os));
  }
  tile_forward(op, x, os, out);
}

void expand_as_v2_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const ExpandAsV2Attrs&) {
  tile_backward("expand_as_v2_grad", x, out_grad, x_grad);
}

void tile(const Tensor& x, const Tensor* repeat_times, const Tensor* const* repeat_list, int num_repeat_list,
          Tensor& out, const TileAttrs& a) {
  const char* op = "tile";
  require_init(op, "X", x);
  Shape os;
  with_values(op, "RepeatTimes", repeat_times, "repeat_times_tensor", repeat_list, num_repeat_list, a.repeat_times,
              [&](const auto& v) { require_rule(op, shapes::tile_shape(x.shape(), v, os)); });
  tile_forward(op, x, os, out);
}

void tile_grad(const Tensor& x, const Tensor*, const Tensor* const*, int, const Tensor& out_grad, Tensor* x_grad,
               const TileAttrs&) {
  tile_backward("tile_grad", x, out_grad, x_grad);
}

void expand(const Tensor& x, const Tensor* expand_times, const Tensor* const* times_list, int num_times_list, Tensor& out,
            const ExpandAttrs& a) {
  const char* op = "expand";
  require_init(op, "X", x);
  Shape os;
  with_values(op, "ExpandTimes", expand_times, "expand_times_tensor", times_list, num_times_list, a.expand_times,
              [&](const auto& v) { require_rule(op, shapes::expand_v1_shape(x.shape(), v, os)); });
  tile_forward(op, x, os, out);
}

void expand_grad(const Tensor& x, const Tensor*, const Tensor* const*, int, const Tensor& out_grad, Tensor* x_grad,
                 const ExpandAttrs&) {
  tile_backward("expand_grad", x, out_grad, x_grad);
}

namespace {

/// List outputs written one after another: output k must not be input j != k (writing it would change an
/// input still to be read).
void refuse_cross_aliases(const char* op, const Tensor* const* ins, int n, const Tensor* const* outs, int m) {
  for (int k = 0; k < m; ++k)
    for (int j = 0; j < n; ++j)
      if (outs[k] && j != k && outs[k] == ins[j]) rt::fail(fmt::format("{}: output #{} is also input #{}", op, k, j));
}

}  // namespace

void broadcast_tensors(const Tensor* const* xs, int n, Tensor* const* outs, int m) {
  constexpr const char* op = "broadcast_tensors";
  if (n < 1 || m != n) rt::fail(fmt::format("{}: {} inputs and {} outputs (one per input, at least one)", op, n, m));
  Shape target;
  for (int k = 0; k < n; ++k) {
    require_init(op, "X", *xs[k]);
    if (k == 0) {
      target = xs[0]->shape();
      continue;
    }
    Shape a, b, both;
    require_rule(op, shapes::broadcast_numpy(target, xs[k]->shape(), a, b, both));
    target = both;
  }
  refuse_cross_aliases(op, xs, n, outs, m);
  for (int k = 0; k < n; ++k)
    if (outs[k]) tile_forward(op, *xs[k], target, *outs[k]);
}

void broadcast_tensors_grad(const Tensor* const* xs, int n, const Tensor* const* out_grads, int n_grads,
                            Tensor* const* x_grads, int m) {
  constexpr const char* op = "broadcast_tensors_grad";
  if (n_grads != n || m != n)
    rt::fail(fmt::format("{}: {} inputs, {} Out@GRAD and {} X@GRAD (one each per input)", op, n, n_grads, m));
  refuse_cross_aliases(op, out_grads, n, x_grads, m);
  refuse_cross_aliases(op, xs, n, x_grads, m);
  for (int k = 0; k < n; ++k) tile_backward(op, *xs[k], *out_grads[k], x_grads[k]);
}

}  // namespace fluidc::kernels
