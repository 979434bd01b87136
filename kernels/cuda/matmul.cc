// kernels/cuda/matmul.cc - mul, matmul and matmul_v2 and their gradients as cuBLAS SGEMMs (row-major through the transpose identity).
#include <cublas_v2.h>

#include <fmt/format.h>

#include "kernels/cuda/kernel_util.h"
#include "kernels/shapes/matmul.h"

namespace fluidc::kernels::cuda {

using namespace util;

namespace {

// C[M, N] (+)= op(A)[M, K] @ op(B)[K, N], all row-major, `batch` times with
// the given element strides (0: shared). cuBLAS is column-major, so it
// computes C^T = op(B)^T @ op(A)^T, which has C's row-major layout.
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, const float* B, float* C,
          int64_t batch = 1, int64_t sa = 0, int64_t sb = 0, int64_t sc = 0, float alpha = 1.f) {
  if (M == 0 || N == 0) return;
  cu::Context& ctx = cu::current();
  const float one = alpha, zero = 0.f;
  if (K == 0) {  // an empty product: zeros
    cu::check(cudaMemsetAsync(C, 0, sizeof(float) * M * N * batch, ctx.stream), "cudaMemsetAsync");
    return;
  }
  const int lda = static_cast<int>(ta ? M : K), ldb = static_cast<int>(tb ? K : N);
  const cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasStatus_t s;
  if (batch == 1)
    s = cublasSgemm(ctx.cublas, opb, opa, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K), &one, B, ldb,
                    A, lda, &zero, C, static_cast<int>(N));
  else
    s = cublasSgemmStridedBatched(ctx.cublas, opb, opa, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K),
                                  &one, B, ldb, sb, A, lda, sa, &zero, C, static_cast<int>(N), sc,
                                  static_cast<int>(batch));
  cu::check_cublas(s, "cublasSgemm");
  ++cu::stats().kernel_launches;
}

// Sums `batch` consecutive blocks of `n` floats at `parts` into `out`.
void sum_batches(const float* parts, float* out, int64_t batch, int64_t n) {
  dev::ReduceSpec r;
  r.outputs = n;
  r.count = batch;
  r.krank = 1, r.kdims[0] = n, r.kstr[0] = 1;
  r.rrank = 1, r.rdims[0] = batch, r.rstr[0] = n;
  dev::reduce_sum(parts, out, r, 1.f, stream());
  cu::launched("reduce (batch sum)");
}

// The batch layout of a matmul_v2: each operand batched along all of Out's
// batch dims or shared by all of them (other broadcasts are not supported yet).
struct Batch {
  int64_t count = 1;
  bool x_shared = true, y_shared = true;
};
Batch batch_of(const shapes::MatmulShape& s) {
  Batch b;
  bool xall = true, yall = true, xnone = true, ynone = true;
  for (int i = 0; i < s.ob.rank; ++i) {
    b.count *= s.ob.d[i];
    const bool xb = s.xb.d[i] == s.ob.d[i], yb = s.yb.d[i] == s.ob.d[i];
    xall = xall && xb, yall = yall && yb;
    xnone = xnone && s.xb.d[i] == 1, ynone = ynone && s.yb.d[i] == 1;
  }
  if (b.count > 1 && !((xall || xnone) && (yall || ynone)))
    rt::fail("matmul_v2: this batch broadcast (one operand batched along some dims only) has no CUDA kernel yet");
  b.x_shared = b.count == 1 || (xnone && !xall);
  b.y_shared = b.count == 1 || (ynone && !yall);
  return b;
}

}  // namespace

void mul(const DTensor& x, const DTensor& y, DTensor& out, const MulAttrs& attrs) {
  const char* op = "mul";
  require_f32(op, "X", x);
  require_f32(op, "Y", y);
  shapes::MatmulShape s;
  require_rule(op, shapes::mul_shape(x.dshape(), y.dshape(), attrs, s));
  if (same_storage(out, x) || same_storage(out, y)) rt::fail("mul: Out must not share storage with X or Y");
  out.dresize(s.out, rt::DType::kFP32);
  gemm(false, false, s.M, s.N, s.K, f(x), f(y), f(out));
}

void mul_grad(const DTensor& x, const DTensor& y, const DTensor& out_grad, DTensor* x_grad, DTensor* y_grad,
              const MulAttrs& attrs) {
  const char* op = "mul_grad";
  require_f32(op, "X", x);
  require_f32(op, "Y", y);
  require_f32(op, "Out@GRAD", out_grad);
  shapes::MatmulShape s;
  require_rule(op, shapes::mul_shape(x.dshape(), y.dshape(), attrs, s));
  if (x_grad) {
    x_grad->dresize(x.dshape(), rt::DType::kFP32);
    gemm(false, true, s.M, s.K, s.N, f(out_grad), f(y), f(*x_grad));  // dX = dOut @ Y^T
  }
  if (y_grad) {
    y_grad->dresize(y.dshape(), rt::DType::kFP32);
    gemm(true, false, s.K, s.N, s.M, f(x), f(out_grad), f(*y_grad));  // dY = X^T @ dOut
  }
}

namespace {

// matmul (v1, with alpha) and matmul_v2 once their shape rule has run.
void matmul_fwd(const char* op, const DTensor& x, const DTensor& y, DTensor& out, const shapes::MatmulShape& s,
                float alpha) {
  const Batch b = batch_of(s);
  if (same_storage(out, x) || same_storage(out, y)) rt::fail(std::string(op) + ": Out must not share storage with X or Y");
  out.dresize(s.out, rt::DType::kFP32);
  gemm(s.tx, s.ty, s.M, s.N, s.K, f(x), f(y), f(out), b.count, b.x_shared ? 0 : s.M * s.K,
       b.y_shared ? 0 : s.K * s.N, s.M * s.N, alpha);
}

void matmul_bwd(const DTensor& x, const DTensor& y, const DTensor& out_grad, DTensor* x_grad, DTensor* y_grad,
                const shapes::MatmulShape& s, float alpha) {
  const Batch b = batch_of(s);
  const int64_t M = s.M, N = s.N, K = s.K, B = b.count, sg = M * N;
  const int64_t sx = b.x_shared ? 0 : M * K, sy = b.y_shared ? 0 : K * N;
  if (x_grad) {
    // dA = dOut @ op(Y)^T [M, K]; dX is dA, or its transpose when X was transposed.
    x_grad->dresize(x.dshape(), rt::DType::kFP32);
    const bool reduce = b.x_shared && B > 1;  // X shared by every batch: sum its per-batch gradients
    float* dst = reduce ? static_cast<float*>(cu::current().scratch(sizeof(float) * B * M * K)) : f(*x_grad);
    const int64_t sd = reduce || !b.x_shared ? M * K : 0;
    if (!s.tx) gemm(false, !s.ty, M, K, N, f(out_grad), f(y), dst, B, sg, sy, sd, alpha);
    else gemm(s.ty, true, K, M, N, f(y), f(out_grad), dst, B, sy, sg, sd, alpha);
    if (reduce) sum_batches(dst, f(*x_grad), B, M * K);
  }
  if (y_grad) {
    // dB = op(X)^T @ dOut [K, N]; dY is dB, or its transpose when Y was transposed.
    y_grad->dresize(y.dshape(), rt::DType::kFP32);
    const bool reduce = b.y_shared && B > 1;
    float* dst = reduce ? static_cast<float*>(cu::current().scratch(sizeof(float) * B * K * N)) : f(*y_grad);
    const int64_t sd = reduce || !b.y_shared ? K * N : 0;
    if (!s.ty) gemm(!s.tx, false, K, N, M, f(x), f(out_grad), dst, B, sx, sg, sd, alpha);
    else gemm(true, s.tx, N, K, M, f(out_grad), f(x), dst, B, sg, sx, sd, alpha);
    if (reduce) sum_batches(dst, f(*y_grad), B, K * N);
  }
}

void check_operands(const char* op, const DTensor& x, const DTensor& y, const DTensor* out_grad) {
  require_f32(op, "X", x);
  require_f32(op, "Y", y);
  if (out_grad) require_f32(op, "Out@GRAD", *out_grad);
}

}  // namespace

void matmul_v2(const DTensor& x, const DTensor& y, DTensor& out, const MatmulV2Attrs& attrs) {
  check_operands("matmul_v2", x, y, nullptr);
  shapes::MatmulShape s;
  require_rule("matmul_v2", shapes::matmul_v2_shape(x.dshape(), y.dshape(), attrs, s));
  matmul_fwd("matmul_v2", x, y, out, s, 1.f);
}

void matmul_v2_grad(const DTensor& x, const DTensor& y, const DTensor& out_grad, DTensor* x_grad, DTensor* y_grad,
                    const MatmulV2Attrs& attrs) {
  check_operands("matmul_v2_grad", x, y, &out_grad);
  shapes::MatmulShape s;
  require_rule("matmul_v2_grad", shapes::matmul_v2_shape(x.dshape(), y.dshape(), attrs, s));
  matmul_bwd(x, y, out_grad, x_grad, y_grad, s, 1.f);
}

void matmul(const DTensor& x, const DTensor& y, DTensor& out, const MatmulAttrs& attrs) {
  check_operands("matmul", x, y, nullptr);
  shapes::MatmulShape s;
  require_rule("matmul", shapes::matmul_shape(x.dshape(), y.dshape(), attrs, s));
  matmul_fwd("matmul", x, y, out, s, attrs.alpha);
}

void matmul_grad(const DTensor& x, const DTensor& y, const DTensor& out_grad, DTensor* x_grad, DTensor* y_grad,
                 const MatmulAttrs& attrs) {
  check_operands("matmul_grad", x, y, &out_grad);
  shapes::MatmulShape s;
  require_rule("matmul_grad", shapes::matmul_shape(x.dshape(), y.dshape(), attrs, s));
  matmul_bwd(x, y, out_grad, x_grad, y_grad, s, attrs.alpha);
}

}  // namespace fluidc::kernels::cuda
