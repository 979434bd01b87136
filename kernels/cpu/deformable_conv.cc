// kernels/cpu/deformable_conv.cc - deformable_conv (v2, with Mask) and deformable_conv_v1 with their gradients.
//
// Per image: the columns col[c, i, j, p] = Mask * Input[c] sampled
// bilinearly at output point p's tap (i, j) moved by Offset (Paddle's
// modulated im2col), then per group Output = Filter x col. The gradient
// runs the same sampling backwards. The fp32 products (Output, Filter@GRAD
// and the columns' gradient) run on fluidc's packed GEMM; fp64 on loops.
#include <cmath>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/sgemm.h"
#include "kernels/sampling.h"
#include "kernels/shapes/sampling.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

struct Geo {
  int64_t N, Cin, H, W, Cout, kh, kw, Ho, Wo, groups, dg;
  int64_t sh, sw, ph, pw, dh, dw;
  int64_t taps() const { return kh * kw; }
  int64_t hw() const { return Ho * Wo; }
};

Geo geometry(const char* op, const Tensor& input, const Tensor& offset, const Tensor* mask, const Tensor& filter,
             const DeformableConvAttrs& a) {
  require_init(op, "Input", input);
  require_init(op, "Offset", offset);
  require_init(op, "Filter", filter);
  require_same_dtype(op, "Input", input, "Offset", offset);
  require_same_dtype(op, "Input", input, "Filter", filter);
  if (mask) {
    require_init(op, "Mask", *mask);
    require_same_dtype(op, "Input", input, "Mask", *mask);
  }
  Shape mshape = mask ? mask->shape() : Shape{}, os;
  require_rule(op, shapes::deformable_conv_shape(input.shape(), offset.shape(), mask ? &mshape : nullptr,
                                                 filter.shape(), a, os));
  const Shape& x = input.shape();
  return Geo{x.d[0],       x.d[1],       x.d[2],       x.d[3],      os.d[1],     filter.shape().d[2],
             filter.shape().d[3], os.d[2], os.d[3], a.groups,    a.deformable_groups, a.strides[0],
             a.strides[1], a.paddings[0], a.paddings[1], a.dilations[0], a.dilations[1]};
}

/// Where tap (i, j) of output point (ho, wo) reads channel plane c of image
/// n: its position, its mask value and the Offset/Mask element indices.
template <class T>
struct Tap {
  T h, w, m;
  int64_t off_h, off_w, mask_at;
  bool inside;
};

template <class T>
Tap<T> tap(const Geo& g, const T* offset, const T* mask, int64_t n, int64_t c, int64_t i, int64_t j, int64_t ho,
           int64_t wo) {
  const int64_t grp = c / (g.Cin / g.dg), t = i * g.kw + j, p = ho * g.Wo + wo;
  Tap<T> r;
  r.off_h = ((n * g.dg + grp) * 2 * g.taps() + 2 * t) * g.hw() + p;
  r.off_w = r.off_h + g.hw();
  r.mask_at = ((n * g.dg + grp) * g.taps() + t) * g.hw() + p;
  r.h = static_cast<T>(ho * g.sh - g.ph + i * g.dh) + offset[r.off_h];
  r.w = static_cast<T>(wo * g.sw - g.pw + j * g.dw) + offset[r.off_w];
  r.m = mask ? mask[r.mask_at] : T(1);
  // Paddle's test; NaN offsets fail it and read nothing.
  r.inside = r.h > T(-1) && r.w > T(-1) && r.h < static_cast<T>(g.H) && r.w < static_cast<T>(g.W);
  return r;
}

/// The four neighbours of (h, w) (inside the plane, else weight 0), their
/// bilinear weights and the weights' derivatives along h and w.
template <class T>
struct Corners {
  int64_t at[4];
  T wt[4], dh[4], dw[4];
};

template <class T>
Corners<T> corners(T h, T w, int64_t H, int64_t W) {
  Corners<T> c;
  const T fh = std::floor(h), fw = std::floor(w);
  const int64_t h0 = static_cast<int64_t>(fh), w0 = static_cast<int64_t>(fw);
  const T lh = h - fh, lw = w - fw, hh = T(1) - lh, hw = T(1) - lw;
  const int64_t hs[4] = {h0, h0, h0 + 1, h0 + 1}, ws[4] = {w0, w0 + 1, w0, w0 + 1};
  const T wt[4] = {hh * hw, hh * lw, lh * hw, lh * lw};
  const T dh[4] = {-hw, -lw, hw, lw}, dw[4] = {-hh, hh, -lh, lh};
  for (int k = 0; k < 4; ++k) {
    const bool ok = hs[k] >= 0 && hs[k] < H && ws[k] >= 0 && ws[k] < W;
    c.at[k] = ok ? hs[k] * W + ws[k] : -1;
    c.wt[k] = ok ? wt[k] : T(0);
    c.dh[k] = ok ? dh[k] : T(0);
    c.dw[k] = ok ? dw[k] : T(0);
  }
  return c;
}

template <class T>
T sample(const T* plane, const Corners<T>& c) {
  T v = T(0);
  for (int k = 0; k < 4; ++k)
    if (c.at[k] >= 0) v += c.wt[k] * plane[c.at[k]];
  return v;
}

/// col[(c * taps + t) * hw + p] for image n.
template <class T>
void im2col(const Geo& g, const T* x, const T* offset, const T* mask, int64_t n, T* col) {
  for (int64_t c = 0; c < g.Cin; ++c) {
    const T* plane = x + (n * g.Cin + c) * g.H * g.W;
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j)
        for (int64_t ho = 0; ho < g.Ho; ++ho)
          for (int64_t wo = 0; wo < g.Wo; ++wo) {
            const Tap<T> t = tap(g, offset, mask, n, c, i, j, ho, wo);
            const T v = t.inside ? sample(plane, corners(t.h, t.w, g.H, g.W)) : T(0);
            col[((c * g.kh + i) * g.kw + j) * g.hw() + ho * g.Wo + wo] = v * t.m;
          }
  }
}

template <class T>
void forward(const Geo& g, const T* x, const T* offset, const T* mask, const T* w, T* out, T* col) {
  const int64_t cin_g = g.Cin / g.groups, cout_g = g.Cout / g.groups, kg = cin_g * g.taps(), hw = g.hw();
  for (int64_t n = 0; n < g.N; ++n) {
    im2col(g, x, offset, mask, n, col);
    if constexpr (std::is_same_v<T, float>) {
      for (int64_t grp = 0; grp < g.groups; ++grp)
        packed_sgemm(false, false, cout_g, hw, kg, 1.0f, w + grp * cout_g * kg, kg, col + grp * kg * hw, hw, 0.0f,
                     out + (n * g.Cout + grp * cout_g) * hw, hw);
      continue;
    }
    parallel_items(g.Cout, kg * hw, [&](int64_t cb, int64_t ce) {
      thread_local std::vector<Acc<T>> acc;  // grow-only: steady-state steps allocate nothing
      if (acc.size() < static_cast<size_t>(hw)) acc.resize(static_cast<size_t>(hw));
      for (int64_t co = cb; co < ce; ++co) {
        const int64_t grp = co / cout_g;
        std::fill(acc.begin(), acc.begin() + hw, Acc<T>(0));
        for (int64_t k = 0; k < kg; ++k) {
          const Acc<T> wk = w[co * kg + k];
          const T* cr = col + (grp * kg + k) * hw;
          for (int64_t p = 0; p < hw; ++p) acc[p] += wk * cr[p];
        }
        T* o = out + (n * g.Cout + co) * hw;
        for (int64_t p = 0; p < hw; ++p) o[p] = static_cast<T>(acc[p]);
      }
    });
  }
}

// The fp64 products of the gradient: Filter@GRAD += Output@GRAD @ col^T and
// dcol = Filter^T @ Output@GRAD, per group, for image n.
template <class T>
void filter_grad_loops(const Geo& g, int64_t n, const T* dout, const T* col, T* dw) {
  const int64_t cout_g = g.Cout / g.groups, kg = g.Cin / g.groups * g.taps(), hw = g.hw();
  for (int64_t co = 0; co < g.Cout; ++co) {
    const int64_t grp = co / cout_g;
    const T* go = dout + (n * g.Cout + co) * hw;
    for (int64_t k = 0; k < kg; ++k) {
      const T* cr = col + (grp * kg + k) * hw;
      Acc<T> s = 0;
      for (int64_t p = 0; p < hw; ++p) s += static_cast<Acc<T>>(go[p]) * cr[p];
      dw[co * kg + k] += static_cast<T>(s);
    }
  }
}

template <class T>
void col_grad_loops(const Geo& g, int64_t n, const T* w, const T* dout, T* dcol) {
  const int64_t cout_g = g.Cout / g.groups, kg = g.Cin / g.groups * g.taps(), hw = g.hw();
  for (int64_t ck = 0; ck < g.Cin * g.taps(); ++ck) {
    const int64_t grp = ck / kg, k = ck % kg;
    for (int64_t p = 0; p < hw; ++p) {
      Acc<T> s = 0;
      for (int64_t co = grp * cout_g; co < (grp + 1) * cout_g; ++co)
        s += static_cast<Acc<T>>(w[co * kg + k]) * dout[(n * g.Cout + co) * hw + p];
      dcol[ck * hw + p] = static_cast<T>(s);
    }
  }
}

template <class T>
void backward(const Geo& g, const T* x, const T* offset, const T* mask, const T* w, const T* dout, T* dx, T* doff,
              T* dmask, T* dw, T* col, T* dcol) {
  const int64_t cin_g = g.Cin / g.groups, cout_g = g.Cout / g.groups, kg = cin_g * g.taps(), hw = g.hw();
  for (int64_t n = 0; n < g.N; ++n) {
    if (dw) {
      im2col(g, x, offset, mask, n, col);
      if constexpr (std::is_same_v<T, float>) {
        // Filter@GRAD[group] += Output@GRAD[group] (cout_g x hw) @ col[group]^T (hw x kg).
        for (int64_t grp = 0; grp < g.groups; ++grp)
          packed_sgemm(false, true, cout_g, kg, hw, 1.0f, dout + (n * g.Cout + grp * cout_g) * hw, hw,
                       col + grp * kg * hw, hw, 1.0f, dw + grp * cout_g * kg, kg);
      } else {
        filter_grad_loops(g, n, dout, col, dw);
      }
    }
    if (!dx && !doff && !dmask) continue;
    // dcol[c, t, p] = sum over the group's outputs of Filter * Output@GRAD.
    if constexpr (std::is_same_v<T, float>) {
      for (int64_t grp = 0; grp < g.groups; ++grp)  // dcol[group] = Filter[group]^T @ Output@GRAD[group]
        packed_sgemm(true, false, kg, hw, cout_g, 1.0f, w + grp * cout_g * kg, kg,
                     dout + (n * g.Cout + grp * cout_g) * hw, hw, 0.0f, dcol + grp * kg * hw, hw);
    } else {
      col_grad_loops(g, n, w, dout, dcol);
    }
    for (int64_t c = 0; c < g.Cin; ++c) {
      const T* plane = x + (n * g.Cin + c) * g.H * g.W;
      T* dplane = dx ? dx + (n * g.Cin + c) * g.H * g.W : nullptr;
      for (int64_t i = 0; i < g.kh; ++i)
        for (int64_t j = 0; j < g.kw; ++j)
          for (int64_t ho = 0; ho < g.Ho; ++ho)
            for (int64_t wo = 0; wo < g.Wo; ++wo) {
              const Tap<T> t = tap(g, offset, mask, n, c, i, j, ho, wo);
              if (!t.inside) continue;
              const T d = dcol[((c * g.kh + i) * g.kw + j) * hw + ho * g.Wo + wo];
              const Corners<T> cn = corners(t.h, t.w, g.H, g.W);
              if (dmask) dmask[t.mask_at] += d * sample(plane, cn);
              T gh = T(0), gw = T(0);
              for (int q = 0; q < 4; ++q) {
                if (cn.at[q] < 0) continue;
                if (dplane) dplane[cn.at[q]] += d * t.m * cn.wt[q];
                gh += cn.dh[q] * plane[cn.at[q]];
                gw += cn.dw[q] * plane[cn.at[q]];
              }
              if (doff) {
                doff[t.off_h] += d * t.m * gh;
                doff[t.off_w] += d * t.m * gw;
              }
            }
    }
  }
}

void run_forward(const char* op, const Tensor& input, const Tensor& offset, const Tensor* mask, const Tensor& filter,
                 Tensor& output, const DeformableConvAttrs& a) {
  const Geo g = geometry(op, input, offset, mask, filter, a);
  OutBuf buf(&output, Slot::kOut0, aliases(&output, {&input, &offset, mask, &filter}));
  Tensor& out = buf.get();
  out.resize(Shape{g.N, g.Cout, g.Ho, g.Wo}, input.dtype());
  Tensor& col = scratch(Slot::kTmp0);
  col.resize(Shape{g.Cin * g.taps(), g.hw()}, input.dtype());
  visit_float(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    forward<T>(g, input.data<T>(), offset.data<T>(), mask ? mask->data<T>() : nullptr, filter.data<T>(),
               out.data<T>(), col.data<T>());
  });
  buf.finish();
}

void run_backward(const char* op, const Tensor& input, const Tensor& offset, const Tensor* mask,
                  const Tensor& filter, const Tensor& output_grad, Tensor* input_grad, Tensor* offset_grad,
                  Tensor* mask_grad, Tensor* filter_grad, const DeformableConvAttrs& a) {
  const Geo g = geometry(op, input, offset, mask, filter, a);
  require_init(op, "Output@GRAD", output_grad);
  if (output_grad.shape() != Shape{g.N, g.Cout, g.Ho, g.Wo})
    rt::fail(fmt::format("{}: Output@GRAD is {} but Output is [{}, {}, {}, {}]", op, output_grad.shape().str(), g.N,
                         g.Cout, g.Ho, g.Wo));
  require_same_dtype(op, "Input", input, "Output@GRAD", output_grad);
  const std::initializer_list<const Tensor*> ins = {&input, &offset, mask, &filter, &output_grad};
  OutBuf bx(input_grad, Slot::kOut0, aliases(input_grad, ins));
  OutBuf bo(offset_grad, Slot::kOut1, aliases(offset_grad, ins));
  OutBuf bm(mask_grad, Slot::kOut2, aliases(mask_grad, ins));
  // Filter@GRAD is small: owned scratch would collide with the slots above.
  Tensor& col = scratch(Slot::kTmp0);
  Tensor& dcol = scratch(Slot::kTmp1);
  col.resize(Shape{g.Cin * g.taps(), g.hw()}, input.dtype());
  dcol.resize(Shape{g.Cin * g.taps(), g.hw()}, input.dtype());
  if (filter_grad && aliases(filter_grad, ins))
    rt::fail(fmt::format("{}: Filter@GRAD may not be one of the inputs", op));
  visit_float(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    auto zeroed = [&](OutBuf& b, const Tensor& like) -> T* {
      if (!b.wanted()) return nullptr;
      b.get().resize(like.shape(), like.dtype());
      std::fill(b.get().data<T>(), b.get().data<T>() + like.numel(), T(0));
      return b.get().data<T>();
    };
    T* dx = zeroed(bx, input);
    T* doff = zeroed(bo, offset);
    T* dm = mask ? zeroed(bm, *mask) : nullptr;
    T* dw = nullptr;
    if (filter_grad) {
      filter_grad->resize(filter.shape(), filter.dtype());
      dw = filter_grad->data<T>();
      std::fill(dw, dw + filter.numel(), T(0));
    }
    backward<T>(g, input.data<T>(), offset.data<T>(), mask ? mask->data<T>() : nullptr, filter.data<T>(),
                output_grad.data<T>(), dx, doff, dm, dw, col.data<T>(), dcol.data<T>());
  });
  bx.finish();
  bo.finish();
  bm.finish();
}

}  // namespace

void deformable_conv(const Tensor& input, const Tensor& offset, const Tensor& mask, const Tensor& filter,
                     Tensor& output, const DeformableConvAttrs& attrs) {
  run_forward("deformable_conv", input, offset, &mask, filter, output, attrs);
}

void deformable_conv_v1(const Tensor& input, const Tensor& offset, const Tensor& filter, Tensor& output,
                        const DeformableConvAttrs& attrs) {
  run_forward("deformable_conv_v1", input, offset, nullptr, filter, output, attrs);
}

void deformable_conv_grad(const Tensor& input, const Tensor& offset, const Tensor& mask, const Tensor& filter,
                          const Tensor& output_grad, Tensor* input_grad, Tensor* offset_grad, Tensor* mask_grad,
                          Tensor* filter_grad, const DeformableConvAttrs& attrs) {
  run_backward("deformable_conv_grad", input, offset, &mask, filter, output_grad, input_grad, offset_grad, mask_grad,
               filter_grad, attrs);
}

void deformable_conv_v1_grad(const Tensor& input, const Tensor& offset, const Tensor& filter,
                             const Tensor& output_grad, Tensor* input_grad, Tensor* offset_grad, Tensor* filter_grad,
                             const DeformableConvAttrs& attrs) {
  run_backward("deformable_conv_v1_grad", input, offset, nullptr, filter, output_grad, input_grad, offset_grad,
               nullptr, filter_grad, attrs);
}

}  // namespace fluidc::kernels
