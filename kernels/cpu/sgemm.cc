// kernels/cpu/sgemm.cc - packed fp32 GEMM (Goto/BLIS blocking) with a register-tiled micro-kernel.
//
// Why our own: oneDNN's sgemm generates its kernels with a JIT on first use,
// ~90 ms of a fresh process (measured with perf on the batch-256 MLP
// inference: 84% of the first run inside its one-time initialisation). This
// one is compiled ahead of time for AVX-512, AVX2+FMA and baseline x86-64
// (picked at first use: kernels/cpu/isa_clones.h), so a binary's first product runs at full speed.
//
// Structure: op(B) is packed into panels of kNR columns and op(A) into
// panels of kMR rows, per kKC-deep slice of K, so the micro-kernel reads
// both operands contiguously; it keeps a kMR x kNR tile of C in registers
// for the whole slice and touches C once per slice.
#include "kernels/cpu/sgemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "kernels/cpu/isa_clones.h"
#include "kernels/loop_hints.h"
#include "runtime/parallel.h"

namespace fluidc::kernels::detail {
namespace {

typedef float v16 __attribute__((vector_size(64)));
typedef float v16u __attribute__((vector_size(64), aligned(4)));  // same, at any float address

constexpr int kMR = 8;         // rows of the register tile: 8 x 3 accumulators (batch sizes are multiples of 8)
constexpr int kNR = 48;        // columns of the register tile: three 16-float vectors (8 x 48 measured
                               // 5-10% faster than 8 x 32 on the batch-512 MLP step: fewer uops per FMA)
constexpr int kNV = kNR / 16;  // vectors per row of the tile
constexpr int64_t kKC = 256;   // K slice: a kKC x kNR panel of B (48 KiB) stays in L1/L2
constexpr int64_t kMC = 16 * kMR;  // rows of A packed at once (kMC x kKC = 128 KiB, in L2); whole panels
constexpr int64_t kNC = 2048;  // columns of B packed at once (2 MiB, in L3)

typedef float v8 __attribute__((vector_size(32)));
typedef float v8u __attribute__((vector_size(32), aligned(4)));

/// Transposes the 8x8 block held in r[0..7] (row i = r[i]) in registers:
/// swap the off-diagonal 4x4 blocks, then the 2x2 blocks inside them, then
/// the single elements inside those.
__attribute__((always_inline)) inline void transpose8x8(v8 r[8]) {
  v8 t[8];
  for (int i = 0; i < 4; ++i) {
    t[i] = __builtin_shufflevector(r[i], r[i + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    t[i + 4] = __builtin_shufflevector(r[i], r[i + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
  for (int p : {0, 1, 4, 5}) {
    r[p] = __builtin_shufflevector(t[p], t[p + 2], 0, 1, 8, 9, 4, 5, 12, 13);
    r[p + 2] = __builtin_shufflevector(t[p], t[p + 2], 2, 3, 10, 11, 6, 7, 14, 15);
  }
  for (int p : {0, 2, 4, 6}) {
    t[p] = __builtin_shufflevector(r[p], r[p + 1], 0, 8, 2, 10, 4, 12, 6, 14);
    t[p + 1] = __builtin_shufflevector(r[p], r[p + 1], 1, 9, 3, 11, 5, 13, 7, 15);
  }
  for (int i = 0; i < 8; ++i) r[i] = t[i];
}

/// op(A)[i0:i0+mc, k0:k0+kc] -> panels of kMR rows, each stored k-major
/// (kMR values per k); rows past mc are zero so the kernel needs no tail.
__attribute__((always_inline)) inline void pack_a(bool ta, const float* A, int64_t lda, int64_t i0, int64_t mc,
                                                  int64_t k0, int64_t kc, float* out) {
  for (int64_t ip = 0; ip < mc; ip += kMR, out += kMR * kc) {
    const int64_t h = std::min<int64_t>(kMR, mc - ip);
    if (ta) {  // op(A)[i,k] = A[k,i]: a k-row of the panel is contiguous in A
      for (int64_t k = 0; k < kc; ++k) {
        const float* a = A + (k0 + k) * lda + i0 + ip;
        float* o = out + k * kMR;
        for (int64_t i = 0; i < h; ++i) o[i] = a[i];
        for (int64_t i = h; i < kMR; ++i) o[i] = 0.0f;
      }
      continue;
    }
    const float* rows = A + (i0 + ip) * lda + k0;
    int64_t k = 0;
    if (h == kMR) {  // whole panel: 8x8 blocks of A, transposed in registers, are 8 k-rows of the panel
      static_assert(kMR == 8, "the transposing pack assumes 8-row panels");
      for (; k + 8 <= kc; k += 8) {
        v8 r[8];
        for (int i = 0; i < 8; ++i) r[i] = *reinterpret_cast<const v8u*>(rows + i * lda + k);
        transpose8x8(r);
        for (int j = 0; j < 8; ++j) *reinterpret_cast<v8*>(out + (k + j) * kMR) = r[j];
      }
    }
    for (int64_t i = 0; i < kMR; ++i) {  // the rest: rows read contiguously, panel written strided
      const float* a = rows + i * lda;
      float* o = out + i;
      if (i < h) {
#pragma clang loop vectorize(disable)  // a vectorised strided store is a scatter: slower than scalar
        for (int64_t kk = k; kk < kc; ++kk) o[kk * kMR] = a[kk];
      } else {
#pragma clang loop vectorize(disable)
        for (int64_t kk = k; kk < kc; ++kk) o[kk * kMR] = 0.0f;
      }
    }
  }
}

/// Width of the packed B panel that starts `left` columns before the edge:
/// kNR, or at the edge the columns left rounded up to whole vectors, so a
/// narrow edge (a 7x7 conv output is 49 columns) is not padded to kNR.
inline int64_t panel_width(int64_t left) { return std::min<int64_t>(kNR, (left + 15) / 16 * 16); }

/// op(B)[k0:k0+kc, j0:j0+nc] -> panels of kNR columns (the last one
/// panel_width() wide), each stored k-major (its width of values per k);
/// columns past nc are zero.
__attribute__((always_inline)) inline void pack_b(bool tb, const float* B, int64_t ldb, int64_t k0, int64_t kc,
                                                  int64_t j0, int64_t nc, float* out) {
  for (int64_t jp = 0; jp < nc; jp += kNR) {
    const int64_t w = std::min<int64_t>(kNR, nc - jp), pw = panel_width(nc - jp);
    if (tb) {  // op(B)[k,j] = B[j,k]: kNR rows of B are read side by side, each cache line over 16 k
      const float* b = B + (j0 + jp) * ldb + k0;
      int64_t k = 0;
      if (w == kNR)  // whole panel: 8x8 blocks of B transposed in registers
        for (; k + 8 <= kc; k += 8)
          for (int64_t j = 0; j < kNR; j += 8) {
            v8 r[8];
            for (int i = 0; i < 8; ++i) r[i] = *reinterpret_cast<const v8u*>(b + (j + i) * ldb + k);
            transpose8x8(r);
            for (int i = 0; i < 8; ++i) *reinterpret_cast<v8*>(out + (k + i) * kNR + j) = r[i];
          }
      for (; k < kc; ++k) {
        float* o = out + k * pw;
#pragma clang loop vectorize(disable)  // a vectorised strided load is a gather: slower than scalar
        for (int64_t j = 0; j < w; ++j) o[j] = b[j * ldb + k];
        for (int64_t j = w; j < pw; ++j) o[j] = 0.0f;
      }
    } else {
      for (int64_t k = 0; k < kc; ++k) {
        const float* b = B + (k0 + k) * ldb + j0 + jp;
        float* o = out + k * pw;
        if (w == kNR) {  // the common case: whole-vector copies
          for (int h = 0; h < kNV; ++h) reinterpret_cast<v16*>(o)[h] = *reinterpret_cast<const v16u*>(b + 16 * h);
          continue;
        }
        for (int64_t j = 0; j < w; ++j) o[j] = b[j];
        for (int64_t j = w; j < pw; ++j) o[j] = 0.0f;
      }
    }
    out += pw * kc;
  }
}

/// pack_b for B made by rows: each row of the block is made once into
/// `row` (nc floats, stays in L1) and copied into the panels.
__attribute__((always_inline)) inline void pack_b_rows(const BRows& B, int64_t k0, int64_t kc, int64_t j0,
                                                       int64_t nc, float* out, float* row) {
  for (int64_t k = 0; k < kc; ++k) {
    B.fn(B.ctx, k0 + k, j0, nc, row);
    for (int64_t jp = 0; jp < nc; jp += kNR) {
      const int64_t w = std::min<int64_t>(kNR, nc - jp), pw = panel_width(nc - jp);
      float* o = out + jp * kc + k * pw;  // the panels before are all kNR wide
      const float* b = row + jp;
      if (w == kNR) {
        for (int h = 0; h < kNV; ++h) reinterpret_cast<v16*>(o)[h] = *reinterpret_cast<const v16u*>(b + 16 * h);
        continue;
      }
      for (int64_t j = 0; j < w; ++j) o[j] = b[j];
      for (int64_t j = w; j < pw; ++j) o[j] = 0.0f;
    }
  }
}

/// C[mr, nr] = alpha * (A panel @ packed B panel) + beta * C, for a tile of
/// at most kMR x 16*NV (mr/nr below that at the matrix's edges). The B panel
/// is 16*NV wide. A is either a packed panel (kMR values per k) or, when
/// kRowsA, kMR rows of A read in place `lda` apart: a product with few
/// columns uses each element of A once or twice, and packing it would cost
/// as much memory traffic as the multiply.
template <int NV, bool kRowsA>
__attribute__((always_inline)) inline void micro_kernel(int64_t kc, const float* a, int64_t lda, const float* b,
                                                        float* c, int64_t ldc, int64_t mr, int64_t nr, float alpha,
                                                        float beta) {
  v16 acc[kMR][NV] = {};
  // The C tile is read (or written) only after the whole K slice: start
  // bringing it in now.
  for (int64_t i = 0; i < mr; ++i) {
    __builtin_prefetch(c + i * ldc, 1);
    __builtin_prefetch(c + i * ldc + 16, 1);
  }
  constexpr int64_t a_step = kRowsA ? 1 : kMR;
  const int64_t a_row = kRowsA ? lda : 1;
  for (int64_t k = 0; k < kc; ++k, a += a_step, b += 16 * NV) {
    v16 bv[NV];
    for (int h = 0; h < NV; ++h) bv[h] = *reinterpret_cast<const v16*>(b + 16 * h);
#pragma clang loop unroll(full)  // the accumulators must live in registers
    for (int i = 0; i < kMR; ++i) {
      for (int h = 0; h < NV; ++h) acc[i][h] += a[i * a_row] * bv[h];
    }
  }
  if (mr == kMR && nr == 16 * NV) {
#pragma clang loop unroll(full)
    for (int i = 0; i < kMR; ++i)
      for (int h = 0; h < NV; ++h) {
        v16u* p = reinterpret_cast<v16u*>(c + i * ldc + 16 * h);
        *p = beta == 0.0f ? alpha * acc[i][h] : alpha * acc[i][h] + beta * *p;
      }
    return;
  }
  alignas(64) float tile[kMR][16 * NV];
  std::memcpy(tile, acc, sizeof tile);
  for (int64_t i = 0; i < mr; ++i)
    for (int64_t j = 0; j < nr; ++j) {
      float& dst = c[i * ldc + j];
      dst = beta == 0.0f ? alpha * tile[i][j] : alpha * tile[i][j] + beta * dst;
    }
}

/// The micro-kernel for a B panel `nr` columns wide (its packed width is
/// panel_width(nr)).
template <bool kRowsA>
__attribute__((always_inline)) inline void tile(int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                                                int64_t ldc, int64_t mr, int64_t nr, float alpha, float beta) {
  if (nr > 32) micro_kernel<3, kRowsA>(kc, a, lda, b, c, ldc, mr, nr, alpha, beta);
  else if (nr > 16) micro_kernel<2, kRowsA>(kc, a, lda, b, c, ldc, mr, nr, alpha, beta);
  else micro_kernel<1, kRowsA>(kc, a, lda, b, c, ldc, mr, nr, alpha, beta);
}

/// C[16 * V] = alpha * a[K] @ B[K, 16 * V] + beta * C: V column vectors
/// summed over all of K in registers, one store at the end (no C traffic
/// per row of B, and V independent FMA chains).
template <int V>
__attribute__((always_inline)) inline void row_columns(int64_t K, float alpha, const float* a, const float* B,
                                                       int64_t ldb, float beta, float* C) {
  typedef float v16 __attribute__((vector_size(64)));
  typedef float v16u __attribute__((vector_size(64), aligned(4)));
  v16 acc[V] = {};
  for (int64_t k = 0; k < K; ++k) {
    const float ak = alpha * a[k];
    const float* b = B + k * ldb;
#pragma clang loop unroll(full)
    for (int v = 0; v < V; ++v) acc[v] += ak * *reinterpret_cast<const v16u*>(b + 16 * v);
  }
#pragma clang loop unroll(full)
  for (int v = 0; v < V; ++v) {
    v16u* c = reinterpret_cast<v16u*>(C + 16 * v);
    *c = beta == 0.0f ? acc[v] : acc[v] + beta * *c;
  }
}

/// C[n] = alpha * a[K] @ B[K, n] + beta * C, B's rows ldb floats apart:
/// blocks of 8 column vectors (128 columns), then the remaining whole
/// vectors as one block, then single columns. Each C value sums its K
/// products in order. A row held in registers across K took 2.3x fewer
/// cycles than adding four rows of B into C per pass (the LSTM
/// recurrence's 48 x 192 product, OCR recogniser profile, 2026-11-28).
__attribute__((always_inline)) inline void row_block_body(int64_t n, int64_t K, float alpha, const float* a,
                                                          const float* B, int64_t ldb, float beta, float* C) {
  constexpr int kV = 8;
  int64_t j = 0;
  for (; j + 16 * kV <= n; j += 16 * kV) row_columns<kV>(K, alpha, a, B + j, ldb, beta, C + j);
  switch ((n - j) / 16) {
    case 7: row_columns<7>(K, alpha, a, B + j, ldb, beta, C + j); break;
    case 6: row_columns<6>(K, alpha, a, B + j, ldb, beta, C + j); break;
    case 5: row_columns<5>(K, alpha, a, B + j, ldb, beta, C + j); break;
    case 4: row_columns<4>(K, alpha, a, B + j, ldb, beta, C + j); break;
    case 3: row_columns<3>(K, alpha, a, B + j, ldb, beta, C + j); break;
    case 2: row_columns<2>(K, alpha, a, B + j, ldb, beta, C + j); break;
    case 1: row_columns<1>(K, alpha, a, B + j, ldb, beta, C + j); break;
    default: break;
  }
  j += (n - j) / 16 * 16;
  for (; j < n; ++j) {
    float acc = 0.0f;
    for (int64_t k = 0; k < K; ++k) acc += alpha * a[k] * B[k * ldb + j];
    C[j] = beta == 0.0f ? acc : acc + beta * C[j];
  }
}

FLUIDC_ISA_CLONES(void, row_block,
                  (int64_t n, int64_t K, float alpha, const float* a, const float* B, int64_t ldb, float beta,
                   float* C),
                  (n, K, alpha, a, B, ldb, beta, C))

/// Most slices one product is cut into (and so most threads one GEMM uses).
constexpr int64_t kMaxSlices = 64;

/// How many threads a product of `flops` may use: below ~1 MFLOP per
/// thread the hand-off costs more than it saves.
int64_t threads_for(double flops) {
  const int64_t most = std::max<int64_t>(1, static_cast<int64_t>(flops / 1e6));
  return std::min<int64_t>({rt::num_threads(), most, kMaxSlices});
}

/// 64-byte-aligned float scratch that grows and is kept.
struct PackBuffer {
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> data;
  int64_t size = 0;
  float* get(int64_t n) {
    if (n > size) {
      data.reset(static_cast<float*>(std::aligned_alloc(64, ((n * sizeof(float) + 63) / 64) * 64)));
      size = n;
    }
    return data.get();
  }
};

/// The packing buffers of slice `slot` of a product. Owned by the slice,
/// not the thread: which thread runs a slice varies from call to call, and
/// a thread-owned buffer would then grow again in the middle of training.
/// Slices of one product run at the same time but never share a slot.
struct PackBuffers {
  PackBuffer a, b, row;
};
PackBuffers& pack_buffers(int64_t slot) {
  static PackBuffers slots[kMaxSlices];
  return slots[slot];
}

/// The blocked product over C[M, N]; B is op(B) from B/ldb/tb, or made by
/// rows when `rows` is set (then tb is false).
__attribute__((always_inline)) inline void sgemm_blocked_body(int64_t slot, bool ta, bool tb, int64_t M, int64_t N,
                                                              int64_t K, float alpha, const float* A, int64_t lda,
                                                              const float* B, int64_t ldb, float beta, float* C,
                                                              int64_t ldc, const BRows* rows) {
  PackBuffers& bufs = pack_buffers(slot);
  float* ap = bufs.a.get(kMC * kKC);
  float* bp = bufs.b.get(kKC * ((std::min(N, kNC) + kNR - 1) / kNR) * kNR);
  if (rows && rows->dense) {  // B in place: packed as any B, with the caller's epilogue
    B = rows->dense;
    ldb = rows->ld;
  }
  const bool made_by_rows = rows && !rows->dense;
  float* row = made_by_rows ? bufs.row.get(kNC) : nullptr;
  // Few columns (late conv layers: 7x7 or 14x14 outputs): each element of
  // A feeds at most two column panels, so the kernel reads A in place.
  const bool rows_a = !ta && N <= 2 * kNR;
  // K in equal slices of at most kKC (a conv's K = 576 as 3 x 192, not
  // 256 + 256 + 64: a shallow last slice spends as much on C as on FMAs).
  const int64_t kslice = (K + (K + kKC - 1) / kKC - 1) / ((K + kKC - 1) / kKC);
  for (int64_t jc = 0; jc < N; jc += kNC) {
    const int64_t nc = std::min(kNC, N - jc);
    for (int64_t pc = 0; pc < K; pc += kslice) {
      const int64_t kc = std::min(kslice, K - pc);
      if (made_by_rows) pack_b_rows(*rows, pc, kc, jc, nc, bp, row);
      else pack_b(tb, B, ldb, pc, kc, jc, nc, bp);
      const float slice_beta = pc == 0 ? beta : 1.0f;  // later slices add to the first's result
      for (int64_t ic = 0; ic < M; ic += kMC) {
        const int64_t mc = std::min(kMC, M - ic);
        if (rows_a && mc % kMR == 0) {
          for (int64_t jr = 0; jr < nc; jr += kNR)
            for (int64_t ir = 0; ir < mc; ir += kMR)
              tile<true>(kc, A + (ic + ir) * lda + pc, lda, bp + jr * kc, C + (ic + ir) * ldc + jc + jr, ldc, kMR,
                         std::min<int64_t>(kNR, nc - jr), alpha, slice_beta);
          continue;
        }
        pack_a(ta, A, lda, ic, mc, pc, kc, ap);
        for (int64_t jr = 0; jr < nc; jr += kNR)
          for (int64_t ir = 0; ir < mc; ir += kMR)
            tile<false>(kc, ap + ir * kc, 0, bp + jr * kc, C + (ic + ir) * ldc + jc + jr, ldc,
                        std::min<int64_t>(kMR, mc - ir), std::min<int64_t>(kNR, nc - jr), alpha, slice_beta);
      }
    }
    // Through a pointer, so the caller's code runs as compiled (not as this ISA clone).
    if (rows && rows->done) rows->done(rows->ctx, C + jc, ldc, M, nc);
  }
}

FLUIDC_ISA_CLONES(void, sgemm_blocked,
                  (int64_t slot, bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                   int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc, const BRows* rows),
                  (slot, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, rows))

}  // namespace

void row_times_matrix(int64_t N, int64_t K, float alpha, const float* a, const float* B, float beta, float* C) {
  // Memory bound: each thread streams its own columns of B (the cores' cache
  // bandwidth adds up). Slices are whole cache lines of C.
  // It streams 4 bytes of B per 2 flops where a GEMM does hundreds of flops
  // per byte: worth sharing from ~64K elements of B on.
  const int64_t parts = threads_for(2.0 * N * K * 8);
  if (parts > 1 && N >= 32 * parts) {
    rt::parallel_slices(N, parts, 16, [&](int64_t, int64_t j0, int64_t j1) {
      row_block(j1 - j0, K, alpha, a, B + j0, N, beta, C + j0);
    });
    return;
  }
  row_block(N, K, alpha, a, B, N, beta, C);
}

void packed_sgemm_rows(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const BRows& B, float* C,
                       int64_t ldc) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    for (int64_t i = 0; i < M; ++i) std::fill(C + i * ldc, C + i * ldc + N, 0.0f);
    return;
  }
  // As packed_sgemm, but only cut by columns (B's rows are made per slice).
  const int64_t parts = threads_for(2.0 * M * N * K);
  if (parts > 1 && N >= 2 * kNR * parts) {
    rt::parallel_slices(N, parts, kNR, [&](int64_t t, int64_t j0, int64_t j1) {
      const BRows* b = &B;
      // The slice's columns are j0.. of the whole: shift the row maker's origin.
      struct Shifted {
        const BRows* base;
        int64_t j0;
      } sh{b, j0};
      BRows shifted{[](const void* ctx, int64_t k, int64_t j, int64_t n, float* dst) {
                      const Shifted* s = static_cast<const Shifted*>(ctx);
                      s->base->fn(s->base->ctx, k, s->j0 + j, n, dst);
                    },
                    &sh};
      if (B.dense) {
        shifted.dense = B.dense + j0;
        shifted.ld = B.ld;
      }
      if (B.done)
        shifted.done = [](const void* ctx, float* c, int64_t ldc, int64_t m, int64_t n) {
          const Shifted* s = static_cast<const Shifted*>(ctx);
          s->base->done(s->base->ctx, c, ldc, m, n);
        };
      sgemm_blocked(t, false, false, M, j1 - j0, K, 1.0f, A, lda, nullptr, 0, 0.0f, C + j0, ldc, &shifted);
    });
    return;
  }
  sgemm_blocked(0, false, false, M, N, K, 1.0f, A, lda, nullptr, 0, 0.0f, C, ldc, &B);
}

void packed_sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                  int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {  // nothing to multiply: C = beta * C
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[i * ldc + j];
    return;
  }
  // With several threads, C is cut into independent slices, one per thread,
  // each a whole blocked GEMM with its own packing: no synchronisation but
  // the final join. Every slice packs all of the operand it shares (A when
  // cut by columns, B by rows), so cut along the longer side.
  const int64_t parts = threads_for(2.0 * M * N * K);
  const bool rows_fit = M >= 2 * kMR * parts, cols_fit = N >= 2 * kNR * parts;
  if (parts > 1 && cols_fit && (M <= N || !rows_fit)) {
    rt::parallel_slices(N, parts, kNR, [&](int64_t t, int64_t j0, int64_t j1) {
      sgemm_blocked(t, ta, tb, M, j1 - j0, K, alpha, A, lda, tb ? B + j0 * ldb : B + j0, ldb, beta, C + j0, ldc,
                    nullptr);
    });
  } else if (parts > 1 && rows_fit) {
    rt::parallel_slices(M, parts, kMR, [&](int64_t t, int64_t i0, int64_t i1) {
      sgemm_blocked(t, ta, tb, i1 - i0, N, K, alpha, ta ? A + i0 : A + i0 * lda, lda, B, ldb, beta, C + i0 * ldc,
                    ldc, nullptr);
    });
  } else {
    sgemm_blocked(0, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, nullptr);
  }
}

}  // namespace fluidc::kernels::detail
