// kernels/cpu/pool.cc - max/avg pooling over 2 or 3 spatial dims, channel-first or channel-last, and gradients.
#include "kernels/pool.h"

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cpu/isa_clones.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/pool.h"

namespace fluidc::kernels {

using namespace detail;
using shapes::PoolGeom;

namespace {

PoolGeom geometry(const char* op, int nsp, const Tensor& x, const PoolAttrs& a, Shape& out) {
  require_init(op, "X", x);
  PoolGeom g;
  require_rule(op, shapes::pool_geom(x.shape(), a, nsp, g, out));
  return g;
}

// The windows of one output position along the three geometry dims.
struct Win {
  int64_t b[3], e[3], full = 1, count = 1;
};

inline Win window_at(const PoolGeom& g, int64_t od, int64_t oh, int64_t ow) {
  Win w;
  const int64_t o[3] = {od, oh, ow};
  for (int d = 0; d < 3; ++d) {
    int64_t f;
    g.window(d, o[d], w.b[d], w.e[d], f);
    w.full *= f;
    w.count *= std::max<int64_t>(0, w.e[d] - w.b[d]);
  }
  return w;
}

// Average divisor: the clipped window when exclusive or adaptive, else the
// unclipped one (Paddle's rule, padding included).
template <class T>
inline T divisor(const PoolGeom& g, const Win& w) {
  return static_cast<T>((g.exclusive || g.adaptive) ? w.count : w.full);
}

// Window bounds of every output index along the three geometry dims,
// computed once per call: b, e (clipped) and full (unclipped extent).
struct Tables {
  const int64_t* b[3];
  const int64_t* e[3];
  const int64_t* full[3];
};

Tables window_tables(const PoolGeom& g) {
  Tensor& buf = scratch(Slot::kTmp1);
  buf.resize(Shape{3 * (g.out[0] + g.out[1] + g.out[2])}, DType::kInt64);
  int64_t* p = buf.data<int64_t>();
  Tables t;
  for (int d = 0; d < 3; ++d) {
    int64_t* b = p;
    int64_t* e = p + g.out[d];
    int64_t* f = p + 2 * g.out[d];
    for (int64_t o = 0; o < g.out[d]; ++o) g.window(d, o, b[o], e[o], f[o]);
    t.b[d] = b, t.e[d] = e, t.full[d] = f;
    p += 3 * g.out[d];
  }
  return t;
}

// The output columns [lo, hi) whose windows lie wholly inside the input
// row: there window ow starts at ow * s - pad and spans k columns, so those
// columns need no table and no clipping. Adaptive windows vary: none.
struct Interior {
  int64_t lo = 0, hi = 0;
};

inline Interior interior_cols(const PoolGeom& g) {
  Interior r;
  if (g.adaptive || g.in[2] + g.pad[2] < g.k[2]) return r;
  r.lo = std::min(g.out[2], (g.pad[2] + g.s[2] - 1) / g.s[2]);
  r.hi = std::max(r.lo, std::min(g.out[2], (g.in[2] + g.pad[2] - g.k[2]) / g.s[2] + 1));
  return r;
}

// a > b ? a : b keeps the one-pass loop's NaN rule: a NaN never wins.
template <bool kMax, class T>
[[gnu::always_inline]] inline T combine(T acc, T v) {
  if constexpr (kMax) return v > acc ? v : acc;
  else return acc + v;
}

// y[ow] = the max (or sum) of cm[ow * S - pad + j], j < K, over whole windows,
// the sum divided by div. K and S known at compile time make the inner loop
// straight-line code and the outer one vectorisable (S = 2: interleaved
// loads). K = 0: k and s at run time.
template <class T, bool kMax, int K, int S>
[[gnu::always_inline]] inline void window_cols(const T* cm, T* y, Interior c, int64_t k, int64_t s, int64_t pad,
                                               T div) {
  const int64_t kk = K ? K : k, ss = K ? S : s;
  for (int64_t ow = c.lo; ow < c.hi; ++ow) {
    const T* w = cm + ow * ss - pad;
    T acc = w[0];
    for (int64_t j = 1; j < kk; ++j) acc = combine<kMax>(acc, w[j]);
    y[ow] = kMax ? acc : acc / div;
  }
}

// One (n, c) plane of pooling, channel-first, in two passes per output row:
// the max (sum) over the window's rows, column by column (whole input rows:
// vectorised), then over each window's columns of that, for the interior
// columns by window_cols with the CRNN's windows (k2s2, k3s2, k2s1, k3s1,
// k1s1) specialised, at the edges through the window tables. A 3x3 window
// costs about 3 + 3/8 steps per output instead of 9 scalar ones. Max: cm
// starts at lowest and never holds a NaN, as in the one-pass loop. Average:
// the divisor is Paddle's (divisor() above). cm: IW scratch values.
template <class T, bool kMax>
[[gnu::always_inline]] inline void pool_plane_body(const PoolGeom& g, const Tables& t, const T* xp, T* yp, T* cm) {
  const int64_t IH = g.in[1], IW = g.in[2], OD = g.out[0], OH = g.out[1], OW = g.out[2];
  const int64_t k = g.k[2], s = g.s[2], pad = g.pad[2];
  const Interior in = interior_cols(g);
  const T init = kMax ? std::numeric_limits<T>::lowest() : T(0);
  const bool by_count = g.exclusive || g.adaptive;
  for (int64_t od = 0; od < OD; ++od)
    for (int64_t oh = 0; oh < OH; ++oh) {
      const int64_t d0 = t.b[0][od], d1 = t.e[0][od], h0 = t.b[1][oh], h1 = t.e[1][oh];
      bool first = true;
      for (int64_t d = d0; d < d1; ++d)
        for (int64_t h = h0; h < h1; ++h) {
          const T* row = xp + (d * IH + h) * IW;
          if (first) {
            for (int64_t i = 0; i < IW; ++i) cm[i] = combine<kMax>(init, row[i]);
          } else {
            for (int64_t i = 0; i < IW; ++i) cm[i] = combine<kMax>(cm[i], row[i]);
          }
          first = false;
        }
      if (first) std::fill(cm, cm + IW, init);  // a window of no rows (padding only)
      const int64_t rows = by_count ? std::max<int64_t>(0, d1 - d0) * std::max<int64_t>(0, h1 - h0)
                                    : t.full[0][od] * t.full[1][oh];
      T* yrow = yp + (od * OH + oh) * OW;
      const T div = static_cast<T>(rows * k);  // interior windows span k columns, clipped or not
      if (k == 2 && s == 2) window_cols<T, kMax, 2, 2>(cm, yrow, in, k, s, pad, div);
      else if (k == 3 && s == 2) window_cols<T, kMax, 3, 2>(cm, yrow, in, k, s, pad, div);
      else if (k == 2 && s == 1) window_cols<T, kMax, 2, 1>(cm, yrow, in, k, s, pad, div);
      else if (k == 3 && s == 1) window_cols<T, kMax, 3, 1>(cm, yrow, in, k, s, pad, div);
      else if (k == 1 && s == 1) window_cols<T, kMax, 1, 1>(cm, yrow, in, k, s, pad, div);
      else window_cols<T, kMax, 0, 0>(cm, yrow, in, k, s, pad, div);
      auto edge = [&](int64_t ow) {
        const int64_t w0 = t.b[2][ow], w1 = t.e[2][ow];
        T acc = init;
        for (int64_t i = w0; i < w1; ++i) acc = combine<kMax>(acc, cm[i]);
        if constexpr (kMax) {
          yrow[ow] = acc;
        } else {
          const int64_t cols = by_count ? std::max<int64_t>(0, w1 - w0) : t.full[2][ow];
          yrow[ow] = acc / static_cast<T>(rows * cols);
        }
      };
      for (int64_t ow = 0; ow < in.lo; ++ow) edge(ow);
      for (int64_t ow = in.hi; ow < OW; ++ow) edge(ow);
    }
}

// fp32, the common case, once per instruction set (kernels/cpu/isa_clones.h):
// 8 or 16 lanes where the CPU has them.
[[gnu::always_inline]] inline void max_pool_plane_f32_body(const PoolGeom& g, const Tables& t, const float* xp,
                                                            float* yp, float* cm) {
  pool_plane_body<float, true>(g, t, xp, yp, cm);
}
[[gnu::always_inline]] inline void avg_pool_plane_f32_body(const PoolGeom& g, const Tables& t, const float* xp,
                                                            float* yp, float* cm) {
  pool_plane_body<float, false>(g, t, xp, yp, cm);
}
FLUIDC_ISA_CLONES(void, max_pool_plane_f32,
                  (const PoolGeom& g, const Tables& t, const float* xp, float* yp, float* cm),
                  (g, t, xp, yp, cm))
FLUIDC_ISA_CLONES(void, avg_pool_plane_f32,
                  (const PoolGeom& g, const Tables& t, const float* xp, float* yp, float* cm),
                  (g, t, xp, yp, cm))

// The CRNN's max pools (2x2 stride 2, and 2x1 stride 2x1 on the late
// layers): non-overlapping windows of two rows by KW = 2 or 1 columns, all
// inside the plane. One pass per output row straight from the two input
// rows, with pool_plane_body's combines in its order (each column's two
// rows from `lowest`, then the window's columns), so the same bits; the
// general loop's tables, scratch row and edge handling cost 2x on these
// small planes (bench/pool_rate).
template <int KW>
[[gnu::always_inline]] inline void max_pool_2row_body(const float* xp, float* yp, int64_t planes, int64_t IH,
                                                      int64_t IW, int64_t OH, int64_t OW) {
  const float lowest = std::numeric_limits<float>::lowest();
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oh = 0; oh < OH; ++oh) {
      const float* __restrict r0 = xp + (p * IH + 2 * oh) * IW;
      const float* __restrict r1 = r0 + IW;
      float* __restrict y = yp + (p * OH + oh) * OW;
      for (int64_t ow = 0; ow < OW; ++ow) {
        const float a = combine<true>(combine<true>(lowest, r0[KW * ow]), r1[KW * ow]);
        if constexpr (KW == 2) {
          const float b = combine<true>(combine<true>(lowest, r0[2 * ow + 1]), r1[2 * ow + 1]);
          y[ow] = combine<true>(a, b);
        } else {
          y[ow] = a;
        }
      }
    }
}
[[gnu::always_inline]] inline void max_pool_2x2_body(const float* xp, float* yp, int64_t planes, int64_t IH,
                                                     int64_t IW, int64_t OH, int64_t OW) {
  max_pool_2row_body<2>(xp, yp, planes, IH, IW, OH, OW);
}
[[gnu::always_inline]] inline void max_pool_2x1_body(const float* xp, float* yp, int64_t planes, int64_t IH,
                                                     int64_t IW, int64_t OH, int64_t OW) {
  max_pool_2row_body<1>(xp, yp, planes, IH, IW, OH, OW);
}
FLUIDC_ISA_CLONES(void, max_pool_2x2,
                  (const float* xp, float* yp, int64_t planes, int64_t IH, int64_t IW, int64_t OH, int64_t OW),
                  (xp, yp, planes, IH, IW, OH, OW))
FLUIDC_ISA_CLONES(void, max_pool_2x1,
                  (const float* xp, float* yp, int64_t planes, int64_t IH, int64_t IW, int64_t OH, int64_t OW),
                  (xp, yp, planes, IH, IW, OH, OW))

// Whether max_pool_2x2 / max_pool_2x1 compute this channel-first pool.
bool max_pool_2row_fits(const PoolGeom& g) {
  const bool cols = (g.k[2] == 2 && g.s[2] == 2) || (g.k[2] == 1 && g.s[2] == 1);
  return g.max && !g.adaptive && !g.channel_last && g.in[0] == 1 && g.k[0] == 1 && g.k[1] == 2 && g.s[1] == 2 &&
         cols && g.pad[1] == 0 && g.pad[2] == 0 && 2 * g.out[1] <= g.in[1] && g.k[2] * g.out[2] <= g.in[2];
}

template <class T>
void pool_plane(const PoolGeom& g, const Tables& t, const T* xp, T* yp, T* cm) {
  if constexpr (std::is_same_v<T, float>) {
    if (g.max) max_pool_plane_f32(g, t, xp, yp, cm);
    else avg_pool_plane_f32(g, t, xp, yp, cm);
  } else {
    if (g.max) pool_plane_body<T, true>(g, t, xp, yp, cm);
    else pool_plane_body<T, false>(g, t, xp, yp, cm);
  }
}

template <class T>
void pool_forward(const PoolGeom& g, const T* x, T* y) {
  const int64_t ID = g.in[0], IH = g.in[1], IW = g.in[2];
  const int64_t OD = g.out[0], OH = g.out[1], OW = g.out[2];
  const int64_t in_plane = ID * IH * IW, out_plane = OD * OH * OW;
  const T lowest = std::numeric_limits<T>::lowest();
  if constexpr (std::is_same_v<T, float>) {
    if (max_pool_2row_fits(g)) {
      const auto run = g.k[2] == 2 ? max_pool_2x2 : max_pool_2x1;
      parallel_items(g.n * g.c, in_plane, [&](int64_t b0, int64_t e0) {
        run(x + b0 * in_plane, y + b0 * out_plane, e0 - b0, IH, IW, OH, OW);
      });
      return;
    }
  }
  if (!g.channel_last) {
    const Tables t = window_tables(g);
    parallel_items(g.n * g.c, in_plane, [&](int64_t b0, int64_t e0) {
      thread_local std::vector<T> cols;  // pool_plane's column maxima or sums, one input row
      cols.resize(static_cast<size_t>(IW));
      for (int64_t p = b0; p < e0; ++p) pool_plane<T>(g, t, x + p * in_plane, y + p * out_plane, cols.data());
    });
    return;
  }
  // Channel-last: each window element is a contiguous run of C values.
  const int64_t C = g.c;
  parallel_items(g.n * out_plane, C * g.k[0] * g.k[1] * g.k[2], [&](int64_t b0, int64_t e0) {
    for (int64_t q = b0; q < e0; ++q) {
      const int64_t n = q / out_plane, r = q % out_plane;
      const int64_t od = r / (OH * OW), oh = r / OW % OH, ow = r % OW;
      const Win w = window_at(g, od, oh, ow);
      T* yc = y + q * C;
      for (int64_t c = 0; c < C; ++c) yc[c] = g.max ? lowest : T(0);
      const T* xn = x + n * in_plane * C;
      for (int64_t d = w.b[0]; d < w.e[0]; ++d)
        for (int64_t h = w.b[1]; h < w.e[1]; ++h)
          for (int64_t i = w.b[2]; i < w.e[2]; ++i) {
            const T* xc = xn + ((d * IH + h) * IW + i) * C;
            if (g.max) {
              for (int64_t c = 0; c < C; ++c) yc[c] = xc[c] > yc[c] ? xc[c] : yc[c];
            } else {
              for (int64_t c = 0; c < C; ++c) yc[c] += xc[c];
            }
          }
      if (!g.max) {
        const T inv = T(1) / divisor<T>(g, w);
        for (int64_t c = 0; c < C; ++c) yc[c] *= inv;
      }
    }
  });
}

// Max pooling's gradient over one channel-first 2-D plane, the windows
// from the tables: the first element of each window (row-major) equal to
// its max takes the gradient, as in pool_backward's general loop, without
// its per-output window arithmetic (a quarter of the LeNet training step).
template <class T>
void max_pool_backward_plane(const PoolGeom& g, const Tables& t, const T* xp, const T* yp, const T* dyp, T* dxp) {
  const int64_t IW = g.in[2], OH = g.out[1], OW = g.out[2];
  std::fill(dxp, dxp + g.in[1] * IW, T(0));
  for (int64_t oh = 0; oh < OH; ++oh) {
    const int64_t h0 = t.b[1][oh], h1 = t.e[1][oh];
    for (int64_t ow = 0; ow < OW; ++ow) {
      const int64_t w0 = t.b[2][ow], w1 = t.e[2][ow];
      const T m = yp[oh * OW + ow];
      // Scanned backwards with a select, not a branch per element (which
      // element is the max is a coin toss): the last match seen is the first.
      int64_t at = -1;
      for (int64_t h = h1 - 1; h >= h0; --h)
        for (int64_t i = w1 - 1; i >= w0; --i) at = xp[h * IW + i] == m ? h * IW + i : at;
      if (at >= 0) dxp[at] += dyp[oh * OW + ow];
    }
  }
}

// Gradient. Windows may overlap, so each (n, c) plane (or each batch item
// when channel-last) is owned by one thread and accumulated serially.
template <class T>
void pool_backward(const PoolGeom& g, const T* x, const T* y, const T* dy, T* dx) {
  const int64_t ID = g.in[0], IH = g.in[1], IW = g.in[2];
  const int64_t OD = g.out[0], OH = g.out[1], OW = g.out[2];
  const int64_t in_plane = ID * IH * IW, out_plane = OD * OH * OW;
  if (g.max && !g.channel_last && ID == 1 && OD == 1) {
    const Tables t = window_tables(g);
    parallel_items(g.n * g.c, in_plane, [&](int64_t b0, int64_t e0) {
      for (int64_t p = b0; p < e0; ++p)
        max_pool_backward_plane<T>(g, t, x + p * in_plane, y + p * out_plane, dy + p * out_plane, dx + p * in_plane);
    });
    return;
  }
  const int64_t C = g.channel_last ? g.c : 1;
  // Element (d, h, i, channel c) of one plane / batch item.
  auto idx = [&](int64_t d, int64_t h, int64_t i) { return ((d * IH + h) * IW + i) * C; };
  const int64_t items = g.channel_last ? g.n : g.n * g.c;
  parallel_items(items, in_plane * C, [&](int64_t b0, int64_t e0) {
    for (int64_t p = b0; p < e0; ++p) {
      const T* xp = x + p * in_plane * C;
      T* dxp = dx + p * in_plane * C;
      // Average pooling reads no Out (the caller may pass none): no pointer
      // arithmetic on a null y.
      const T* yp = g.max ? y + p * out_plane * C : nullptr;
      const T* dyp = dy + p * out_plane * C;
      for (int64_t k = 0; k < in_plane * C; ++k) dxp[k] = T(0);
      for (int64_t od = 0; od < OD; ++od)
        for (int64_t oh = 0; oh < OH; ++oh)
          for (int64_t ow = 0; ow < OW; ++ow) {
            const Win w = window_at(g, od, oh, ow);
            const int64_t o = ((od * OH + oh) * OW + ow) * C;
            for (int64_t c = 0; c < C; ++c) {
              const T g_out = dyp[o + c];
              if (g.max) {
                // The first element equal to the max takes the whole gradient.
                const T m = yp[o + c];
                bool done = false;
                for (int64_t d = w.b[0]; d < w.e[0] && !done; ++d)
                  for (int64_t h = w.b[1]; h < w.e[1] && !done; ++h)
                    for (int64_t i = w.b[2]; i < w.e[2]; ++i)
                      if (xp[idx(d, h, i) + c] == m) {
                        dxp[idx(d, h, i) + c] += g_out;
                        done = true;
                        break;
                      }
              } else {
                const T share = g_out / divisor<T>(g, w);
                for (int64_t d = w.b[0]; d < w.e[0]; ++d)
                  for (int64_t h = w.b[1]; h < w.e[1]; ++h)
                    for (int64_t i = w.b[2]; i < w.e[2]; ++i) dxp[idx(d, h, i) + c] += share;
              }
            }
          }
    }
  });
}

void pool_fwd(const char* op, int nsp, const Tensor& x, Tensor& out, const PoolAttrs& a) {
  Shape os;
  const PoolGeom g = geometry(op, nsp, x, a, os);
  OutBuf ob(&out, Slot::kOut0, aliases(&out, {&x}));
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ob.get().resize(os, x.dtype());
    pool_forward<T>(g, x.data<T>(), ob.get().data<T>());
  });
  ob.finish();
}

void pool_bwd(const char* op, int nsp, const Tensor& x, const Tensor& out, const Tensor& dout, Tensor* dx,
              const PoolAttrs& a) {
  if (!dx) return;
  Shape os;
  const PoolGeom g = geometry(op, nsp, x, a, os);
  require_init(op, "Out@GRAD", dout);
  if (dout.shape() != os)
    rt::fail(fmt::format("{}: Out@GRAD has shape {} but pooling X {} gives {}", op, dout.shape().str(),
                         x.shape().str(), os.str()));
  require_same_dtype(op, "X", x, "Out@GRAD", dout);
  if (g.max) {
    require_init(op, "Out", out);
    require_same_shape(op, "Out", out, "Out@GRAD", dout);
    require_same_dtype(op, "X", x, "Out", out);
  }
  OutBuf ob(dx, Slot::kOut0, aliases(dx, {&x, &out, &dout}));
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ob.get().resize(x.shape(), x.dtype());
    pool_backward<T>(g, x.data<T>(), g.max ? out.data<T>() : nullptr, dout.data<T>(), ob.get().data<T>());
  });
  ob.finish();
}

}  // namespace

void pool2d(const Tensor& x, Tensor& out, const PoolAttrs& attrs) { pool_fwd("pool2d", 2, x, out, attrs); }
void pool3d(const Tensor& x, Tensor& out, const PoolAttrs& attrs) { pool_fwd("pool3d", 3, x, out, attrs); }
void pool2d_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                 const PoolAttrs& attrs) {
  pool_bwd("pool2d_grad", 2, x, out, out_grad, x_grad, attrs);
}
void pool3d_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                 const PoolAttrs& attrs) {
  pool_bwd("pool3d_grad", 3, x, out, out_grad, x_grad, attrs);
}

}  // namespace fluidc::kernels
