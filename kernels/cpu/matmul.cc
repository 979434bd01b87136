// kernels/cpu/matmul.cc - mul, matmul, matmul_v2 and gradients: shape rules, then one batched GEMM core.
#include "kernels/matmul.h"

#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/sgemm.h"
#include "kernels/shapes/matmul.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

/// Row-major C[M,N] = alpha * op(A) @ op(B) + beta * C by the definition:
/// an i-p-j loop that keeps the inner loop contiguous in C (and in B when it
/// is not transposed). For fp64 (no fast path) and products too small for
/// packing to pay.
template <class T>
void direct_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, const T* B, T beta,
                 T* C) {
  for (int64_t i = 0; i < M * N; ++i) C[i] = beta == T(0) ? T(0) : beta * C[i];
  for (int64_t i = 0; i < M; ++i) {
    T* c = C + i * N;
    for (int64_t p = 0; p < K; ++p) {
      const T a = alpha * (ta ? A[p * M + i] : A[i * K + p]);
      if (tb) {
        for (int64_t j = 0; j < N; ++j) c[j] += a * B[j * K + p];
      } else {
        const T* b = B + p * N;
        for (int64_t j = 0; j < N; ++j) c[j] += a * b[j];
      }
    }
  }
}

/// Dense row-major operands (op(A) is [M,K], op(B) is [K,N]; leading dims
/// follow from the flags).
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, const float* B,
          float beta, float* C) {
  if (M == 0 || N == 0) return;
  // A single row times a row-major matrix (batch-1 inference) is bandwidth
  // bound: nothing to gain from packing.
  if (M == 1 && !tb) {
    row_times_matrix(N, K, alpha, A, B, beta, C);
    return;
  }
  // Below a few thousand multiply-adds (fit_a_line's 20x13 @ 13x1) packing
  // and padding to 8x48 tiles would cost more than the product.
  if (M * N * K <= 4096) {
    direct_gemm(ta, tb, M, N, K, alpha, A, B, beta, C);
    return;
  }
  packed_sgemm(ta, tb, M, N, K, alpha, A, ta ? M : K, B, tb ? K : N, beta, C, N);
}

void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, const double* B,
          double beta, double* C) {
  direct_gemm(ta, tb, M, N, K, alpha, A, B, beta, C);
}

/// One GEMM per point of a batch index space. Operand k of the space is
/// A (0), B (1) and C (2); a stride of 0 means the matrix is shared by all
/// batches along that dim. With `accumulate`, C is zeroed first and every
/// product added into it: that is how a gradient w.r.t. a shared (broadcast)
/// operand sums over the batches.
template <class T>
void batched_gemm(StridedSpace<3> space, bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha,
                  const T* A, const T* B, Tensor& c, bool accumulate) {
  T* C = c.data<T>();
  if (accumulate) c.zero();
  const T beta = accumulate ? T(1) : T(0);
  simplify(space);
  for_each_run(space, [&](const int64_t* off, int64_t n, const int64_t* st) {
    for (int64_t i = 0; i < n; ++i)
      gemm(ta, tb, M, N, K, alpha, A + off[0] + i * st[0], B + off[1] + i * st[1], beta,
           C + off[2] + i * st[2]);
  });
}

/// Everything the forward and backward passes need to know about one
/// (batched) product Out = alpha * op(X) @ op(Y).
struct Geometry {
  int64_t M = 0, N = 0, K = 0;
  bool tx = false, ty = false;
  int brank = 0;
  int64_t bdims[kMaxRank] = {};
  int64_t sx[kMaxRank] = {}, sy[kMaxRank] = {}, so[kMaxRank] = {};  // batch strides, in elements
  Shape out;  // Out's shape as the op reports it
};

/// True when an operand with these batch strides is reused across batches.
bool shared(const Geometry& g, const int64_t* s) {
  for (int i = 0; i < g.brank; ++i)
    if (s[i] == 0 && g.bdims[i] > 1) return true;
  return false;
}

StridedSpace<3> space_of(const Geometry& g, const int64_t* s0, const int64_t* s1, const int64_t* s2) {
  StridedSpace<3> sp;
  sp.rank = g.brank;
  for (int i = 0; i < g.brank; ++i) {
    sp.dims[i] = g.bdims[i];
    sp.strides[0][i] = s0[i];
    sp.strides[1][i] = s1[i];
    sp.strides[2][i] = s2[i];
  }
  return sp;
}

template <class T>
void forward(const Geometry& g, T alpha, const Tensor& x, const Tensor& y, Tensor& o) {
  batched_gemm<T>(space_of(g, g.sx, g.sy, g.so), g.tx, g.ty, g.M, g.N, g.K, alpha, x.data<T>(),
                  y.data<T>(), o, false);
}

/// With A = op(X) [M,K], B = op(Y) [K,N] and G = Out@GRAD [M,N]:
///   dA = alpha G B^T, dB = alpha A^T G;
/// stored transposed when the operand was: dX = dA^T = alpha B G^T, etc.
template <class T>
void backward(const Geometry& g, T alpha, const Tensor& x, const Tensor& y, const Tensor& dout,
              Tensor* dx, Tensor* dy) {
  const T* X = x.data<T>();
  const T* Y = y.data<T>();
  const T* G = dout.data<T>();
  if (dx) {
    const bool acc = shared(g, g.sx);
    if (!g.tx)  // dX[M,K] = alpha * G[M,N] @ op(Y)^T
      batched_gemm<T>(space_of(g, g.so, g.sy, g.sx), false, !g.ty, g.M, g.K, g.N, alpha, G, Y, *dx, acc);
    else  // dX[K,M] = alpha * op(Y)[K,N] @ G^T
      batched_gemm<T>(space_of(g, g.sy, g.so, g.sx), g.ty, true, g.K, g.M, g.N, alpha, Y, G, *dx, acc);
  }
  if (dy) {
    const bool acc = shared(g, g.sy);
    if (!g.ty)  // dY[K,N] = alpha * op(X)^T @ G[M,N]
      batched_gemm<T>(space_of(g, g.sx, g.so, g.sy), !g.tx, false, g.K, g.N, g.M, alpha, X, G, *dy, acc);
    else  // dY[N,K] = alpha * G^T @ op(X)[M,K]
      batched_gemm<T>(space_of(g, g.so, g.sx, g.sy), true, g.tx, g.N, g.K, g.M, alpha, G, X, *dy, acc);
  }
}

void check_inputs(const char* op, const Tensor& x, const Tensor& y) {
  require_init(op, "X", x);
  require_init(op, "Y", y);
  require_same_dtype(op, "X", x, "Y", y);
}

/// The driver shared by the three forward ops: alias-safe output, dtype dispatch.
void run_forward(const char* op, const Geometry& g, float alpha, const Tensor& x, const Tensor& y,
                 Tensor& out) {
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x, &y}));
  buf.get().resize(g.out, x.dtype());
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    forward<T>(g, static_cast<T>(alpha), x, y, buf.get());
  });
  buf.finish();
}

/// The driver shared by the three gradient ops.
void run_backward(const char* op, const Geometry& g, float alpha, const Tensor& x, const Tensor& y,
                  const Tensor& dout, Tensor* dx, Tensor* dy) {
  require_init(op, "Out@GRAD", dout);
  require_same_dtype(op, "X", x, "Out@GRAD", dout);
  if (dout.shape() != g.out)
    rt::fail(fmt::format("{}: Out@GRAD has shape {} but the product of X {} and Y {} has shape {}", op,
                         dout.shape().str(), x.shape().str(), y.shape().str(), g.out.str()));
  if (dx && dx == dy) rt::fail(fmt::format("{}: X@GRAD and Y@GRAD are the same tensor", op));
  OutBuf bx(dx, Slot::kOut0, aliases(dx, {&x, &y, &dout}));
  OutBuf by(dy, Slot::kOut1, aliases(dy, {&x, &y, &dout, dx}));
  if (bx.wanted()) bx.get().resize(x.shape(), x.dtype());
  if (by.wanted()) by.get().resize(y.shape(), y.dtype());
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    backward<T>(g, static_cast<T>(alpha), x, y, dout, bx.wanted() ? &bx.get() : nullptr,
                by.wanted() ? &by.get() : nullptr);
  });
  bx.finish();
  by.finish();
}

// ---- shape rules (kernels/shapes/matmul.h, shared with the compiler) --------

/// The strided batch walk of a product whose shapes the op's rule worked out.
template <class Attrs>
Geometry geometry(const char* op, const Tensor& x, const Tensor& y, const Attrs& a,
                  std::string (*rule)(const Shape&, const Shape&, const Attrs&, shapes::MatmulShape&)) {
  check_inputs(op, x, y);
  shapes::MatmulShape s;
  require_rule(op, rule(x.shape(), y.shape(), a, s));
  Geometry g;
  g.M = s.M;
  g.N = s.N;
  g.K = s.K;
  g.tx = s.tx;
  g.ty = s.ty;
  g.brank = s.ob.rank;
  broadcast_strides(s.xb, g.sx);
  broadcast_strides(s.yb, g.sy);
  broadcast_strides(s.ob, g.so);
  for (int i = 0; i < s.ob.rank; ++i) {
    g.bdims[i] = s.ob.d[i];
    g.sx[i] *= g.M * g.K;
    g.sy[i] *= g.K * g.N;
    g.so[i] *= g.M * g.N;
  }
  g.out = s.out;
  return g;
}

}  // namespace

void mul(const Tensor& x, const Tensor& y, Tensor& out, const MulAttrs& attrs) {
  run_forward("mul", geometry("mul", x, y, attrs, shapes::mul_shape), 1.0f, x, y, out);
}
void mul_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad, Tensor* y_grad,
              const MulAttrs& attrs) {
  run_backward("mul_grad", geometry("mul_grad", x, y, attrs, shapes::mul_shape), 1.0f, x, y, out_grad, x_grad, y_grad);
}

void matmul(const Tensor& x, const Tensor& y, Tensor& out, const MatmulAttrs& attrs) {
  run_forward("matmul", geometry("matmul", x, y, attrs, shapes::matmul_shape), attrs.alpha, x, y, out);
}
void matmul_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                 Tensor* y_grad, const MatmulAttrs& attrs) {
  run_backward("matmul_grad", geometry("matmul_grad", x, y, attrs, shapes::matmul_shape), attrs.alpha, x, y, out_grad,
               x_grad, y_grad);
}

void matmul_v2(const Tensor& x, const Tensor& y, Tensor& out, const MatmulV2Attrs& attrs) {
  run_forward("matmul_v2", geometry("matmul_v2", x, y, attrs, shapes::matmul_v2_shape), 1.0f, x, y, out);
}
void matmul_v2_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                    Tensor* y_grad, const MatmulV2Attrs& attrs) {
  run_backward("matmul_v2_grad", geometry("matmul_v2_grad", x, y, attrs, shapes::matmul_v2_shape), 1.0f, x, y, out_grad,
               x_grad, y_grad);
}

}  // namespace fluidc::kernels
