// bench/conv_layout_probe.cc - what a direct 3x3 conv with output channels in vectors reaches, output NCHW16c or NCHW.
// usage: conv_layout_probe C M H W [repeats]   (C % 16 == 0, M % 32 == 0, W % 16 == 0; one thread)
// prints, for each layout pair, "<in->out> <median ms> <GFLOP/s> <max abs error>" against a float64 reference.
//
// A probe for the kernel design, not a kernel of fluidc: each register tile holds 12 output positions x 32
// output channels (two vectors per position, 24 accumulators); per input channel and tap it loads two
// weight vectors and broadcasts 12 input values, so the FMAs, not the loads, bound it. The input is read
// as zero-padded planes, NCHW or blocked by 16 channels. The three lines:
//   nchw16c->nchw16c  input blocked too: per tap, the 16 channels of a block at constant offsets from one
//                     pointer, each accumulator stored whole (the layout ONNX Runtime keeps between convs);
//   nchw->nchw16c     NCHW input through a table of tap offsets, output blocked;
//   nchw->nchw        the same, the tiles of a 48-column run transposed to channel rows by 16x16 register
//                     transposes: the layout fluidc's other ops read.
// The first line against the last is what an NCHW16c layout kept across ops (a layout pass) would gain
// over a kernel that takes and gives NCHW.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

typedef float v16 __attribute__((vector_size(64)));
typedef float v16u __attribute__((vector_size(64), aligned(4)));

constexpr int kPositions = 12;  // output positions per register tile
constexpr int kRun = 48;        // columns per run (a whole number of tiles and of 16-column transposes)

/// Row i of r becomes column i (r[i] lane j = element (i, j)).
__attribute__((always_inline)) inline void transpose16(v16 r[16]) {
  v16 t[16];
  for (int i = 0; i < 8; ++i) {
    t[i] = __builtin_shufflevector(r[i], r[i + 8], 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
    t[i + 8] = __builtin_shufflevector(r[i], r[i + 8], 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
  }
  for (int b = 0; b < 16; b += 8)
    for (int i = 0; i < 4; ++i) {
      r[b + i] = __builtin_shufflevector(t[b + i], t[b + i + 4], 0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25,
                                         26, 27);
      r[b + i + 4] = __builtin_shufflevector(t[b + i], t[b + i + 4], 4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28,
                                             29, 30, 31);
    }
  for (int b = 0; b < 16; b += 4)
    for (int i = 0; i < 2; ++i) {
      t[b + i] = __builtin_shufflevector(r[b + i], r[b + i + 2], 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13,
                                         28, 29);
      t[b + i + 2] = __builtin_shufflevector(r[b + i], r[b + i + 2], 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14,
                                             15, 30, 31);
    }
  for (int b = 0; b < 16; b += 2) {
    r[b] = __builtin_shufflevector(t[b], t[b + 1], 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30);
    r[b + 1] = __builtin_shufflevector(t[b], t[b + 1], 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31);
  }
}

/// out[q][0..32) for the 12 positions at x (padded planes), summed over K taps: tap t reads x + offset[t]
/// and the 32 weights at w + 32 t.
template <int P>
__attribute__((always_inline)) inline void tile(const float* x, const int32_t* offset, int64_t K, const float* w,
                                                float* out) {
  v16 a0[P] = {}, a1[P] = {};
#pragma clang loop unroll(disable)  // unrolled, clang keeps the broadcasts of neighbouring taps and spills
  for (int64_t t = 0; t < K; ++t) {
    const float* src = x + offset[t];
    const v16 w0 = *reinterpret_cast<const v16u*>(w + 32 * t), w1 = *reinterpret_cast<const v16u*>(w + 32 * t + 16);
#pragma clang loop unroll(full)
    for (int q = 0; q < P; ++q) {
      const float s = src[q];
      a0[q] += s * w0;
      a1[q] += s * w1;
    }
  }
  for (int q = 0; q < P; ++q) {
    *reinterpret_cast<v16*>(out + 32 * q) = a0[q];
    *reinterpret_cast<v16*>(out + 32 * q + 16) = a1[q];
  }
}

/// The same tile with the input blocked as [C/16][Hp][Wp][16]: for each tap, the 16 channels of a block
/// are the inner loop at constant offsets from one pointer (no offset table, no address arithmetic
/// per tap). xb: the block-0 input at the tile's first position and tap (0, 0); w as in tile().
template <int P>
__attribute__((always_inline)) inline void tile_blocked(const float* xb, int64_t blocks, int64_t Hp, int64_t Wp,
                                                        const float* w, float* out) {
  v16 a0[P] = {}, a1[P] = {};
  for (int64_t cb = 0; cb < blocks; ++cb)
    for (int64_t kh = 0; kh < 3; ++kh)
      for (int64_t kw = 0; kw < 3; ++kw) {
        const float* src = xb + ((cb * Hp + kh) * Wp + kw) * 16;
        const float* wt = w + ((cb * 16) * 9 + kh * 3 + kw) * 32;
#pragma clang loop unroll(disable)  // unrolled 16x, the loop body outgrew the decoded-uop cache: 10% slower
        for (int ci = 0; ci < 16; ++ci) {
          const v16 w0 = *reinterpret_cast<const v16u*>(wt + ci * 9 * 32),
                    w1 = *reinterpret_cast<const v16u*>(wt + ci * 9 * 32 + 16);
#pragma clang loop unroll(full)
          for (int q = 0; q < P; ++q) {
            const float v = src[q * 16 + ci];
            a0[q] += v * w0;
            a1[q] += v * w1;
          }
        }
      }
  for (int q = 0; q < P; ++q) {
    *reinterpret_cast<v16*>(out + 32 * q) = a0[q];
    *reinterpret_cast<v16*>(out + 32 * q + 16) = a1[q];
  }
}

/// float storage aligned to a cache line: the weight vectors must not straddle two (a split load per
/// vector cost ~10% here).
struct AlignedFloats {
  std::vector<float> raw;
  float* at = nullptr;
  void assign(size_t n, float v) {
    raw.assign(n + 16, v);
    at = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(raw.data()) + 63) & ~uintptr_t(63));
  }
  float* data() { return at; }
  const float* data() const { return at; }
  float& operator[](size_t i) { return at[i]; }
  float operator[](size_t i) const { return at[i]; }
};

struct Problem {
  int64_t C, M, H, W, Hp, Wp;
  AlignedFloats padded, blocked, packed;
  std::vector<float> weights;  // padded [C][Hp][Wp], blocked the same as [C/16][Hp][Wp][16];
                                                       // packed [M/32][C*9][32]; weights [M][C][9]
  std::vector<int32_t> offset;                 // [C*9]
};

enum class Layout { kBlockedInOut, kBlockedOut, kPlain };  // the input/output layouts of convolve

/// kBlockedInOut: x and y blocked ([C/16][H][W][16]); kBlockedOut: x NCHW, y blocked; kPlain: both NCHW.
__attribute__((target("avx512f"), noinline)) void convolve(const Problem& p, Layout layout, float* y) {
  const bool blocked = layout != Layout::kPlain;
  alignas(64) float run[kRun * 32];
  const int64_t K = p.C * 9;
  for (int64_t ob = 0; ob < p.M; ob += 32)
    for (int64_t r = 0; r < p.H; ++r)
      for (int64_t c0 = 0; c0 < p.W; c0 += kRun) {
        const int64_t n = std::min<int64_t>(kRun, p.W - c0);
        // Tiles of 12 positions, then of 4 (W % 16 == 0: every run is covered exactly).
        for (int64_t q = 0; q < n;) {
          const float* w = p.packed.data() + ob * K;
          const bool wide = n - q >= kPositions;
          if (layout == Layout::kBlockedInOut) {
            const float* xb = p.blocked.data() + (r * p.Wp + c0 + q) * 16;
            if (wide) tile_blocked<kPositions>(xb, p.C / 16, p.Hp, p.Wp, w, run + 32 * q);
            else tile_blocked<4>(xb, p.C / 16, p.Hp, p.Wp, w, run + 32 * q);
          } else {
            const float* x = p.padded.data() + r * p.Wp + c0 + q;
            if (wide) tile<kPositions>(x, p.offset.data(), K, w, run + 32 * q);
            else tile<4>(x, p.offset.data(), K, w, run + 32 * q);
          }
          q += wide ? kPositions : 4;
        }
        for (int cb = 0; cb < 2; ++cb) {
          const int64_t m = ob + 16 * cb;
          if (blocked) {
            for (int64_t q = 0; q < n; ++q)
              *reinterpret_cast<v16u*>(y + ((m / 16 * p.H + r) * p.W + c0 + q) * 16) =
                  *reinterpret_cast<const v16*>(run + 32 * q + 16 * cb);
            continue;
          }
          for (int64_t g = 0; g + 16 <= n; g += 16) {
            v16 v[16];
            for (int i = 0; i < 16; ++i) v[i] = *reinterpret_cast<const v16*>(run + 32 * (g + i) + 16 * cb);
            transpose16(v);
            for (int j = 0; j < 16; ++j) *reinterpret_cast<v16u*>(y + ((m + j) * p.H + r) * p.W + c0 + g) = v[j];
          }
        }
      }
}

Problem make_problem(int64_t C, int64_t M, int64_t H, int64_t W) {
  Problem p{C, M, H, W, H + 2, W + 2 + kPositions, {}, {}, {}, {}, {}};
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  p.padded.assign(C * p.Hp * p.Wp + 64, 0.0f);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t w = 0; w < W; ++w) p.padded[(c * p.Hp + h + 1) * p.Wp + w + 1] = u(rng);
  p.blocked.assign(C * p.Hp * p.Wp + 64, 0.0f);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t i = 0; i < p.Hp * p.Wp; ++i) p.blocked[(c / 16 * p.Hp * p.Wp + i) * 16 + c % 16] = p.padded[c * p.Hp * p.Wp + i];
  p.weights.resize(M * C * 9);
  for (auto& v : p.weights) v = u(rng);
  p.packed.assign(M * C * 9, 0.0f);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t t = 0; t < C * 9; ++t) p.packed[(m / 32 * C * 9 + t) * 32 + m % 32] = p.weights[m * C * 9 + t];
  p.offset.resize(C * 9);
  for (int64_t c = 0; c < C; ++c)
    for (int t = 0; t < 9; ++t) p.offset[c * 9 + t] = static_cast<int32_t>((c * p.Hp + t / 3) * p.Wp + t % 3);
  return p;
}

double reference(const Problem& p, int64_t m, int64_t h, int64_t w) {
  double s = 0;
  for (int64_t c = 0; c < p.C; ++c)
    for (int t = 0; t < 9; ++t)
      s += static_cast<double>(p.padded[(c * p.Hp + h + t / 3) * p.Wp + w + t % 3]) * p.weights[(m * p.C + c) * 9 + t];
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: conv_layout_probe C M H W [repeats]\n");
    return 2;
  }
  const int64_t C = std::atol(argv[1]), M = std::atol(argv[2]), H = std::atol(argv[3]), W = std::atol(argv[4]);
  const int reps = argc > 5 ? std::max(1, std::atoi(argv[5])) : 200;
  if (C <= 0 || M <= 0 || H <= 0 || W <= 0 || C % 16 || M % 32 || W % 16) {
    std::fprintf(stderr, "conv_layout_probe: needs C %% 16 == 0, M %% 32 == 0, W %% 16 == 0\n");
    return 2;
  }
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f")) {
    std::fprintf(stderr, "conv_layout_probe: needs AVX-512\n");
    return 2;
  }
  const Problem p = make_problem(C, M, H, W);
  std::vector<float> y(M * H * W);
  for (Layout layout : {Layout::kBlockedInOut, Layout::kBlockedOut, Layout::kPlain}) {
    const bool blocked = layout != Layout::kPlain;
    std::vector<double> secs;
    for (int r = 0; r < reps + 2; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      convolve(p, layout, y.data());
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r >= 2) secs.push_back(s);
    }
    double err = 0;
    for (int64_t m = 0; m < M; ++m)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w) {
          const float got = blocked ? y[((m / 16 * H + h) * W + w) * 16 + m % 16] : y[(m * H + h) * W + w];
          err = std::max(err, std::fabs(got - reference(p, m, h, w)));
        }
    std::sort(secs.begin(), secs.end());
    const double med = secs[secs.size() / 2];
    const char* name = layout == Layout::kBlockedInOut ? "nchw16c->nchw16c" : blocked ? "nchw->nchw16c" : "nchw->nchw";
    std::printf("%s %.4f %.1f %.2e\n", name, med * 1e3, 2.0 * C * 9 * M * H * W / med / 1e9,
                err);
  }
  return 0;
}
