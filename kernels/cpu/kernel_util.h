// kernels/cpu/kernel_util.h - private helpers shared by the CPU kernels: dtype dispatch, checks, scratch buffers.
//
// Not part of the kernel API: generated code includes kernels/<family>.h only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>

#include <fmt/format.h>

#include "kernels/loop_hints.h"
#include "runtime/error.h"
#include "runtime/parallel.h"
#include "runtime/tensor.h"

namespace fluidc::kernels::detail {

/// body(begin, end) over slices of [0, n), one per thread when n is large
/// enough for the threads' memory bandwidth to pay for the hand-off (about
/// 64K elements each); slice ends are multiples of 16 (whole cache lines of
/// fp32). For memory-bound elementwise loops, e.g. the optimizers.
template <class Body>
void parallel_ranges(int64_t n, Body body) {
  constexpr int64_t kMinPerThread = 64 * 1024;
  const int64_t parts = std::min<int64_t>(rt::num_threads(), std::max<int64_t>(1, n / kMinPerThread));
  if (parts <= 1) {
    body(int64_t{0}, n);
    return;
  }
  rt::parallel_slices(n, parts, 16, [&](int64_t, int64_t begin, int64_t end) { body(begin, end); });
}

using rt::DType;
using rt::Shape;
using rt::Tensor;

/// The DType tag of a C++ element type.
template <class T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::kFP32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::kFP64; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::kInt32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::kInt64; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::kBool; };

/// Accumulator type for sums: fp32 sums are carried in double so long
/// reductions do not drift; integers sum in int64.
template <class T> struct AccOf { using type = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>; };
template <class T> using Acc = typename AccOf<T>::type;

[[noreturn]] inline void fail_dtype(const char* op, const char* role, DType t) {
  rt::fail(fmt::format("{}: {} has unsupported dtype {}", op, role, rt::dtype_name(t)));
}

/// Calls f(T{}) for the floating dtypes (fp32, fp64); fails otherwise.
template <class F> void visit_float(const char* op, const char* role, DType t, F&& f) {
  switch (t) {
    case DType::kFP32: f(float{}); return;
    case DType::kFP64: f(double{}); return;
    default: fail_dtype(op, role, t);
  }
}

/// Calls f(T{}) for the numeric dtypes (fp32, fp64, int32, int64); fails otherwise.
template <class F> void visit_numeric(const char* op, const char* role, DType t, F&& f) {
  switch (t) {
    case DType::kFP32: f(float{}); return;
    case DType::kFP64: f(double{}); return;
    case DType::kInt32: f(int32_t{}); return;
    case DType::kInt64: f(int64_t{}); return;
    default: fail_dtype(op, role, t);
  }
}

/// Calls f(T{}) for every dtype a fill/cast may produce (numeric + bool).
template <class F> void visit_all(const char* op, const char* role, DType t, F&& f) {
  switch (t) {
    case DType::kFP32: f(float{}); return;
    case DType::kFP64: f(double{}); return;
    case DType::kInt32: f(int32_t{}); return;
    case DType::kInt64: f(int64_t{}); return;
    case DType::kBool: f(bool{}); return;
    default: fail_dtype(op, role, t);
  }
}

/// Reading a variable that never received a value is a program error worth
/// naming; without this check the kernel would read garbage.
inline void require_init(const char* op, const char* role, const Tensor& t) {
  if (!t.initialized()) rt::fail(fmt::format("{}: input {} is not initialized", op, role));
}

inline void require_same_dtype(const char* op, const char* ra, const Tensor& a, const char* rb,
                               const Tensor& b) {
  if (a.dtype() != b.dtype())
    rt::fail(fmt::format("{}: {} is {} but {} is {}", op, ra, rt::dtype_name(a.dtype()), rb,
                         rt::dtype_name(b.dtype())));
}

inline void require_same_shape(const char* op, const char* ra, const Tensor& a, const char* rb,
                               const Tensor& b) {
  if (a.shape() != b.shape())
    rt::fail(fmt::format("{}: {} has shape {} but {} has shape {}", op, ra, a.shape().str(), rb,
                         b.shape().str()));
}

/// Maps a possibly negative axis into [0, rank); fails when out of range.
/// Fails with the op's name when a shared shape rule (kernels/shapes/)
/// returned a reason.
inline void require_rule(const char* op, const std::string& error) {
  if (!error.empty()) rt::fail(fmt::format("{}: {}", op, error));
}

inline int canonical_axis(const char* op, const char* what, int axis, int rank) {
  int a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    rt::fail(fmt::format("{}: {} {} is out of range for a rank-{} tensor", op, what, axis, rank));
  return a;
}

inline int64_t prod(const Shape& s, int begin, int end) {
  int64_t n = 1;
  for (int i = begin; i < end; ++i) n *= s.d[i];
  return n;
}

/// Bytes of one row (one dim-0 entry) of `t`, as the LoD kernels copy
/// sequences row by row; 0 for a tensor without rows.
inline size_t row_bytes(const Tensor& t) {
  return t.rank() && t.dim(0) ? t.nbytes() / static_cast<size_t>(t.dim(0)) : 0;
}

/// Scratch slots. Each kernel uses distinct slots for buffers that are live
/// at the same time; the slots are per thread and grow-only, so a step loop
/// stops allocating after its first iteration.
enum class Slot : int {
  kOut0 = 0,  // stand-in for the first output when it aliases an input
  kOut1,      // ... the second output
  kOut2,      // ... the third output
  kAcc,       // wide accumulators for reductions
  kTmp0,      // kernel-specific temporaries
  kTmp1,
  kCount
};
Tensor& scratch(Slot slot);

/// Double scratch of n values starting zeroed (slot kAcc or kTmp*).
inline double* zeroed(Slot slot, int64_t n) {
  Tensor& t = scratch(slot);
  t.resize(Shape{n}, DType::kFP64);
  double* p = t.data<double>();
  for (int64_t i = 0; i < n; ++i) p[i] = 0;
  return p;
}

/// XShape (when given) records X's dims as [0, X dims...], holding no data,
/// as Paddle does for the gradients of reshape2, transpose2 and the like.
void record_xshape(const Tensor& x, Tensor* x_shape);
/// Out = X's bytes under shape `s` (same element count; out == x keeps the
/// data in place), with XShape recorded.
void copy_reshaped(const Tensor& x, const Shape& s, Tensor& out, Tensor* x_shape);

/// True when `out` is the very same object as one of `inputs`.
inline bool aliases(const Tensor* out, std::initializer_list<const Tensor*> inputs) {
  if (!out) return false;
  for (const Tensor* in : inputs)
    if (in == out) return true;
  return false;
}

/// A reading source that survives writes to the n outputs `outs` (a list
/// slot's): `x` itself, or a scratch copy (slot kTmp0) when one of them is
/// the very same tensor.
inline const Tensor& safe_source(const Tensor& x, Tensor* const* outs, int n) {
  for (int i = 0; i < n; ++i)
    if (outs[i] == &x) {
      Tensor& copy = scratch(Slot::kTmp0);
      copy.copy_from(x);
      return copy;
    }
  return x;
}

/// An output that may be the very same object as one of the inputs.
/// get() is where the kernel writes: the output itself, or, when `aliased`,
/// a scratch tensor, so the inputs stay intact while they are being read.
/// finish() then copies the result into the real output. Kernels whose
/// access pattern is safe in place (same index read then written) pass
/// aliased=false for that case and skip the copy.
class OutBuf {
 public:
  OutBuf(Tensor* out, Slot slot, bool aliased) : out_(out), aliased_(out && aliased) {
    target_ = aliased_ ? &scratch(slot) : out;
  }
  bool wanted() const { return out_ != nullptr; }
  Tensor& get() { return *target_; }
  void finish() {
    if (aliased_) out_->copy_from(*target_);
  }

 private:
  Tensor* out_ = nullptr;
  bool aliased_ = false;
  Tensor* target_ = nullptr;
};

// Splits `items` outer iterations (each ~`work` elements) over the threads
// when the whole job is large enough to pay for the hand-off (pooling, interpolation).
template <class Body>
void parallel_items(int64_t items, int64_t work, Body body) {
  constexpr int64_t kMinPerThread = 32 * 1024;
  const int64_t parts =
      std::min<int64_t>({rt::num_threads(), items, std::max<int64_t>(1, items * work / kMinPerThread)});
  if (parts <= 1) {
    body(int64_t{0}, items);
    return;
  }
  rt::parallel_slices(items, parts, 1, [&](int64_t, int64_t b, int64_t e) { body(b, e); });
}

}  // namespace fluidc::kernels::detail
