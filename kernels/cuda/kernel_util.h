// kernels/cuda/kernel_util.h - what the CUDA op kernels share: argument checks, the stream, strides for broadcasting.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "kernels/cuda/device.h"
#include "kernels/cuda/ops.h"
#include "runtime/error.h"

namespace fluidc::kernels::cuda::util {

inline cudaStream_t stream() { return cu::current().stream; }

/// The tensor holds a device value (it was computed, fed or uploaded).
inline void require_dev(const char* op, const char* role, const DTensor& t) {
  if (!t.dinit()) rt::fail(std::string(op) + ": " + role + " has no value on the device");
}

/// The CUDA kernels compute in float32 only (for now).
inline void require_f32(const char* op, const char* role, const DTensor& t) {
  require_dev(op, role, t);
  if (t.ddtype() != rt::DType::kFP32)
    rt::fail(std::string(op) + ": " + role + " is " + rt::dtype_name(t.ddtype()) +
             "; the CUDA target computes float32 only (build for the CPU instead)");
}

/// A float32 tensor of exactly n elements (a per-row or per-channel parameter or statistic).
inline void require_f32_count(const char* op, const char* role, const DTensor& t, int64_t n) {
  require_f32(op, role, t);
  if (t.dnumel() != n)
    rt::fail(std::string(op) + ": " + role + " has " + std::to_string(t.dnumel()) + " elements, expected " +
             std::to_string(n));
}

/// XShape = [0, X dims...], holding no data: how the reshaping ops (reshape2, squeeze2, transpose2, ...)
/// hand X's dims to their gradients.
inline void set_x_shape(const DTensor& x, DTensor* x_shape) {
  if (!x_shape) return;
  rt::Shape xs;
  xs.rank = x.dshape().rank + 1;
  for (int i = 0; i < x.dshape().rank; ++i) xs.d[i + 1] = x.dshape().d[i];
  x_shape->dresize(xs, x.ddtype());
}

/// X's dims from an XShape (set_x_shape).
inline rt::Shape dims_of_x_shape(const char* op, const DTensor& x_shape) {
  if (x_shape.dshape().rank < 1) rt::fail(std::string(op) + ": XShape must have rank >= 1");
  rt::Shape s;
  s.rank = x_shape.dshape().rank - 1;
  for (int i = 0; i < s.rank; ++i) s.d[i] = x_shape.dshape().d[i + 1];
  return s;
}

/// A shape rule's failure as the kernel's error.
inline void require_rule(const char* op, const std::string& why) {
  if (!why.empty()) rt::fail(std::string(op) + ": " + why);
}

inline const float* f(const DTensor& t) { return t.dptr<float>(); }
inline float* f(DTensor& t) { return t.dptr<float>(); }
inline const float* f_or_null(const DTensor* t) { return t ? t->dptr<float>() : nullptr; }

/// Whether two tensors share device storage (an output that aliases an input).
inline bool same_storage(const DTensor& a, const DTensor& b) { return a.dev().raw() && a.dev().raw() == b.dev().raw(); }

/// Row-major strides of `s`, 0 along dims where `s` is 1 but `out` is not
/// (it is broadcast there). `s` must have out's rank.
inline void broadcast_strides(const rt::Shape& out, const rt::Shape& s, int64_t* str) {
  int64_t step = 1;
  for (int d = out.rank - 1; d >= 0; --d) {
    str[d] = s.d[d] == 1 && out.d[d] != 1 ? 0 : step;
    step *= s.d[d];
  }
}

/// Out's walk with both operands' (aligned) strides.
inline dev::Strided strided(const rt::Shape& out, const rt::Shape& a, const rt::Shape& b) {
  dev::Strided s;
  s.rank = out.rank;
  for (int d = 0; d < out.rank; ++d) s.dims[d] = out.d[d];
  broadcast_strides(out, a, s.a);
  broadcast_strides(out, b, s.b);
  return s;
}

/// The sum of a tensor of shape `from` into `to` (the same rank, each dim
/// equal or 1): kept dims walk the outputs, the others are summed.
inline dev::ReduceSpec reduce_spec(const rt::Shape& from, const rt::Shape& to) {
  dev::ReduceSpec r;
  int64_t step = 1, str[rt::Shape::kMaxRank];
  for (int d = from.rank - 1; d >= 0; --d) {
    str[d] = step;
    step *= from.d[d];
  }
  r.outputs = to.numel();
  r.count = 1;
  for (int d = 0; d < from.rank; ++d) {
    if (to.d[d] == from.d[d]) {
      r.kdims[r.krank] = from.d[d];
      r.kstr[r.krank++] = str[d];
    } else {
      r.rdims[r.rrank] = from.d[d];
      r.rstr[r.rrank++] = str[d];
      r.count *= from.d[d];
    }
  }
  return r;
}

}  // namespace fluidc::kernels::cuda::util
