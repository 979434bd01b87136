// kernels/cpu/sgemm.h - fluidc's own packed fp32 GEMM: ahead-of-time compiled, so its first call costs no JIT.
//
// Private to the CPU kernels (matmul.cc is the caller).
#pragma once

#include <cstdint>

namespace fluidc::kernels::detail {

/// Row-major C[M,N] = alpha * op(A)[M,K] @ op(B)[K,N] + beta * C, where op
/// transposes when its flag is set; lda/ldb/ldc are the row strides of A, B
/// and C as stored. beta == 0 means C is only written (never read), as in
/// BLAS. Single-threaded; the packing buffers grow once per thread and are
/// then reused, so steady-state calls do not allocate.
void packed_sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                  int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

}  // namespace fluidc::kernels::detail
