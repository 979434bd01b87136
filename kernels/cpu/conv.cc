// kernels/cpu/conv.cc - conv2d, depthwise_conv2d, conv3d and their gradients: im2col + GEMM, direct depthwise loops.
#include "kernels/conv.h"

#include "kernels/cpu/conv_depthwise.h"
#include "kernels/cpu/conv_epilogue.h"
#include "kernels/cpu/conv_implicit.h"
#include "kernels/cpu/isa_clones.h"
#include "kernels/cpu/conv_layout.h"
#include "kernels/cpu/conv_small.h"
#include "kernels/cpu/conv_lowering.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/conv.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

using shapes::ConvGeometry;

/// One input channel per group: the direct loops beat a GEMM whose inner
/// dimension would be the filter's taps only.
bool is_depthwise(const ConvGeometry& g) { return g.groups == g.C && g.groups > 1; }

// The kernels are built for baseline x86-64; the fp32 depthwise loops (the
// part of MobileNet-style models that is not a GEMM) get AVX2/AVX-512 clones.
// 2-D windows at stride 1 or 2 go through zero-padded phase planes of the
// plane (then other stride-1 ones through a padded copy), in per-thread
// buffers (the planes are spread over the threads).
__attribute__((always_inline)) inline void depthwise_plane_f32_body(const Lowering& l, const float* x, const float* w,
                                                                    float* y) {
  int64_t nxp, nyp;
  PhasePlanes q;
  if (phased_fits(l) && phase_planes(l, q))
    depthwise_plane_phased(l, q, x, w, y, conv_buffer<float>(ConvBuf::kPlaneIn, q.sv * q.sh * q.plane),
                           conv_buffer<float>(ConvBuf::kPlaneOut, q.n + 16));
  else if (padded_plane_sizes(l, nxp, nyp))
    depthwise_plane_padded(l, x, w, y, conv_buffer<float>(ConvBuf::kPlaneIn, nxp),
                           conv_buffer<float>(ConvBuf::kPlaneOut, nyp));
  else
    depthwise_plane(l, x, w, y);
}

FLUIDC_ISA_CLONES(void, depthwise_plane_f32, (const Lowering& l, const float* x, const float* w, float* y),
                  (l, x, w, y))

template <class T>
void depthwise_plane_any(const Lowering& l, const T* x, const T* w, T* y) {
  int64_t nxp, nyp;
  if constexpr (std::is_same_v<T, float>) depthwise_plane_f32(l, x, w, y);
  else if (padded_plane_sizes(l, nxp, nyp))
    depthwise_plane_padded(l, x, w, y, conv_buffer<T>(ConvBuf::kPlaneIn, nxp), conv_buffer<T>(ConvBuf::kPlaneOut, nyp));
  else depthwise_plane(l, x, w, y);
}

/// Narrow images (a late CNN layer's 7x7 = 49 positions) fill the GEMM's
/// 48-wide column tiles poorly, one image at a time; with a batch, the
/// columns of several images go into one product. The images go in chunks
/// of about kChunkColumns columns, not the whole batch at once: a batch of
/// 256 LeNet-5 images made a 15 MB column matrix, most of the trainer's
/// heap, where 11 images (1100 columns, 0.6 MB) fill the tiles as well and
/// stay in cache between im2col and the GEMM. The scratch is then bounded
/// whatever the batch; a chunk whose column matrix would pass 16 MB of fp32
/// is not batched.
constexpr int64_t kChunkColumns = 1024;

int64_t images_per_chunk(int64_t N, int64_t Pout) {
  return std::min(N, (kChunkColumns + Pout - 1) / std::max<int64_t>(1, Pout));
}

bool batched_columns(int64_t N, int64_t Pout, int64_t K) {
  constexpr int64_t kNarrow = 192, kMaxColumns = int64_t{4} << 20;
  const int64_t chunk = images_per_chunk(N, Pout);
  return chunk > 1 && Pout < kNarrow && K * Pout * chunk <= kMaxColumns;
}

/// The column matrix col[K, nb*Pout] of images n0..n0+nb of group gi (image
/// n of the chunk in columns [n*Pout, (n+1)*Pout)): im2col, or the planes
/// themselves for a 1x1 convolution.
template <class T>
void chunk_columns(const ConvGeometry& g, const Lowering& l, const T* x, int64_t n0, int64_t nb, int64_t gi, T* col) {
  const int64_t Pin = l.img_size(), Pout = l.col_size(), cols = nb * Pout;
  const int64_t Cg = g.C / g.groups, K = Cg * l.taps();
  for (int64_t n = 0; n < nb; ++n) {
    const T* img = x + ((n0 + n) * g.C + gi * Cg) * Pin;
    if (l.pointwise())
      for (int64_t r = 0; r < K; ++r) std::copy(img + r * Pin, img + (r + 1) * Pin, col + r * cols + n * Pout);
    else
      im2col(l, Cg, img, col + n * Pout, cols);
  }
}

/// forward() with one GEMM per group and chunk of images: col[K, nb*Pout]
/// (image n of the chunk in columns [n*Pout, (n+1)*Pout)), then the
/// product's [Mg, nb*Pout] rows are copied to each image's output channels.
template <class T>
void forward_batched(const ConvGeometry& g, const Lowering& l, const T* x, const T* w, T* y,
                     const ConvEpilogue<T>& ep) {
  const int64_t Pout = l.col_size();
  const int64_t Cg = g.C / g.groups, Mg = g.M / g.groups, K = Cg * l.taps();
  const int64_t chunk = images_per_chunk(g.N, Pout);
  T* col = conv_buffer<T>(ConvBuf::kCol, K * chunk * Pout);
  T* prod = conv_buffer<T>(ConvBuf::kBatchProduct, Mg * chunk * Pout);
  for (int64_t n0 = 0; n0 < g.N; n0 += chunk) {
    const int64_t nb = std::min(chunk, g.N - n0), cols = nb * Pout;
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      chunk_columns(g, l, x, n0, nb, gi, col);
      conv_gemm<T>(false, false, Mg, cols, K, w + gi * Mg * K, col, T(0), prod);
      for (int64_t n = 0; n < nb; ++n)
        for (int64_t m = 0; m < Mg; ++m) {
          T* plane = y + ((n0 + n) * g.M + gi * Mg + m) * Pout;
          std::copy(prod + m * cols + n * Pout, prod + m * cols + (n + 1) * Pout, plane);
          if (!ep.empty()) ep.planes(plane, gi * Mg + m, 1, Pout);
        }
    }
  }
}

/// forward() for fp32 without a stored column matrix: the GEMM makes each
/// K-slice of it row by row into its packing (im2col_row), so the matrix
/// (K x Pout, megabytes for an early layer) never goes out to memory and
/// back. One product per image and group.
/// The epilogue runs on each finished column block of the product, while
/// it is in cache, not over the whole output after.
void forward_fused(const ConvGeometry& g, const Lowering& l, const float* x, const float* w, float* y,
                   const ConvEpilogue<float>& ep) {
  const int64_t Pin = l.img_size(), Pout = l.col_size();
  const int64_t Cg = g.C / g.groups, Mg = g.M / g.groups, K = Cg * l.taps();
  struct Source {
    const Lowering* l;
    const float* img;
    const ConvEpilogue<float>* ep;
    int64_t m0;  // the group's first output channel
  };
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const Source src{&l, x + (n * g.C + gi * Cg) * Pin, &ep, gi * Mg};
      BRows rows{[](const void* ctx, int64_t k, int64_t j0, int64_t cnt, float* dst) {
                   const Source* s = static_cast<const Source*>(ctx);
                   im2col_row(*s->l, s->img, k, j0, cnt, dst);
                 },
                 &src};
      if (l.pointwise()) {  // the image is its own column matrix: packed in place
        rows.dense = src.img;
        rows.ld = Pin;
      }
      if (!ep.empty())
        rows.done = [](const void* ctx, float* c, int64_t ldc, int64_t m, int64_t cnt) {
          const Source* s = static_cast<const Source*>(ctx);
          s->ep->rows(c, ldc, s->m0, m, cnt);
        };
      packed_sgemm_rows(Mg, Pout, K, w + gi * Mg * K, K, rows, y + (n * g.M + gi * Mg) * Pout, Pout);
    }
}

/// forward() for fp32 through the implicit GEMM (conv_implicit.h): the tap
/// offsets once per call; per image and group, the input goes into phase
/// planes once, then tasks of a
/// few output rows by up to 64 output channels run on the threads, each
/// applying the epilogue to its own block while it is in cache.
void forward_implicit(const ConvGeometry& g, const Lowering& l, const float* x, const float* w, float* y,
                      const ConvEpilogue<float>& ep) {
  const int64_t Pin = l.img_size(), Pout = l.col_size(), O1 = l.col[1], O2 = l.col[2];
  ImplicitConv c{&l, {}, g.C / g.groups, g.M / g.groups, (g.C / g.groups) * l.taps(), nullptr, nullptr, nullptr, {}};
  phase_planes(l, c.q);
  float* planes = conv_buffer<float>(ConvBuf::kImplicitPlanes, c.Cg * c.phases() * c.q.plane);
  int32_t* offset = conv_buffer<int32_t>(ConvBuf::kTapOffsets, c.K);
  fill_tap_offsets(c, offset);
  c.planes = planes;
  c.offset = offset;
  constexpr int64_t kChannelsPerTask = 64;
  const int64_t rows = c.rows_per_task(), row_tasks = (O1 + rows - 1) / rows;
  const int64_t tasks = row_tasks * ((c.Mg + kChannelsPerTask - 1) / kChannelsPerTask);
  // An exact epilogue runs inside the kernel, on each channel's rows as it
  // copies them out; any other after it, on the task's block.
  ExactEpilogue exact;
  const bool in_kernel = ep.exact(exact);
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      fill_implicit_planes(c, x + (n * g.C + gi * c.Cg) * Pin, planes);
      c.w = w + gi * c.Mg * c.K;
      if (in_kernel) {
        c.epilogue = exact;
        if (exact.bias) c.epilogue.bias = exact.bias + gi * c.Mg;
      }
      float* yg = y + (n * g.M + gi * c.Mg) * Pout;
      rt::parallel_for(tasks, [&](int64_t t) {
        const int64_t r0 = t % row_tasks * rows, r1 = std::min(r0 + rows, O1);
        const int64_t m0 = t / row_tasks * kChannelsPerTask, m1 = std::min(m0 + kChannelsPerTask, c.Mg);
        implicit_conv_rows(c, r0, r1, m0, m1, yg);
        if (!in_kernel && !ep.empty())
          ep.rows(yg + m0 * Pout + r0 * O2, Pout, gi * c.Mg + m0, m1 - m0, (r1 - r0) * O2);
      });
    }
}

/// y[N, M, Pout] from x[N, C, Pin] and w[M, C/groups, taps], channels first.
/// Each finished group of output planes goes through `ep` (bias,
/// activation) right after it is computed.
template <class T>
void forward(const ConvGeometry& g, const T* x, const T* w, T* y, const ConvEpilogue<T>& ep) {
  const Lowering l = lowering(g, false);
  const int64_t Pin = l.img_size(), Pout = l.col_size(), taps = l.taps();
  if (is_depthwise(g)) {
    const int64_t mult = g.M / g.C;
    rt::parallel_for(g.N * g.M, [&](int64_t i) {
      const int64_t n = i / g.M, m = i % g.M;
      depthwise_plane_any(l, x + (n * g.C + m / mult) * Pin, w + m * taps, y + i * Pout);
      if (!ep.empty()) ep.planes(y + i * Pout, m, 1, Pout);
    });
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (small_conv_forward_fits(g)) {
      small_conv_forward(g, x, w, y, ep);
      return;
    }
  }
  const int64_t Cg = g.C / g.groups, Mg = g.M / g.groups, K = Cg * taps;
  if (batched_columns(g.N, Pout, K)) {
    forward_batched(g, l, x, w, y, ep);
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (implicit_conv_fits(l, Cg, Mg)) {
      forward_implicit(g, l, x, w, y, ep);
      return;
    }
  }
  const bool pointwise = l.pointwise();
  if constexpr (std::is_same_v<T, float>) {
    // A 1x1 convolution with an epilogue goes this way too (its "columns"
    // are the image's rows, copied): the epilogue then runs on each block of
    // the product while it is in cache, not over planes of megabytes after.
    // Same blocked GEMM as conv_gemm's above its 4096 threshold: same sums.
    if ((!pointwise || !ep.empty()) && Mg * Pout * K > 4096) {
      forward_fused(g, l, x, w, y, ep);
      return;
    }
  }
  T* col = pointwise ? nullptr : conv_buffer<T>(ConvBuf::kCol, K * Pout);
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const T* img = x + (n * g.C + gi * Cg) * Pin;
      if (!pointwise) im2col(l, Cg, img, col);
      conv_gemm<T>(false, false, Mg, Pout, K, w + gi * Mg * K, pointwise ? img : col, T(0),
                   y + (n * g.M + gi * Mg) * Pout);
      if (!ep.empty()) ep.planes(y + (n * g.M + gi * Mg) * Pout, gi * Mg, Mg, Pout);
    }
}

/// backward() for narrow images, as forward_batched: per group and chunk of
/// images, dY's rows gathered into [Mg, nb*Pout], one GEMM for dW over the
/// chunk's columns (a reduction nb times as long as one image's) and one
/// for the chunk's column gradient, put back image by image. dx is zeroed.
template <class T>
void backward_batched(const ConvGeometry& g, const Lowering& l, const T* x, const T* w, const T* dy, T* dx,
                      T* dw) {
  const int64_t Pin = l.img_size(), Pout = l.col_size();
  const int64_t Cg = g.C / g.groups, Mg = g.M / g.groups, K = Cg * l.taps();
  const int64_t chunk = images_per_chunk(g.N, Pout);
  T* col = conv_buffer<T>(ConvBuf::kCol, K * chunk * Pout);
  T* dyc = conv_buffer<T>(ConvBuf::kBatchProduct, Mg * chunk * Pout);
  for (int64_t n0 = 0; n0 < g.N; n0 += chunk) {
    const int64_t nb = std::min(chunk, g.N - n0), cols = nb * Pout;
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      for (int64_t n = 0; n < nb; ++n)
        for (int64_t m = 0; m < Mg; ++m) {
          const T* plane = dy + ((n0 + n) * g.M + gi * Mg + m) * Pout;
          std::copy(plane, plane + Pout, dyc + m * cols + n * Pout);
        }
      if (dw) {  // dW_g[Mg, K] += dY[Mg, cols] @ col^T
        chunk_columns(g, l, x, n0, nb, gi, col);
        conv_gemm<T>(false, true, Mg, K, cols, dyc, col, n0 > 0 ? T(1) : T(0), dw + gi * Mg * K);
      }
      if (dx) {  // dcol[K, cols] = W_g^T @ dY, then back onto each image
        conv_gemm<T>(true, false, K, cols, Mg, w + gi * Mg * K, dyc, T(0), col);
        for (int64_t n = 0; n < nb; ++n) {
          T* dimg = dx + ((n0 + n) * g.C + gi * Cg) * Pin;
          if (l.pointwise())
            for (int64_t r = 0; r < K; ++r) {
              const T* src = col + r * cols + n * Pout;
              std::copy(src, src + Pout, dimg + r * Pin);
            }
          else
            col2im_add(l, Cg, col + n * Pout, dimg, cols);
        }
      }
    }
  }
}

/// dx[N, C, Pin] and dw[M, C/groups, taps] (either may be null) from dy[N, M, Pout].
template <class T>
void backward(const ConvGeometry& g, const T* x, const T* w, const T* dy, T* dx, T* dw) {
  const Lowering l = lowering(g, false);
  const int64_t Pin = l.img_size(), Pout = l.col_size(), taps = l.taps();
  if (dx) std::fill(dx, dx + g.N * g.C * Pin, T(0));
  if (dw) std::fill(dw, dw + g.M * (g.C / g.groups) * taps, T(0));
  if (is_depthwise(g)) {
    // By input channel: the output channels of one input channel share its
    // dx plane, and each of them owns its dw taps, so chunks never collide.
    const int64_t mult = g.M / g.C;
    rt::parallel_for(g.C, [&](int64_t c) {
      for (int64_t j = 0; j < mult; ++j) {
        const int64_t m = c * mult + j;
        for (int64_t n = 0; n < g.N; ++n)
          depthwise_plane_grad(l, x + (n * g.C + c) * Pin, w + m * taps, dy + (n * g.M + m) * Pout,
                               dx ? dx + (n * g.C + c) * Pin : nullptr, dw ? dw + m * taps : nullptr);
      }
    });
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (dw && small_conv_fits(g)) {
      small_conv_filter_grad(g, x, dy, dw);
      dw = nullptr;  // only Input@GRAD left for the lowering below
      if (!dx) return;
    }
  }
  const int64_t Cg = g.C / g.groups, Mg = g.M / g.groups, K = Cg * taps;
  if (batched_columns(g.N, Pout, K)) return backward_batched(g, l, x, w, dy, dx, dw);
  const bool pointwise = l.pointwise();
  T* col = pointwise ? nullptr : conv_buffer<T>(ConvBuf::kCol, K * Pout);
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const T* img = x + (n * g.C + gi * Cg) * Pin;
      const T* g_out = dy + (n * g.M + gi * Mg) * Pout;
      const T* w_g = w + gi * Mg * K;
      if (dw) {  // dW_g[Mg, K] += dY[Mg, Pout] @ col^T
        if (!pointwise) im2col(l, Cg, img, col);
        conv_gemm<T>(false, true, Mg, K, Pout, g_out, pointwise ? img : col, n > 0 ? T(1) : T(0),
                     dw + gi * Mg * K);
      }
      if (dx) {  // dcol[K, Pout] = W_g^T @ dY, then back onto the image
        T* dimg = dx + (n * g.C + gi * Cg) * Pin;
        if (pointwise) {
          conv_gemm<T>(true, false, Cg, Pin, Mg, w_g, g_out, T(0), dimg);
        } else {
          conv_gemm<T>(true, false, K, Pout, Mg, w_g, g_out, T(0), col);
          col2im_add(l, Cg, col, dimg);
        }
      }
    }
}

void check_operands(const char* op, const Tensor& input, const Tensor& filter) {
  require_init(op, "Input", input);
  require_init(op, "Filter", filter);
  require_same_dtype(op, "Input", input, "Filter", filter);
}

ConvGeometry geometry(const char* op, int nsp, const Tensor& input, const Tensor& filter, const ConvAttrs& a) {
  check_operands(op, input, filter);
  ConvGeometry g;
  require_rule(op, shapes::conv_shape(input.shape(), filter.shape(), a, nsp, g));
  return g;
}

void run_forward(const char* op, int nsp, const Tensor& input, const Tensor& filter, const Tensor* bias,
                 const Tensor* residual, Tensor& output, const ConvAttrs& a) {
  const ConvGeometry g = geometry(op, nsp, input, filter, a);
  if (bias) {
    require_init(op, "Bias", *bias);
    require_same_dtype(op, "Input", input, "Bias", *bias);
    if (bias->numel() != g.M)
      rt::fail(fmt::format("{}: Bias has shape {} but the output has {} channels", op, bias->shape().str(), g.M));
  }
  if (residual) {
    require_init(op, "ResidualData", *residual);
    require_same_dtype(op, "Input", input, "ResidualData", *residual);
    if (residual->shape() != g.out_shape)
      rt::fail(fmt::format("{}: ResidualData has shape {} but Output has {}", op, residual->shape().str(),
                           g.out_shape.str()));
  }
  OutBuf buf(&output, Slot::kOut0, aliases(&output, {&input, &filter, bias, residual}));
  Tensor& out = buf.get();
  out.resize(g.out_shape, input.dtype());
  if (out.numel() != 0) {
    visit_float(op, "Input", input.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* x = channels_first<T>(input, g.channel_last, g.C, ConvBuf::kInput);
      T* y = g.channel_last ? conv_buffer<T>(ConvBuf::kOutput, out.numel()) : out.data<T>();
      // With a residual, the activation comes after it (a fused conv's order):
      // the planes get the bias only, and the activation a pass of its own.
      const ConvEpilogue<T> ep(op, bias, a);
      forward<T>(g, x, filter.data<T>(), y, residual ? ep.bias_only() : ep);
      finish_conv_output(g, y, out);
      if (residual) {
        T* po = out.data<T>();
        for (int64_t i = 0; i < out.numel(); ++i) po[i] += residual->data<T>()[i];
        if (ep.has_activation()) ep.activate(po, out.numel());
      }
    });
  }
  buf.finish();
}

void run_backward(const char* op, int nsp, const Tensor& input, const Tensor& filter, const Tensor& output_grad,
                  Tensor* input_grad, Tensor* filter_grad, const ConvAttrs& a) {
  conv_backward_driver(op, geometry(op, nsp, input, filter, a), input, filter, output_grad, input_grad, filter_grad,
                       [](const ConvGeometry& g, const auto* x, const auto* w, const auto* dy, auto* dx, auto* dw) {
                         backward(g, x, w, dy, dx, dw);
                       });
}

}  // namespace

void conv2d(const Tensor& input, const Tensor& filter, const Tensor* bias, const Tensor* residual_data,
            Tensor& output, const ConvAttrs& attrs) {
  run_forward("conv2d", 2, input, filter, bias, residual_data, output, attrs);
}
void conv2d_grad(const Tensor& input, const Tensor& filter, const Tensor& output_grad, Tensor* input_grad,
                 Tensor* filter_grad, const ConvAttrs& attrs) {
  run_backward("conv2d_grad", 2, input, filter, output_grad, input_grad, filter_grad, attrs);
}
void depthwise_conv2d(const Tensor& input, const Tensor& filter, const Tensor* bias, const Tensor* residual_data,
                      Tensor& output, const ConvAttrs& attrs) {
  run_forward("depthwise_conv2d", 2, input, filter, bias, residual_data, output, attrs);
}
void depthwise_conv2d_grad(const Tensor& input, const Tensor& filter, const Tensor& output_grad,
                           Tensor* input_grad, Tensor* filter_grad, const ConvAttrs& attrs) {
  run_backward("depthwise_conv2d_grad", 2, input, filter, output_grad, input_grad, filter_grad, attrs);
}
void conv3d(const Tensor& input, const Tensor& filter, const Tensor* bias, const Tensor* residual_data,
            Tensor& output, const ConvAttrs& attrs) {
  run_forward("conv3d", 3, input, filter, bias, residual_data, output, attrs);
}
void conv3d_grad(const Tensor& input, const Tensor& filter, const Tensor& output_grad, Tensor* input_grad,
                 Tensor* filter_grad, const ConvAttrs& attrs) {
  run_backward("conv3d_grad", 3, input, filter, output_grad, input_grad, filter_grad, attrs);
}

}  // namespace fluidc::kernels
