// kernels/cpu/interp_nd.cc - linear (1-D), trilinear (3-D) and bicubic (2-D) resizing (v2 and v1 ops) and their gradients.
//
// One separable engine: each spatial dim gets, per output position, up to
// four (input index, weight) taps; an output value is the sum over the tap
// combinations of the weight products times the input. Dims the op lacks
// are padded as size 1 with one tap of weight 1.
#include <cmath>
#include <vector>

#include "kernels/cpu/interp_common.h"
#include "kernels/interp.h"
#include "kernels/shapes/interp_nd.h"

namespace fluidc::kernels {

using namespace detail;
using shapes::InterpGeomNd;
using shapes::InterpKind;

namespace {

struct TapN {
  int k = 1;
  int64_t i[4] = {0, 0, 0, 0};
  float w[4] = {1, 0, 0, 0};
};

// Keys' cubic convolution kernel with a = -0.75 (Paddle's bicubic): the
// weights of the inputs at floor(src) - 1 .. floor(src) + 2 for t = src - floor(src).
void cubic_weights(float t, float (&w)[4]) {
  constexpr float A = -0.75f;
  auto near = [](float x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };          // |x| <= 1
  auto far = [](float x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };    // 1 < |x| < 2
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

// The taps of one spatial dim.
void dim_taps(const InterpGeomNd& g, int64_t in, int64_t out, float ratio, std::vector<TapN>& taps) {
  taps.assign(static_cast<size_t>(out), TapN{});
  if (g.kind == InterpKind::kLinear) {
    std::vector<Tap> two;
    make_taps(false, g.align_corners, g.half_pixel, in, out, ratio, two);
    for (int64_t o = 0; o < out; ++o) {
      TapN& t = taps[static_cast<size_t>(o)];
      t.k = 2;
      t.i[0] = two[o].i0, t.i[1] = two[o].i1;
      t.w[0] = two[o].w0, t.w[1] = two[o].w1;
    }
    return;
  }
  // Cubic: src = o * ratio, or (o + 0.5) * ratio - 0.5 (not clipped at 0);
  // the four inputs around floor(src), clamped to the edge.
  for (int64_t o = 0; o < out; ++o) {
    TapN& t = taps[static_cast<size_t>(o)];
    const float src = g.half_pixel ? ratio * (static_cast<float>(o) + 0.5f) - 0.5f : ratio * static_cast<float>(o);
    const float f = std::floor(src);
    t.k = 4;
    cubic_weights(src - f, t.w);
    for (int j = 0; j < 4; ++j) t.i[j] = std::clamp<int64_t>(static_cast<int64_t>(f) - 1 + j, 0, in - 1);
  }
}

// Element offsets of a tensor's batch / channel / spatial positions
// (spatial padded to 3 dims).
struct Layout {
  int64_t n, c, s[3];
};
Layout layout(const InterpGeomNd& g, const int64_t (&sz)[3]) {
  const int64_t S = sz[0] * sz[1] * sz[2];
  if (g.channel_last) return {S * g.c, 1, {sz[1] * sz[2] * g.c, sz[2] * g.c, g.c}};
  return {g.c * S, S, {sz[1] * sz[2], sz[2], 1}};
}

struct Plan {
  int64_t in[3], out[3];
  std::vector<TapN> taps[3];
  Layout li, lo;
};

Plan plan(const InterpGeomNd& g) {
  Plan p;
  const int pad = 3 - g.dims;
  for (int d = 0; d < 3; ++d) {
    p.in[d] = d < pad ? 1 : g.in[d - pad];
    p.out[d] = d < pad ? 1 : g.out[d - pad];
    if (d < pad) p.taps[d].assign(1, TapN{});
    else dim_taps(g, p.in[d], p.out[d], g.ratio[d - pad], p.taps[d]);
  }
  p.li = layout(g, p.in);
  p.lo = layout(g, p.out);
  return p;
}

// visit(out_offset, in_offset, weight) for every tap of every output value.
template <class Visit>
void walk(const InterpGeomNd& g, const Plan& p, Visit visit) {
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t c = 0; c < g.c; ++c) {
      const int64_t bi = n * p.li.n + c * p.li.c, bo = n * p.lo.n + c * p.lo.c;
      for (int64_t od = 0; od < p.out[0]; ++od)
        for (int64_t oh = 0; oh < p.out[1]; ++oh)
          for (int64_t ow = 0; ow < p.out[2]; ++ow) {
            const int64_t at = bo + od * p.lo.s[0] + oh * p.lo.s[1] + ow * p.lo.s[2];
            const TapN &td = p.taps[0][od], &th = p.taps[1][oh], &tw = p.taps[2][ow];
            for (int a = 0; a < td.k; ++a)
              for (int b = 0; b < th.k; ++b) {
                const int64_t row = bi + td.i[a] * p.li.s[0] + th.i[b] * p.li.s[1];
                const double wab = static_cast<double>(td.w[a]) * th.w[b];
                for (int e = 0; e < tw.k; ++e) visit(at, row + tw.i[e] * p.li.s[2], wab * tw.w[e]);
              }
          }
    }
}

InterpGeomNd geometry(const char* op, int dims, const char* method, InterpKind kind, const Tensor& x,
                      const Tensor* out_size, const Tensor* const* size_tensor, int num_size_tensor,
                      const Tensor* scale, const InterpAttrs& a, Shape& out) {
  require_init(op, "X", x);
  InterpGeomNd g;
  require_rule(op, shapes::interp_nd_geom(x.shape(), a, dims, method, kind,
                                          read_sources(op, dims, out_size, size_tensor, num_size_tensor, scale), g,
                                          out));
  return g;
}

struct OpInfo {
  const char* fwd;
  const char* bwd;
  int dims;
  const char* method;
  InterpKind kind;
};
constexpr OpInfo kLinear{"linear_interp_v2", "linear_interp_v2_grad", 1, "linear", InterpKind::kLinear};
constexpr OpInfo kTrilinear{"trilinear_interp_v2", "trilinear_interp_v2_grad", 3, "trilinear", InterpKind::kLinear};
constexpr OpInfo kBicubic{"bicubic_interp_v2", "bicubic_interp_v2_grad", 2, "bicubic", InterpKind::kCubic};
constexpr OpInfo kLinearV1{"linear_interp", "linear_interp_grad", 1, "linear", InterpKind::kLinear};
constexpr OpInfo kTrilinearV1{"trilinear_interp", "trilinear_interp_grad", 3, "trilinear", InterpKind::kLinear};
constexpr OpInfo kBicubicV1{"bicubic_interp", "bicubic_interp_grad", 2, "bicubic", InterpKind::kCubic};

void run_forward(const OpInfo& info, const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                 int num_size_tensor, const Tensor* scale, Tensor& out, const InterpAttrs& a) {
  const char* op = info.fwd;
  Shape os;
  const InterpGeomNd g =
      geometry(op, info.dims, info.method, info.kind, x, out_size, size_tensor, num_size_tensor, scale, a, os);
  if (&out == &x) rt::fail(fmt::format("{}: Out must not be X", op));
  const Plan p = plan(g);
  double* acc = zeroed(Slot::kAcc, os.numel());
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    walk(g, p, [&](int64_t o, int64_t i, double w) { acc[o] += w * px[i]; });
    out.resize(os, x.dtype());
    T* po = out.data<T>();
    for (int64_t i = 0, n = os.numel(); i < n; ++i) po[i] = static_cast<T>(acc[i]);
  });
}

void run_backward(const OpInfo& info, const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor,
                  int num_size_tensor, const Tensor* scale, const Tensor& out_grad, Tensor* x_grad,
                  const InterpAttrs& a) {
  const char* op = info.bwd;
  if (!x_grad) return;
  Shape os;
  const InterpGeomNd g =
      geometry(op, info.dims, info.method, info.kind, x, out_size, size_tensor, num_size_tensor, scale, a, os);
  require_init(op, "Out@GRAD", out_grad);
  if (out_grad.shape() != os)
    rt::fail(fmt::format("{}: Out@GRAD has shape {}, the resize gives {}", op, out_grad.shape().str(), os.str()));
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  const Plan p = plan(g);
  double* acc = zeroed(Slot::kAcc, x.numel());
  const Shape xs = x.shape();
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* pg = out_grad.data<T>();
    walk(g, p, [&](int64_t o, int64_t i, double w) { acc[i] += w * pg[o]; });
    x_grad->resize(xs, x.dtype());  // after every read: X@GRAD may be Out@GRAD
    T* pd = x_grad->data<T>();
    for (int64_t i = 0, n = xs.numel(); i < n; ++i) pd[i] = static_cast<T>(acc[i]);
  });
}

}  // namespace

#define FLUIDC_INTERP_ND(name, info)                                                                                 \
  void name(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor, int num_size_tensor,        \
            const Tensor* scale, Tensor& out, const InterpAttrs& attrs) {                                           \
    run_forward(info, x, out_size, size_tensor, num_size_tensor, scale, out, attrs);                                \
  }                                                                                                                  \
  void name##_grad(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor, int num_size_tensor, \
                   const Tensor* scale, const Tensor& out_grad, Tensor* x_grad, const InterpAttrs& attrs) {          \
    run_backward(info, x, out_size, size_tensor, num_size_tensor, scale, out_grad, x_grad, attrs);                  \
  }
FLUIDC_INTERP_ND(linear_interp_v2, kLinear)
FLUIDC_INTERP_ND(trilinear_interp_v2, kTrilinear)
FLUIDC_INTERP_ND(bicubic_interp_v2, kBicubic)
#undef FLUIDC_INTERP_ND

// The v1 ops: the same engine on the v2 form of their attributes.
#define FLUIDC_INTERP_ND_V1(name, info)                                                                              \
  void name(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor, int num_size_tensor,        \
            const Tensor* scale, Tensor& out, const InterpV1Attrs& attrs) {                                         \
    run_forward(info, x, out_size, size_tensor, num_size_tensor, scale, out, attrs.v2());                           \
  }                                                                                                                  \
  void name##_grad(const Tensor& x, const Tensor* out_size, const Tensor* const* size_tensor, int num_size_tensor, \
                   const Tensor* scale, const Tensor& out_grad, Tensor* x_grad, const InterpV1Attrs& attrs) {        \
    run_backward(info, x, out_size, size_tensor, num_size_tensor, scale, out_grad, x_grad, attrs.v2());             \
  }
FLUIDC_INTERP_ND_V1(linear_interp, kLinearV1)
FLUIDC_INTERP_ND_V1(trilinear_interp, kTrilinearV1)
FLUIDC_INTERP_ND_V1(bicubic_interp, kBicubicV1)
#undef FLUIDC_INTERP_ND_V1

}  // namespace fluidc::kernels
