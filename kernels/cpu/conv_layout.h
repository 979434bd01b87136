// kernels/cpu/conv_layout.h - private: the convolution kernels' scratch buffers and channel-last <-> channel-first copies.
//
// The convolutions compute in channels-first order; an NHWC/NDHWC call
// copies its operands into scratch tensors in that order and its results
// back. The buffers are per thread and grow-only, like detail::scratch.
#pragma once

#include <cstdint>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/conv.h"

namespace fluidc::kernels::detail {

enum class ConvBuf : int { kCol = 0, kInput, kOutput, kOutGrad, kInputGrad, kPlaneIn, kPlaneOut, kBatchProduct,
                           kImplicitPlanes, kTapOffsets, kImplicitTile, kWinogradInput, kWinogradProduct, kWeights,
                           kCount };

inline Tensor& conv_scratch(ConvBuf b) {
  thread_local Tensor bufs[static_cast<int>(ConvBuf::kCount)];
  return bufs[static_cast<int>(b)];
}

/// A scratch buffer of at least n elements of T.
template <class T>
T* conv_buffer(ConvBuf b, int64_t n) {
  Tensor& t = conv_scratch(b);
  t.resize(Shape{n}, DTypeOf<T>::value);
  return t.data<T>();
}

/// dst[n][c][p] = src[n][p][c] (channel-last to channel-first), or the
/// reverse with to_first = false.
template <class T>
void shuffle_channels(const T* src, T* dst, int64_t N, int64_t P, int64_t C, bool to_first) {
  for (int64_t n = 0; n < N; ++n) {
    const T* s = src + n * P * C;
    T* d = dst + n * P * C;
    if (to_first)
      for (int64_t p = 0; p < P; ++p)
        for (int64_t c = 0; c < C; ++c) d[c * P + p] = s[p * C + c];
    else
      for (int64_t c = 0; c < C; ++c)
        for (int64_t p = 0; p < P; ++p) d[p * C + c] = s[c * P + p];
  }
}

/// A channel-first view of a tensor in the op's layout: the tensor's own data
/// when it already is channels first, else a scratch copy.
template <class T>
const T* channels_first(const Tensor& t, bool channel_last, int64_t channels, ConvBuf b) {
  if (!channel_last) return t.data<T>();
  if (t.numel() == 0) return t.data<T>();
  const int64_t N = t.dim(0), P = t.numel() / (N * channels);
  T* buf = conv_buffer<T>(b, t.numel());
  shuffle_channels(t.data<T>(), buf, N, P, channels, true);
  return buf;
}

/// The common end of the convolution forwards: y (channel-first, N x M
/// channels x P positions, bias and activation applied by the kernel's
/// ConvEpilogue) is copied into `out` when the op's layout is channel-last
/// (y is then a scratch buffer).
template <class T>
void finish_conv_output(const shapes::ConvGeometry& g, const T* y, Tensor& out) {
  if (g.channel_last) shuffle_channels(y, out.data<T>(), g.N, out.numel() / (g.N * g.M), g.M, false);
}

/// The shared driver of every convolution gradient: checks Output@GRAD
/// against geometry `g`, sizes the wanted gradients (aliases go through
/// scratch), brings channel-last operands into channel-first order, calls
/// `lowered(g, x, w, dy, dx, dw)` (a generic lambda over the element type;
/// dx or dw null when not wanted) and copies dx back to channel-last.
template <class Lowered>
void conv_backward_driver(const char* op, const shapes::ConvGeometry& g, const Tensor& input, const Tensor& filter,
                          const Tensor& output_grad, Tensor* input_grad, Tensor* filter_grad, Lowered lowered) {
  require_init(op, "Output@GRAD", output_grad);
  require_same_dtype(op, "Input", input, "Output@GRAD", output_grad);
  if (output_grad.shape() != g.out_shape)
    rt::fail(fmt::format("{}: Output@GRAD has shape {} but Output has {}", op, output_grad.shape().str(),
                         g.out_shape.str()));
  if (input_grad && input_grad == filter_grad)
    rt::fail(fmt::format("{}: Input@GRAD and Filter@GRAD are the same tensor", op));
  OutBuf bx(input_grad, Slot::kOut0, aliases(input_grad, {&input, &filter, &output_grad}));
  OutBuf bw(filter_grad, Slot::kOut1, aliases(filter_grad, {&input, &filter, &output_grad, input_grad}));
  if (bx.wanted()) bx.get().resize(input.shape(), input.dtype());
  if (bw.wanted()) bw.get().resize(filter.shape(), filter.dtype());
  visit_float(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* dw = bw.wanted() ? bw.get().data<T>() : nullptr;
    if (input.numel() == 0 || output_grad.numel() == 0) {
      if (bx.wanted()) bx.get().zero();
      if (dw) bw.get().zero();
      return;
    }
    const T* x = channels_first<T>(input, g.channel_last, g.C, ConvBuf::kInput);
    const T* dy = channels_first<T>(output_grad, g.channel_last, g.M, ConvBuf::kOutGrad);
    T* dx = nullptr;
    if (bx.wanted()) dx = g.channel_last ? conv_buffer<T>(ConvBuf::kInputGrad, input.numel()) : bx.get().data<T>();
    lowered(g, x, filter.data<T>(), dy, dx, dw);
    if (dx && g.channel_last)
      shuffle_channels(dx, bx.get().data<T>(), g.N, input.numel() / (g.N * g.C), g.C, false);
  });
  bx.finish();
  bw.finish();
}

}  // namespace fluidc::kernels::detail
