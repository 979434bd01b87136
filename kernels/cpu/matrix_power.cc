// kernels/cpu/matrix_power.cc - matrix_power and its gradient: repeated products of X, or of X^-1 for negative powers.
#include <algorithm>
#include <cstdlib>

#include "kernels/cpu/lu_util.h"
#include "kernels/linalg_lu.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

void set_identity(double* a, int64_t n) {
  for (int64_t i = 0; i < n * n; ++i) a[i] = 0.0;
  for (int64_t i = 0; i < n; ++i) a[i * n + i] = 1.0;
}

/// The base of the power for matrix m: X itself, or X^-1 when n < 0 (into f.inv either way).
template <class T>
const double* power_base(const char* op, const Tensor& x, const SquareBatch& b, int64_t m, int n, Factored& f) {
  if (n >= 0) {
    load_matrix<T>(x, b, m, f.inv);
    return f.inv;
  }
  factor<T>(x, b, m, f, true);
  if (!f.regular)
    rt::fail(fmt::format("{}: n = {} needs the inverse, but matrix {} of X {} is not invertible (a zero pivot)", op, n,
                         m, x.shape().str()));
  return f.inv;
}

}  // namespace

void matrix_power(const Tensor& x, Tensor& out, const MatrixPowerAttrs& a) {
  constexpr const char* op = "matrix_power";
  const SquareBatch b = checked_batch(op, "X", x);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x}));
  Tensor& o = buf.get();
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    o.resize(x.shape(), x.dtype());
    Factored f = work_for(b, 3);
    double *result = f.extra_matrix(0), *square = f.extra_matrix(1), *tmp = f.extra_matrix(2);
    for (int64_t m = 0; m < b.count; ++m) {
      set_identity(result, b.n);
      if (a.n != 0) {
        const double* base = power_base<T>(op, x, b, m, a.n, f);
        std::copy(base, base + b.size(), square);
        // Binary powering: result collects square^(2^k) for each set bit k of |n|.
        for (int64_t e = std::llabs(static_cast<long long>(a.n)); e > 0; e >>= 1) {
          if (e & 1) {
            square_product(result, false, square, false, b.n, tmp);
            std::swap(result, tmp);
          }
          if (e > 1) {
            square_product(square, false, square, false, b.n, tmp);
            std::swap(square, tmp);
          }
        }
      }
      store_matrix<T>(result, b, m, o);
    }
  });
  buf.finish();
}

void matrix_power_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad,
                       const MatrixPowerAttrs& a) {
  constexpr const char* op = "matrix_power_grad";
  const SquareBatch b = checked_batch(op, "X", x);
  require_init(op, "Out", out);
  require_init(op, "Out@GRAD", out_grad);
  require_same_shape(op, "X", x, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  if (!x_grad) return;
  OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&x, &out, &out_grad}));
  Tensor& g = buf.get();
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    g.resize(x.shape(), x.dtype());
    const int64_t k = std::llabs(static_cast<long long>(a.n));
    // Buffers: Out@GRAD, the running sum T, (base^T)^j, two temporaries. O(1) matrices whatever n
    // (an attribute of an untrusted program): T_1 = G, T_(j+1) = base^T T_j + G (base^T)^j gives
    // T_k = sum over i < k of (base^T)^i G (base^T)^(k-1-i), the gradient of base^k.
    Factored f = work_for(b, 5);
    double *dout = f.extra_matrix(0), *sum = f.extra_matrix(1), *pw = f.extra_matrix(2), *t1 = f.extra_matrix(3),
           *t2 = f.extra_matrix(4);
    for (int64_t m = 0; m < b.count; ++m) {
      for (int64_t i = 0; i < b.size(); ++i) sum[i] = 0.0;
      if (a.n != 0) {
        const double* base = power_base<T>(op, x, b, m, a.n, f);
        load_matrix<T>(out_grad, b, m, dout);
        std::copy(dout, dout + b.size(), sum);
        for (int64_t i = 0; i < b.n; ++i)
          for (int64_t j = 0; j < b.n; ++j) pw[i * b.n + j] = base[j * b.n + i];
        for (int64_t step = 1; step < k; ++step) {
          square_product(base, true, sum, false, b.n, t1);  // base^T T
          square_product(dout, false, pw, false, b.n, t2);  // G (base^T)^step
          for (int64_t i = 0; i < b.size(); ++i) sum[i] = t1[i] + t2[i];
          square_product(pw, false, base, true, b.n, t1);   // (base^T)^(step + 1)
          std::copy(t1, t1 + b.size(), pw);
        }
        if (a.n < 0) {  // base = X^-1: dX = -base^T d(base) base^T
          square_product(base, true, sum, false, b.n, t1);
          square_product(t1, false, base, true, b.n, sum);
          for (int64_t j = 0; j < b.size(); ++j) sum[j] = -sum[j];
        }
      }
      store_matrix<T>(sum, b, m, g);
    }
  });
  buf.finish();
}

}  // namespace fluidc::kernels
