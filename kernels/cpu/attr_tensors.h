// kernels/cpu/attr_tensors.h - reading attribute values that a program computes at run time (Paddle's tensor inputs).
//
// Paddle lets an op take some attributes from tensors instead (slice's
// StartsTensor, reshape2's ShapeTensor, scale's ScaleTensor, ...); when given
// they win over the attribute. Integer lists come as int32 or int64.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cpu/kernel_util.h"

namespace fluidc::kernels::detail {

/// Element k of an int32 or int64 tensor.
inline int64_t int_at(const char* op, const char* role, const Tensor& t, int64_t k) {
  require_init(op, role, t);
  if (k >= t.numel()) rt::fail(fmt::format("{}: {} has {} values, needs {}", op, role, t.numel(), k + 1));
  switch (t.dtype()) {
    case DType::kInt32: return t.data<int32_t>()[k];
    case DType::kInt64: return t.data<int64_t>()[k];
    default: rt::fail(fmt::format("{}: {} must be int32 or int64, got {}", op, role, rt::dtype_name(t.dtype())));
  }
}

/// Every value of an int tensor (a 1-D list such as a shape).
inline std::vector<int64_t> int_values(const char* op, const char* role, const Tensor& t) {
  require_init(op, role, t);
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  for (int64_t k = 0; k < t.numel(); ++k) v[k] = int_at(op, role, t, k);
  return v;
}

/// The value of entry k of a list of one-element int tensors (Paddle's *TensorList).
inline int64_t int_list_entry(const char* op, const char* role, const Tensor* const* list, int k) {
  if (!list[k]) rt::fail(fmt::format("{}: {} entry {} is missing", op, role, k));
  if (list[k]->numel() != 1)
    rt::fail(fmt::format("{}: {} entry {} has {} values, needs 1", op, role, k, list[k]->numel()));
  return int_at(op, role, *list[k], 0);
}

/// One value from each of n one-element int tensors (Paddle's *TensorList).
inline std::vector<int64_t> int_list_values(const char* op, const char* role, const Tensor* const* list, int n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) v[k] = int_list_entry(op, role, list, k);
  return v;
}

/// The value of a one-element numeric tensor (scale's ScaleTensor, fill_constant's ValueTensor).
inline double scalar_of(const char* op, const char* role, const Tensor& t) {
  require_init(op, role, t);
  if (t.numel() != 1) rt::fail(fmt::format("{}: {} has {} values, needs 1", op, role, t.numel()));
  double v = 0;
  visit_all(op, role, t.dtype(), [&](auto tag) { v = static_cast<double>(t.data<decltype(tag)>()[0]); });
  return v;
}

}  // namespace fluidc::kernels::detail
