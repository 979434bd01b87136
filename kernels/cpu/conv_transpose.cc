// kernels/cpu/conv_transpose.cc - conv2d_transpose, depthwise_conv2d_transpose, conv3d_transpose and their gradients: GEMM + col2im.
//
// A transposed convolution is the input gradient of a convolution run
// forward: its Output is the image the filter slides over and its Input the
// positions (shapes::ConvGeometry, lowering(g, true)). So the forward pass is
// GEMM + col2im and the gradients are im2col + GEMM.
#include "kernels/conv.h"

#include "kernels/cpu/conv_epilogue.h"
#include "kernels/cpu/conv_layout.h"
#include "kernels/cpu/conv_lowering.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/conv.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

using shapes::ConvGeometry;

/// y[N, M, Pout] from x[N, C, Pin] and w[C, M/groups, taps], channels first,
/// each group's planes finished by `ep` (bias, activation) as soon as they are
/// complete, while the last of them are still in cache.
template <class T>
void forward(const ConvGeometry& g, const T* x, const T* w, T* y, const ConvEpilogue<T>& ep) {
  const Lowering l = lowering(g, true);
  const int64_t Pin = l.col_size(), Pout = l.img_size();
  const int64_t Cg = g.C / g.groups, Mg = g.M / g.groups, K = Mg * l.taps();
  // A 1x1 window with stride 1 writes every output pixel exactly once.
  const bool pointwise = l.pointwise() && Pin == Pout;
  const bool tiles = !pointwise && tiles_exactly(l);  // col2im writes every output once
  T* col = pointwise ? nullptr : conv_buffer<T>(ConvBuf::kCol, K * Pin);
  if (!pointwise && !tiles) std::fill(y, y + g.N * g.M * Pout, T(0));
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const T* img = x + (n * g.C + gi * Cg) * Pin;
      const T* w_g = w + gi * Cg * K;
      T* out = y + (n * g.M + gi * Mg) * Pout;
      if (pointwise) {
        conv_gemm<T>(true, false, Mg, Pin, Cg, w_g, img, T(0), out);
      } else {  // col[K, Pin] = W_g^T @ X, scattered onto the output
        conv_gemm<T>(true, false, K, Pin, Cg, w_g, img, T(0), col);
        if (tiles)
          col2im_tiles(l, Mg, col, out);
        else
          col2im_add(l, Mg, col, out);
      }
      if (!ep.empty()) ep.planes(out, gi * Mg, Mg, Pout);
    }
}

/// dx[N, C, Pin] and dw[C, M/groups, taps] (either may be null) from dy[N, M, Pout].
template <class T>
void backward(const ConvGeometry& g, const T* x, const T* w, const T* dy, T* dx, T* dw) {
  const Lowering l = lowering(g, true);
  const int64_t Pin = l.col_size(), Pout = l.img_size();
  const int64_t Cg = g.C / g.groups, Mg = g.M / g.groups, K = Mg * l.taps();
  const bool pointwise = l.pointwise() && Pin == Pout;
  T* col = pointwise ? nullptr : conv_buffer<T>(ConvBuf::kCol, K * Pin);
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const T* g_out = dy + (n * g.M + gi * Mg) * Pout;
      if (!pointwise) im2col(l, Mg, g_out, col);
      const T* cols = pointwise ? g_out : col;
      if (dx)  // dX[Cg, Pin] = W_g[Cg, K] @ col
        conv_gemm<T>(false, false, Cg, Pin, K, w + gi * Cg * K, cols, T(0), dx + (n * g.C + gi * Cg) * Pin);
      if (dw)  // dW_g[Cg, K] += X[Cg, Pin] @ col^T
        conv_gemm<T>(false, true, Cg, K, Pin, x + (n * g.C + gi * Cg) * Pin, cols, n > 0 ? T(1) : T(0),
                     dw + gi * Cg * K);
    }
}

ConvGeometry geometry(const char* op, int nsp, const Tensor& input, const Tensor& filter,
                      const ConvTransposeAttrs& a) {
  require_init(op, "Input", input);
  require_init(op, "Filter", filter);
  require_same_dtype(op, "Input", input, "Filter", filter);
  ConvGeometry g;
  require_rule(op, shapes::conv_transpose_shape(input.shape(), filter.shape(), a, nsp, g));
  return g;
}

void run_forward(const char* op, int nsp, const Tensor& input, const Tensor& filter, const Tensor* bias,
                 Tensor& output, const ConvTransposeAttrs& a) {
  const ConvGeometry g = geometry(op, nsp, input, filter, a);
  if (bias) {
    require_init(op, "Bias", *bias);
    require_same_dtype(op, "Input", input, "Bias", *bias);
    if (bias->numel() != g.M)
      rt::fail(fmt::format("{}: Bias has shape {} but the output has {} channels", op, bias->shape().str(), g.M));
  }
  OutBuf buf(&output, Slot::kOut0, aliases(&output, {&input, &filter, bias}));
  Tensor& out = buf.get();
  out.resize(g.out_shape, input.dtype());
  visit_float(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (out.numel() == 0) return;
    if (input.numel() == 0) {
      out.zero();
      return;
    }
    const T* x = channels_first<T>(input, g.channel_last, g.C, ConvBuf::kInput);
    T* y = g.channel_last ? conv_buffer<T>(ConvBuf::kOutput, out.numel()) : out.data<T>();
    forward<T>(g, x, filter.data<T>(), y, ConvEpilogue<T>(op, bias, a));
    finish_conv_output(g, y, out);
  });
  buf.finish();
}

void run_backward(const char* op, int nsp, const Tensor& input, const Tensor& filter, const Tensor& output_grad,
                  Tensor* input_grad, Tensor* filter_grad, const ConvTransposeAttrs& a) {
  conv_backward_driver(op, geometry(op, nsp, input, filter, a), input, filter, output_grad, input_grad, filter_grad,
                       [](const ConvGeometry& g, const auto* x, const auto* w, const auto* dy, auto* dx, auto* dw) {
                         backward(g, x, w, dy, dx, dw);
                       });
}

}  // namespace

void conv2d_transpose(const Tensor& input, const Tensor& filter, const Tensor* bias, Tensor& output,
                      const ConvTransposeAttrs& attrs) {
  run_forward("conv2d_transpose", 2, input, filter, bias, output, attrs);
}
void conv2d_transpose_grad(const Tensor& input, const Tensor& filter, const Tensor*, const Tensor& output_grad,
                           Tensor* input_grad, Tensor* filter_grad, const ConvTransposeAttrs& attrs) {
  run_backward("conv2d_transpose_grad", 2, input, filter, output_grad, input_grad, filter_grad, attrs);
}
void depthwise_conv2d_transpose(const Tensor& input, const Tensor& filter, const Tensor* bias, Tensor& output,
                                const ConvTransposeAttrs& attrs) {
  run_forward("depthwise_conv2d_transpose", 2, input, filter, bias, output, attrs);
}
void depthwise_conv2d_transpose_grad(const Tensor& input, const Tensor& filter, const Tensor*,
                                     const Tensor& output_grad, Tensor* input_grad, Tensor* filter_grad,
                                     const ConvTransposeAttrs& attrs) {
  run_backward("depthwise_conv2d_transpose_grad", 2, input, filter, output_grad, input_grad, filter_grad, attrs);
}

void conv3d_transpose(const Tensor& input, const Tensor& filter, const Tensor* bias, Tensor& output,
                      const ConvTransposeAttrs& attrs) {
  run_forward("conv3d_transpose", 3, input, filter, bias, output, attrs);
}
void conv3d_transpose_grad(const Tensor& input, const Tensor& filter, const Tensor*, const Tensor& output_grad,
                           Tensor* input_grad, Tensor* filter_grad, const ConvTransposeAttrs& attrs) {
  run_backward("conv3d_transpose_grad", 3, input, filter, output_grad, input_grad, filter_grad, attrs);
}

}  // namespace fluidc::kernels
