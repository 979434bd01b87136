// kernels/cpu/sequence_misc.cc - sequence_mask (lengths to a 0/1 mask) and lookup_table v1 (Fluid's embedding) with its gradient.
#include <cstring>

#include "kernels/cpu/index_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/sequence.h"
#include "kernels/shapes/sequence.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

// Integer values of `t` as int64 (int32 or int64 tensors).
int64_t int_at(const char* op, const char* role, const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kInt64: return t.data<int64_t>()[i];
    case DType::kInt32: return t.data<int32_t>()[i];
    default: fail_dtype(op, role, t.dtype());
  }
}

// The id that reads as zeros, or a value no id has.
int64_t padding_id(const LookupTableAttrs& a) { return a.padding_idx == -1 ? INT64_MIN : a.padding_idx; }

}  // namespace

void sequence_mask(const Tensor& x, const Tensor* max_len_tensor, Tensor& y, const SequenceMaskAttrs& a) {
  require_init("sequence_mask", "X", x);
  const int64_t n = x.numel();
  int64_t maxlen = a.maxlen;
  if (max_len_tensor) {
    require_init("sequence_mask", "MaxLenTensor", *max_len_tensor);
    if (max_len_tensor->numel() != 1) rt::fail("sequence_mask: MaxLenTensor must hold one value");
    maxlen = int_at("sequence_mask", "MaxLenTensor", *max_len_tensor, 0);
    if (maxlen < 0) rt::fail(fmt::format("sequence_mask: MaxLenTensor is negative ({})", maxlen));
  }
  if (maxlen < 0) {  // Paddle: the largest length
    maxlen = 0;
    for (int64_t i = 0; i < n; ++i) maxlen = std::max(maxlen, int_at("sequence_mask", "X", x, i));
  }
  if (!rt::dtype_is_valid(a.out_dtype)) rt::fail(fmt::format("sequence_mask: unknown out_dtype {}", a.out_dtype));
  Shape s;
  require_rule("sequence_mask", shapes::sequence_mask_shape(x.shape(), maxlen, s));
  Tensor& tmp = scratch(Slot::kTmp0);
  tmp.resize(Shape{n}, DType::kInt64);  // the lengths, read before Y (which may alias X) is written
  for (int64_t i = 0; i < n; ++i) tmp.data<int64_t>()[i] = int_at("sequence_mask", "X", x, i);
  const int64_t* len = tmp.data<int64_t>();
  y.resize(s, static_cast<DType>(a.out_dtype));
  visit_all("sequence_mask", "Y", y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* yd = y.data<T>();
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < maxlen; ++j) yd[i * maxlen + j] = static_cast<T>(j < len[i]);
  });
}

void lookup_table(const Tensor& ids, const Tensor& w, Tensor& out, const LookupTableAttrs& a) {
  require_init("lookup_table", "Ids", ids);
  require_init("lookup_table", "W", w);
  Shape s;
  require_rule("lookup_table", shapes::lookup_table_shape(ids.shape(), w.shape(), s));
  const int64_t rows = w.dim(0), n = ids.numel(), pad = padding_id(a);
  if (ids.dtype() != DType::kInt64 && ids.dtype() != DType::kInt32) fail_dtype("lookup_table", "Ids", ids.dtype());
  Tensor& idx = scratch(Slot::kTmp1);  // ids read before Out (which may alias them) is written
  idx.resize(Shape{n}, DType::kInt64);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t id = int_at("lookup_table", "Ids", ids, i);
    if ((id < 0 || id >= rows) && id != pad)
      rt::fail(fmt::format("lookup_table: Ids[{}] = {} is outside W's {} rows", i, id, rows));
    idx.data<int64_t>()[i] = id;
  }
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&w}));
  Tensor& o = buf.get();
  o.resize(s, w.dtype());
  copy_embedding_rows(w, idx.data<int64_t>(), n, pad, o);
  buf.finish();
}

void lookup_table_grad(const Tensor& ids, const Tensor& w, const Tensor& out_grad, Tensor* w_grad,
                       const LookupTableAttrs& a) {
  if (!w_grad) return;
  require_init("lookup_table_grad", "Ids", ids);
  require_init("lookup_table_grad", "Out@GRAD", out_grad);
  if (w.rank() != 2) rt::fail(fmt::format("lookup_table_grad: W must be 2-D, got {}", w.shape().str()));
  const int64_t rows = w.dim(0), d = w.dim(1), n = ids.numel(), pad = padding_id(a);
  if (out_grad.numel() != n * d)
    rt::fail(fmt::format("lookup_table_grad: Out@GRAD {} does not match Ids {} and W {}", out_grad.shape().str(),
                         ids.shape().str(), w.shape().str()));
  if (w_grad == &out_grad || w_grad == &ids) rt::fail("lookup_table_grad: W@GRAD may not alias Ids or Out@GRAD");
  w_grad->resize(w.shape(), out_grad.dtype());
  visit_float("lookup_table_grad", "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* g = w_grad->data<T>();
    const T* dy = out_grad.data<T>();
    std::fill(g, g + rows * d, T(0));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t id = int_at("lookup_table_grad", "Ids", ids, i);
      // As lookup_table_v2: padding rows get no dense gradient; is_sparse's does (Paddle's sparse kernel).
      if (id == pad && (!a.is_sparse || pad < 0 || pad >= rows)) continue;
      if (id < 0 || id >= rows) rt::fail(fmt::format("lookup_table_grad: Ids[{}] = {} is outside W's {} rows", i, id, rows));
      for (int64_t j = 0; j < d; ++j) g[id * d + j] += dy[i * d + j];
    }
  });
}

}  // namespace fluidc::kernels
