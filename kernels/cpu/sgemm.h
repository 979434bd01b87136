// kernels/cpu/sgemm.h - fluidc's own fp32 GEMM and GEMV: ahead-of-time compiled (no JIT on first use), threaded.
//
// Private to the CPU kernels (matmul.cc is the caller).
#pragma once

#include <cstdint>

namespace fluidc::kernels::detail {

/// Row-major C[M,N] = alpha * op(A)[M,K] @ op(B)[K,N] + beta * C, where op
/// transposes when its flag is set; lda/ldb/ldc are the row strides of A, B
/// and C as stored. beta == 0 means C is only written (never read), as in
/// BLAS. Uses up to rt::num_threads() threads when the product is big enough
/// to share; the packing buffers grow to the largest shapes seen and are
/// then reused, so steady-state calls do not allocate. One caller at a time
/// (generated code is single-threaded; the buffers are shared).
void packed_sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                  int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

/// A B operand made row by row on demand: fn(ctx, k, j0, n, dst) writes
/// B[k, j0:j0+n] to dst[0:n]. A convolution's column matrix is made this way
/// a K-slice at a time, straight into the GEMM's packing (never stored whole).
/// `done`, when set, is called on each finished block of C (all of K summed,
/// still in cache): done(ctx, c, ldc, M, n) for rows [0, M) and the n columns
/// from c on; the convolutions add their bias and activation there.
/// `dense`, when set, is a B stored whole (row-major, rows `ld` floats
/// apart; fn is then unused): a 1x1 convolution's image, which needs only
/// the `done` epilogue.
struct BRows {
  void (*fn)(const void* ctx, int64_t k, int64_t j0, int64_t n, float* dst);
  const void* ctx;
  void (*done)(const void* ctx, float* c, int64_t ldc, int64_t M, int64_t n) = nullptr;
  const float* dense = nullptr;
  int64_t ld = 0;
};

/// packed_sgemm(false, false, ...) with beta = 0 and B given by rows.
void packed_sgemm_rows(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const BRows& B, float* C,
                       int64_t ldc);

/// C[N] = alpha * a[K] @ B[K,N] + beta * C with B dense row-major: a single
/// row (batch-1 inference), bandwidth bound, so nothing is packed.
void row_times_matrix(int64_t N, int64_t K, float alpha, const float* a, const float* B, float beta, float* C);

}  // namespace fluidc::kernels::detail
