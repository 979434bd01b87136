// test/unit/kernels/kernel_test_util.h - building and reading small tensors in kernel tests.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/tensor.h"

namespace fluidc::test {

using rt::DType;
using rt::Shape;
using rt::Tensor;

template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<float>() { return DType::kFP32; }
template <> constexpr DType dtype_of<double>() { return DType::kFP64; }
template <> constexpr DType dtype_of<int32_t>() { return DType::kInt32; }
template <> constexpr DType dtype_of<int64_t>() { return DType::kInt64; }
template <> constexpr DType dtype_of<bool>() { return DType::kBool; }

/// A tensor of `shape` holding `v` (row-major) in T's dtype.
template <class T>
Tensor make(const Shape& shape, const std::vector<T>& v) {
  Tensor t;
  t.resize(shape, dtype_of<T>());
  if (static_cast<int64_t>(v.size()) != shape.numel())
    throw std::logic_error("make: " + std::to_string(v.size()) + " values for shape " + shape.str());
  for (size_t i = 0; i < v.size(); ++i) t.data<T>()[i] = v[i];
  return t;
}

inline Tensor f32(const Shape& shape, const std::vector<float>& v) { return make<float>(shape, v); }
inline Tensor f64(const Shape& shape, const std::vector<double>& v) { return make<double>(shape, v); }
inline Tensor i32(const Shape& shape, const std::vector<int32_t>& v) { return make<int32_t>(shape, v); }
inline Tensor i64(const Shape& shape, const std::vector<int64_t>& v) { return make<int64_t>(shape, v); }
/// fp32 0, 1, 2, ... in row-major order: values that show where each element went.
inline Tensor iota(const Shape& shape) {
  std::vector<float> v(static_cast<size_t>(shape.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return f32(shape, v);
}

/// Element i of a float/int tensor as double.
inline double get(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kFP32: return t.data<float>()[i];
    case DType::kFP64: return t.data<double>()[i];
    case DType::kInt32: return t.data<int32_t>()[i];
    case DType::kInt64: return static_cast<double>(t.data<int64_t>()[i]);
    case DType::kBool: return t.data<bool>()[i] ? 1.0 : 0.0;
    default: throw std::logic_error("get: unsupported dtype");
  }
}

inline void set(Tensor& t, int64_t i, double v) {
  switch (t.dtype()) {
    case DType::kFP32: t.data<float>()[i] = static_cast<float>(v); return;
    case DType::kFP64: t.data<double>()[i] = v; return;
    default: throw std::logic_error("set: unsupported dtype");
  }
}

/// All elements as doubles, for comparisons with Catch's Approx.
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = get(t, i);
  return v;
}

/// Uniform random values in [lo, hi) of a float dtype. With `min_abs` > 0,
/// values are kept at least that far from 0 (kinks, division).
inline Tensor random(const Shape& shape, DType dt, std::mt19937& rng, double lo = -1.0, double hi = 1.0,
                     double min_abs = 0.0) {
  Tensor t;
  t.resize(shape, dt);
  std::uniform_real_distribution<double> u(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = u(rng);
    while (std::abs(v) < min_abs) v = u(rng);
    set(t, i, v);
  }
  return t;
}

/// The same values in another float dtype (fp32 <-> fp64), for checking an
/// fp32 fast path against the fp64 generic one on identical inputs.
inline Tensor converted(const Tensor& t, DType dt) {
  Tensor out;
  out.resize(t.shape(), dt);
  for (int64_t i = 0; i < t.numel(); ++i) set(out, i, get(t, i));
  return out;
}

}  // namespace fluidc::test
