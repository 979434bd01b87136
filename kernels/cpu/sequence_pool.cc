// kernels/cpu/sequence_pool.cc - sequence_pool (SUM/AVERAGE/SQRT/MAX/LAST/FIRST) and its gradient over LoD rows.
#include <cmath>

#include "kernels/cpu/kernel_util.h"
#include "kernels/sequence.h"
#include "kernels/shapes/sequence.h"
#include "runtime/lod.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

enum class Pool { kSum, kAverage, kSqrt, kMax, kLast, kFirst };

Pool pool_type(const char* op, const std::string& name) {
  if (name == "SUM") return Pool::kSum;
  if (name == "AVERAGE") return Pool::kAverage;
  if (name == "SQRT") return Pool::kSqrt;
  if (name == "MAX") return Pool::kMax;
  if (name == "LAST") return Pool::kLast;
  if (name == "FIRST") return Pool::kFirst;
  rt::fail(fmt::format("{}: unknown pooltype '{}' (AVERAGE, SUM, SQRT, MAX, LAST or FIRST)", op, name));
}

// X's LoD without its last level: what Out keeps (none for a 1-level X).
rt::Lod outer_levels(const Tensor& x) {
  const rt::Lod& lod = *x.lod();
  return rt::Lod(lod.begin(), lod.end() - 1);
}

}  // namespace

void sequence_pool(const Tensor& x, Tensor& out, Tensor* max_index, const SequencePoolAttrs& a) {
  require_init("sequence_pool", "X", x);
  const Pool type = pool_type("sequence_pool", a.pooltype);
  const std::vector<uint64_t>& lod = rt::last_lod_level(x, "sequence_pool", "X");
  const int64_t n = static_cast<int64_t>(lod.size()) - 1, width = x.dim(0) ? x.numel() / x.dim(0) : 0;
  Shape s;
  require_rule("sequence_pool", shapes::sequence_pool_shape(x.shape(), n, s));
  rt::Lod keep = outer_levels(x);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x}));
  Tensor& o = buf.get();
  o.resize(s, x.dtype());
  int32_t* idx = nullptr;
  if (type == Pool::kMax && max_index) {
    if (max_index == &x) rt::fail("sequence_pool: MaxIndex may not be X");
    max_index->resize(s, DType::kInt32);
    idx = max_index->data<int32_t>();
  }
  visit_float("sequence_pool", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xd = x.data<T>();
    T* od = o.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t b = static_cast<int64_t>(lod[i]), e = static_cast<int64_t>(lod[i + 1]), len = e - b;
      T* row = od + i * width;
      if (len == 0) {  // Paddle: an empty sequence's row is pad_value (and MaxIndex -1)
        for (int64_t j = 0; j < width; ++j) row[j] = static_cast<T>(a.pad_value);
        if (idx)
          for (int64_t j = 0; j < width; ++j) idx[i * width + j] = -1;
        continue;
      }
      switch (type) {
        case Pool::kSum: case Pool::kAverage: case Pool::kSqrt: {
          const double div = type == Pool::kSum ? 1.0 : type == Pool::kAverage ? double(len) : std::sqrt(double(len));
          for (int64_t j = 0; j < width; ++j) {
            double acc = 0;
            for (int64_t r = b; r < e; ++r) acc += xd[r * width + j];
            row[j] = static_cast<T>(acc / div);
          }
          break;
        }
        case Pool::kMax:
          for (int64_t j = 0; j < width; ++j) {
            int64_t best = b;  // the first of equal maxima, as Paddle keeps it
            for (int64_t r = b + 1; r < e; ++r)
              if (xd[r * width + j] > xd[best * width + j]) best = r;
            row[j] = xd[best * width + j];
            if (idx) idx[i * width + j] = static_cast<int32_t>(best);
          }
          break;
        case Pool::kLast: case Pool::kFirst: {
          const T* src = xd + (type == Pool::kLast ? e - 1 : b) * width;
          for (int64_t j = 0; j < width; ++j) row[j] = src[j];
          break;
        }
      }
    }
  });
  buf.finish();
  if (keep.empty()) out.clear_lod();
  else out.mutable_lod() = std::move(keep);
}

void sequence_pool_grad(const Tensor& x, const Tensor* max_index, const Tensor& out_grad, Tensor* x_grad,
                        const SequencePoolAttrs& a) {
  if (!x_grad) return;
  require_init("sequence_pool_grad", "Out@GRAD", out_grad);
  const Pool type = pool_type("sequence_pool_grad", a.pooltype);
  const std::vector<uint64_t>& lod = rt::last_lod_level(x, "sequence_pool_grad", "X");
  const int64_t n = static_cast<int64_t>(lod.size()) - 1, width = x.dim(0) ? x.numel() / x.dim(0) : 0;
  if (out_grad.numel() != n * width)
    rt::fail(fmt::format("sequence_pool_grad: Out@GRAD {} does not match {} sequences of X {}",
                         out_grad.shape().str(), n, x.shape().str()));
  if (type == Pool::kMax) {
    if (!max_index || !max_index->initialized() || max_index->dtype() != DType::kInt32 ||
        max_index->numel() != n * width)
      rt::fail("sequence_pool_grad: MAX pooling needs the forward op's MaxIndex (int32, one per output)");
  }
  OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&x, &out_grad, max_index}));
  Tensor& g = buf.get();
  g.resize(x.shape(), out_grad.dtype());
  visit_float("sequence_pool_grad", "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* dy = out_grad.data<T>();
    T* gd = g.data<T>();
    std::fill(gd, gd + g.numel(), T(0));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t b = static_cast<int64_t>(lod[i]), e = static_cast<int64_t>(lod[i + 1]), len = e - b;
      if (len == 0) continue;
      const T* drow = dy + i * width;
      switch (type) {
        case Pool::kSum: case Pool::kAverage: case Pool::kSqrt: {
          const T scale = type == Pool::kSum ? T(1) : type == Pool::kAverage ? T(1) / T(len) : T(1) / std::sqrt(T(len));
          for (int64_t r = b; r < e; ++r)
            for (int64_t j = 0; j < width; ++j) gd[r * width + j] = drow[j] * scale;
          break;
        }
        case Pool::kMax: {
          const int32_t* idx = max_index->data<int32_t>() + i * width;
          for (int64_t j = 0; j < width; ++j) {
            if (idx[j] < b || idx[j] >= e)
              rt::fail(fmt::format("sequence_pool_grad: MaxIndex {} lies outside sequence {} (rows {}..{})", idx[j],
                                   i, b, e - 1));
            gd[idx[j] * width + j] += drow[j];
          }
          break;
        }
        case Pool::kLast: case Pool::kFirst: {
          T* dst = gd + (type == Pool::kLast ? e - 1 : b) * width;
          for (int64_t j = 0; j < width; ++j) dst[j] = drow[j];
          break;
        }
      }
    }
  });
  buf.finish();
}

}  // namespace fluidc::kernels
