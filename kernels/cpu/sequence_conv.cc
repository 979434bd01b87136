// kernels/cpu/sequence_conv.cc - sequence_conv and its gradient: a window of rows within each sequence times Filter.
#include "kernels/cpu/kernel_util.h"
#include "kernels/sequence.h"
#include "kernels/shapes/sequence.h"
#include "runtime/lod.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

// Calls f(t, k, src) for every row t and window slot k whose source row src
// lies inside t's sequence (rows outside read as zeros and are skipped).
template <class F>
void for_each_window(const std::vector<uint64_t>& lod, const SequenceConvAttrs& a, F&& f) {
  for (size_t i = 0; i + 1 < lod.size(); ++i) {
    const int64_t b = static_cast<int64_t>(lod[i]), e = static_cast<int64_t>(lod[i + 1]);
    for (int64_t t = b; t < e; ++t)
      for (int k = 0; k < a.contextLength; ++k) {
        const int64_t src = t + a.contextStart + k;
        if (src >= b && src < e) f(t, k, src);
      }
  }
}

void check(const char* op, const Tensor& x, const Tensor* padding_data, const Tensor& filter,
           const SequenceConvAttrs& a, Shape& out) {
  require_init(op, "X", x);
  require_init(op, "Filter", filter);
  require_same_dtype(op, "X", x, "Filter", filter);
  require_rule(op, shapes::sequence_conv_shape(x.shape(), filter.shape(), a, out));
  // Trainable padding rows are not implemented: refuse rather than read zeros.
  if (a.paddingTrainable || padding_data)
    rt::fail(fmt::format("{}: paddingTrainable (PaddingData) is not supported by fluidc yet", op));
}

}  // namespace

void sequence_conv(const Tensor& x, const Tensor* padding_data, const Tensor& filter, Tensor& out,
                   const SequenceConvAttrs& a) {
  Shape s;
  check("sequence_conv", x, padding_data, filter, a, s);
  const std::vector<uint64_t>& lod = rt::last_lod_level(x, "sequence_conv", "X");
  const int64_t d = x.dim(1), m = filter.dim(1);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x, &filter}));
  Tensor& o = buf.get();
  o.resize(s, x.dtype());
  visit_float("sequence_conv", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xd = x.data<T>();
    const T* fd = filter.data<T>();
    T* od = o.data<T>();
    std::fill(od, od + o.numel(), T(0));
    for_each_window(lod, a, [&](int64_t t, int k, int64_t src) {
      T* orow = od + t * m;
      for (int64_t c = 0; c < d; ++c) {
        const T v = xd[src * d + c];
        const T* frow = fd + (k * d + c) * m;
        for (int64_t j = 0; j < m; ++j) orow[j] += v * frow[j];
      }
    });
  });
  buf.finish();
  out.share_lod(x);
}

void sequence_conv_grad(const Tensor& x, const Tensor* padding_data, const Tensor& filter, const Tensor& out_grad,
                        Tensor* x_grad, Tensor* padding_data_grad, Tensor* filter_grad, const SequenceConvAttrs& a) {
  Shape s;
  check("sequence_conv_grad", x, padding_data, filter, a, s);
  require_init("sequence_conv_grad", "Out@GRAD", out_grad);
  if (out_grad.shape() != s)
    rt::fail(fmt::format("sequence_conv_grad: Out@GRAD {} must be {}", out_grad.shape().str(), s.str()));
  (void)padding_data_grad;  // never bound: PaddingData is refused above
  const std::vector<uint64_t>& lod = rt::last_lod_level(x, "sequence_conv_grad", "X");
  const int64_t d = x.dim(1), m = filter.dim(1);
  OutBuf xb(x_grad, Slot::kOut0, aliases(x_grad, {&x, &filter, &out_grad}));
  OutBuf fb(filter_grad, Slot::kOut1, aliases(filter_grad, {&x, &filter, &out_grad}));
  visit_float("sequence_conv_grad", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xd = x.data<T>();
    const T* fd = filter.data<T>();
    const T* dy = out_grad.data<T>();
    T* gx = nullptr;
    T* gf = nullptr;
    if (xb.wanted()) {
      xb.get().resize(x.shape(), x.dtype());
      gx = xb.get().data<T>();
      std::fill(gx, gx + x.numel(), T(0));
    }
    if (fb.wanted()) {
      fb.get().resize(filter.shape(), filter.dtype());
      gf = fb.get().data<T>();
      std::fill(gf, gf + filter.numel(), T(0));
    }
    for_each_window(lod, a, [&](int64_t t, int k, int64_t src) {
      const T* drow = dy + t * m;
      for (int64_t c = 0; c < d; ++c) {
        const T* frow = fd + (k * d + c) * m;
        if (gx) {
          T acc = 0;
          for (int64_t j = 0; j < m; ++j) acc += drow[j] * frow[j];
          gx[src * d + c] += acc;
        }
        if (gf) {
          const T v = xd[src * d + c];
          T* grow = gf + (k * d + c) * m;
          for (int64_t j = 0; j < m; ++j) grow[j] += v * drow[j];
        }
      }
    });
  });
  xb.finish();
  fb.finish();
}

}  // namespace fluidc::kernels
