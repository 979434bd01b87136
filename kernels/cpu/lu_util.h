// kernels/cpu/lu_util.h - dense square-matrix helpers in double for the linalg_lu kernels: LU with partial pivoting, inverse, products, batch load/store.
#pragma once

#include <cmath>
#include <cstdint>
#include <utility>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/linalg_lu.h"

namespace fluidc::kernels::detail {

/// A batch of `count` row-major n x n matrices laid end to end.
struct SquareBatch {
  int64_t n = 0;
  int64_t count = 0;
  int64_t size() const { return n * n; }
};

inline SquareBatch square_batch_of(const Shape& s) {
  SquareBatch b;
  b.n = s.d[s.rank - 1];
  b.count = prod(s, 0, s.rank - 2);
  return b;
}

/// Matrix `m` of `t` (T = float or double) widened to double.
template <class T>
void load_matrix(const Tensor& t, const SquareBatch& b, int64_t m, double* dst) {
  const T* src = t.data<T>() + m * b.size();
  for (int64_t i = 0; i < b.size(); ++i) dst[i] = static_cast<double>(src[i]);
}

template <class T>
void store_matrix(const double* src, const SquareBatch& b, int64_t m, Tensor& t) {
  T* dst = t.data<T>() + m * b.size();
  for (int64_t i = 0; i < b.size(); ++i) dst[i] = static_cast<T>(src[i]);
}

/// Factors `a` in place as P A = L U (L unit lower, stored below the
/// diagonal; U on and above it), perm[i] being the row of A that became row
/// i, and `sign` the permutation's parity. False when a pivot is exactly
/// zero: A is singular and the factorisation stops there.
inline bool lu_factor(double* a, int64_t n, int64_t* perm, int& sign) {
  sign = 1;
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; ++i)
      if (std::fabs(a[i * n + k]) > std::fabs(a[p * n + k])) p = i;
    if (a[p * n + k] == 0.0) return false;
    if (p != k) {
      for (int64_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
      std::swap(perm[k], perm[p]);
      sign = -sign;
    }
    const double pivot = a[k * n + k];
    for (int64_t i = k + 1; i < n; ++i) {
      const double f = a[i * n + k] / pivot;
      a[i * n + k] = f;
      if (f == 0.0) continue;
      for (int64_t j = k + 1; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
    }
  }
  return true;
}

/// inv = A^-1 from lu_factor's result: column j solves L U x = P e_j.
inline void lu_inverse(const double* lu, const int64_t* perm, int64_t n, double* inv, double* col) {
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < n; ++i) col[i] = perm[i] == j ? 1.0 : 0.0;
    for (int64_t i = 0; i < n; ++i)  // forward: L y = P e_j
      for (int64_t k = 0; k < i; ++k) col[i] -= lu[i * n + k] * col[k];
    for (int64_t i = n - 1; i >= 0; --i) {  // back: U x = y
      for (int64_t k = i + 1; k < n; ++k) col[i] -= lu[i * n + k] * col[k];
      col[i] /= lu[i * n + i];
    }
    for (int64_t i = 0; i < n; ++i) inv[i * n + j] = col[i];
  }
}

/// c = op(a) op(b) for n x n matrices, op the transpose where asked; c may
/// not be a or b.
inline void square_product(const double* a, bool ta, const double* b, bool tb, int64_t n, double* c) {
  for (int64_t i = 0; i < n * n; ++i) c[i] = 0.0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < n; ++k) {
      const double aik = ta ? a[k * n + i] : a[i * n + k];
      if (aik == 0.0) continue;
      double* ci = c + i * n;
      if (tb)
        for (int64_t j = 0; j < n; ++j) ci[j] += aik * b[j * n + k];
      else
        for (int64_t j = 0; j < n; ++j) ci[j] += aik * b[k * n + j];
    }
}

/// A double work area of `words` values (slot kAcc), for the per-matrix buffers.
inline double* lu_work(int64_t words) {
  Tensor& t = scratch(Slot::kAcc);
  t.resize(Shape{words}, DType::kFP64);
  return t.data<double>();
}

/// lu_factor's row permutation, n entries (slot kTmp1).
inline int64_t* lu_perm(int64_t n) {
  Tensor& t = scratch(Slot::kTmp1);
  t.resize(Shape{n}, DType::kInt64);
  return t.data<int64_t>();
}

/// One matrix's factorisation in a work area: the LU, its inverse, a column.
struct Factored {
  double* lu;
  double* inv;
  double* col;
  int64_t* perm;
  int64_t size = 0;  // n * n
  int sign = 1;
  bool regular = false;
  double* extra_matrix(int64_t i) const { return inv + (1 + i) * size; }
};

/// A work area for one matrix at a time, with `extra` more n x n buffers
/// (extra_matrix(i)) for the caller.
inline Factored work_for(const SquareBatch& b, int64_t extra = 0) {
  double* w = lu_work((2 + extra) * b.size() + b.n);
  return {w, w + b.size(), w + (2 + extra) * b.size(), lu_perm(b.n), b.size()};
}

/// Factors matrix m of `t` into f.lu (and its inverse into f.inv when regular and asked).
template <class T>
inline void factor(const Tensor& t, const SquareBatch& b, int64_t m, Factored& f, bool want_inverse) {
  load_matrix<T>(t, b, m, f.lu);
  f.regular = lu_factor(f.lu, b.n, f.perm, f.sign);
  if (f.regular && want_inverse) lu_inverse(f.lu, f.perm, b.n, f.inv, f.col);
}

/// The checked batch of `input` (fp32 / fp64 square matrices).
inline SquareBatch checked_batch(const char* op, const char* role, const Tensor& input) {
  require_init(op, role, input);
  require_rule(op, shapes::square_batch(input.shape(), role));
  visit_float(op, role, input.dtype(), [](auto) {});
  return square_batch_of(input.shape());
}

}  // namespace fluidc::kernels::detail
