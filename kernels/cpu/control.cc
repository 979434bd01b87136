// kernels/cpu/control.cc - run-time pieces of control flow: conditions, increment, select, tensor arrays.
#include "kernels/control.h"

#include <fmt/format.h>

#include <cstring>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/control.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

// The integer in a one-element int32/int64 (or bool) tensor: an array index
// or a select mask.
int64_t index_value(const char* op, const char* role, const Tensor& t) {
  require_init(op, role, t);
  if (t.numel() != 1) rt::fail(fmt::format("{}: {} must hold one element, got shape {}", op, role, t.shape().str()));
  switch (t.dtype()) {
    case DType::kInt32: return t.data<int32_t>()[0];
    case DType::kInt64: return t.data<int64_t>()[0];
    case DType::kBool: return t.data<bool>()[0];
    default: rt::fail(fmt::format("{}: {} must be an integer, got {}", op, role, rt::dtype_name(t.dtype())));
  }
}

}  // namespace

bool condition_holds(const Tensor& cond, const char* op) {
  require_init(op, "Cond", cond);
  if (cond.numel() != 1)
    rt::fail(fmt::format("{}: the condition must hold one element, got shape {}", op, cond.shape().str()));
  bool v = false;
  visit_all(op, "Cond", cond.dtype(), [&](auto tag) {
    using T = decltype(tag);
    v = cond.data<T>()[0] != T(0);
  });
  return v;
}

bool all_nonempty(const Tensor* const* conds, int n) {
  for (int i = 0; i < n; ++i)
    if (!conds[i]->initialized() || conds[i]->numel() == 0) return false;
  return true;
}

void increment(const Tensor& x, Tensor& out, const IncrementAttrs& attrs) {
  require_init("increment", "X", x);
  Shape os;
  if (std::string e = shapes::increment_shape(x.shape(), os); !e.empty()) rt::fail("increment: " + e);
  visit_numeric("increment", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T v = x.data<T>()[0] + static_cast<T>(attrs.step);
    out.resize(os, x.dtype());
    out.data<T>()[0] = v;
  });
}

void is_empty(const Tensor& x, Tensor& out) {
  require_init("is_empty", "X", x);
  const bool empty = x.numel() == 0;
  out.resize(Shape{}, DType::kBool);
  out.data<bool>()[0] = empty;
}

void select_input(const Tensor* const* xs, int n, const Tensor& mask, Tensor& out) {
  const int64_t k = index_value("select_input", "Mask", mask);
  if (k < 0 || k >= n) rt::fail(fmt::format("select_input: Mask {} is out of range for {} inputs", k, n));
  require_init("select_input", "X", *xs[k]);
  if (xs[k] != &out) out.copy_from(*xs[k]);
}

void select_output(const Tensor& x, const Tensor& mask, Tensor* const* outs, int n) {
  const int64_t k = index_value("select_output", "Mask", mask);
  if (k < 0 || k >= n) rt::fail(fmt::format("select_output: Mask {} is out of range for {} outputs", k, n));
  require_init("select_output", "X", x);
  if (outs[k] != &x) outs[k]->copy_from(x);
}

void write_to_array(const Tensor& x, const Tensor& i, TensorArray& out) {
  const int64_t k = index_value("write_to_array", "I", i);
  if (k < 0) rt::fail(fmt::format("write_to_array: negative index {}", k));
  require_init("write_to_array", "X", x);
  if (static_cast<size_t>(k) >= out.size()) out.resize(static_cast<size_t>(k) + 1);
  out[k].copy_from(x);
  out[k].share_lod(x);  // an element keeps its LoD (beam_search's steps, read back by beam_search_decode)
}

void read_from_array(const TensorArray& x, const Tensor& i, Tensor& out) {
  const int64_t k = index_value("read_from_array", "I", i);
  if (k < 0 || static_cast<size_t>(k) >= x.size())
    rt::fail(fmt::format("read_from_array: index {} is out of range for an array of {} tensors", k, x.size()));
  if (!x[k].initialized()) rt::fail(fmt::format("read_from_array: element {} was never written", k));
  out.copy_from(x[k]);
  out.share_lod(x[k]);
}

void array_length(const TensorArray& x, Tensor& out) {
  out.resize(Shape{1}, DType::kInt64);
  out.data<int64_t>()[0] = static_cast<int64_t>(x.size());
}

void tensor_array_to_tensor(const TensorArray& x, Tensor& out, Tensor& out_index,
                            const TensorArrayToTensorAttrs& a) {
  constexpr const char* op = "tensor_array_to_tensor";
  if (x.empty()) rt::fail(fmt::format("{}: the array is empty", op));
  for (size_t k = 0; k < x.size(); ++k)
    if (!x[k].initialized()) rt::fail(fmt::format("{}: element {} was never written", op, k));
  const Shape& first = x[0].shape();
  const int rank = first.rank + (a.use_stack ? 1 : 0);
  const int axis = a.axis < 0 ? a.axis + rank : a.axis;
  if (axis < 0 || axis >= rank || (!a.use_stack && first.rank == 0))
    rt::fail(fmt::format("{}: axis {} is out of range for elements of shape {}", op, a.axis, first.str()));
  // Each element as [outer, extent, inner] around the axis (extent 1 when stacked).
  int64_t outer = 1, inner = 1, total = 0;
  for (int i = 0; i < axis; ++i) outer *= first.d[i];
  for (int i = a.use_stack ? axis : axis + 1; i < first.rank; ++i) inner *= first.d[i];
  out_index.resize(Shape{static_cast<int64_t>(x.size())}, DType::kInt32);
  for (size_t k = 0; k < x.size(); ++k) {
    const Shape& s = x[k].shape();
    bool same = s.rank == first.rank && x[k].dtype() == x[0].dtype();
    for (int i = 0; same && i < s.rank; ++i) same = i == axis && !a.use_stack ? true : s.d[i] == first.d[i];
    if (!same)
      rt::fail(fmt::format("{}: element {} is {} {} but element 0 is {} {}", op, k, rt::dtype_name(x[k].dtype()),
                           s.str(), rt::dtype_name(x[0].dtype()), first.str()));
    const int64_t extent = a.use_stack ? 1 : s.d[axis];
    out_index.data<int32_t>()[k] = static_cast<int32_t>(extent);
    total += extent;
  }
  Shape shape;
  shape.rank = rank;
  if (!a.use_stack)
    for (int i = 0; i < rank; ++i) shape.d[i] = i == axis ? total : first.d[i];
  else
    for (int i = 0; i < rank; ++i) shape.d[i] = i == axis ? total : first.d[i < axis ? i : i - 1];
  out.resize(shape, x[0].dtype());
  const size_t elem = rt::dtype_size(x[0].dtype());
  char* dst = static_cast<char*>(out.raw());
  const int64_t row = total * inner;  // one outer index of the result, in elements
  int64_t at = 0;                     // where element k starts along the axis
  for (size_t k = 0; k < x.size(); ++k) {
    const int64_t extent = out_index.data<int32_t>()[k], chunk = extent * inner;
    const char* src = static_cast<const char*>(x[k].raw());
    for (int64_t o = 0; chunk > 0 && o < outer; ++o)
      std::memcpy(dst + (o * row + at * inner) * elem, src + o * chunk * elem, static_cast<size_t>(chunk) * elem);
    at += extent;
  }
}

}  // namespace fluidc::kernels
