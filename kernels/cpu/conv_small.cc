// kernels/cpu/conv_small.cc - direct fp32 convolution at stride 1 for few input taps or few output channels: vector loops over output columns.
#include "kernels/cpu/conv_small.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/conv_epilogue.h"
#include "kernels/cpu/conv_layout.h"
#include "kernels/cpu/isa_clones.h"
#include "runtime/parallel.h"

namespace fluidc::kernels::detail {
namespace {

constexpr int kLanes = 16;   // output columns per vector
constexpr int kBlock = 8;    // output channels summed together
constexpr int kBlockVectors = 2;  // column vectors summed together (forward_block)
constexpr int64_t kMaxTaps = 64;

struct Dims {
  int64_t C, M, H, W, OH, OW, KH, KW, PH, PW, Hp, Wp, taps;
};

Dims dims_of(const shapes::ConvGeometry& g) {
  Dims d{};
  d.C = g.C, d.M = g.M, d.H = g.in[1], d.W = g.in[2], d.OH = g.out[1], d.OW = g.out[2];
  d.KH = g.k[1], d.KW = g.k[2], d.PH = g.pad[1], d.PW = g.pad[2];
  d.Hp = d.OH + d.KH - 1, d.Wp = d.OW + d.KW - 1;  // what the outputs read, padding included
  d.taps = d.C * d.KH * d.KW;
  return d;
}

// Output channels the one-channel kernel takes (forward_rows_single), and
// the column vectors it sums at once: independent chains of FMAs.
constexpr int64_t kSingleMaxChannels = 4;
constexpr int kSingleVectors = 4;

// The padded planes' size: kLanes * max(kSingleVectors, kBlockVectors)
// floats of slack, so a row's last vectors may read past the plane (their
// lanes beyond OW are never stored).
int64_t padded_size(const Dims& d) { return d.C * d.Hp * d.Wp + kLanes * std::max(kSingleVectors, kBlockVectors); }

// Image x[C, H, W] into p[C, Hp, Wp] with zeros around it (rows or columns
// of x beyond what the outputs read are left out).
void pad_image(const Dims& d, const float* x, float* p) {
  std::fill(p, p + padded_size(d), 0.0f);
  for (int64_t c = 0; c < d.C; ++c)
    for (int64_t h = 0; h < d.H; ++h) {
      const int64_t ph = h + d.PH;
      if (ph < 0 || ph >= d.Hp) continue;
      const int64_t w0 = std::max<int64_t>(0, -d.PW), w1 = std::min(d.W, d.Wp - d.PW);
      if (w1 > w0) std::copy(x + (c * d.H + h) * d.W + w0, x + (c * d.H + h) * d.W + w1, p + (c * d.Hp + ph) * d.Wp + d.PW + w0);
    }
}

// Vectors of kLanes floats (the compiler's vector extension: one zmm with
// AVX-512, several narrower registers on the other copies). Written with
// plain arrays, clang 14 vectorised the channel loop with gathers instead.
typedef float v16 __attribute__((vector_size(64)));
typedef float v16u __attribute__((vector_size(64), aligned(4)));
typedef int32_t i16 __attribute__((vector_size(64)));

[[gnu::always_inline]] inline v16 load(const float* p) { return *reinterpret_cast<const v16u*>(p); }

// Stores the first n lanes of v at dst: one vector store when all kLanes
// are wanted (an output row's inner vectors), lane by lane at its end.
[[gnu::always_inline]] inline void store_lanes(const v16& v, int64_t n, float* dst) {
  if (n == kLanes) {
    *reinterpret_cast<v16u*>(dst) = v;
    return;
  }
  float out[kLanes];
  std::memcpy(out, &v, sizeof out);
  std::copy(out, out + n, dst);
}

// Output rows [oh0, oh1) of one image's output channels [m0, m0 + mb) from
// its padded planes; wb holds the block's weights as [taps][kBlock] (zeros
// past mb), y is the image's output. Tap t (c, kh, kw) is read at
// offset[t] = (c * Hp + kh) * Wp + kw (one table lookup per tap ran 5%
// faster than nested c/kh/kw loops, bench/conv_rate's 3 -> 16 layer), so
// each output sums its taps in the filter's order. Each step sums kBlock
// channels over kBlockVectors column vectors: every input vector loaded
// feeds kBlock FMAs and every weight broadcast kBlockVectors.
[[gnu::always_inline]] inline void forward_block_body(const Dims& d, const float* p, const int64_t* offset,
                                                      const float* wb, int64_t m0, int64_t mb, int64_t oh0,
                                                      int64_t oh1, float* y) {
  constexpr int64_t kStep = kLanes * kBlockVectors;
  for (int64_t oh = oh0; oh < oh1; ++oh)
    for (int64_t ow0 = 0; ow0 < d.OW; ow0 += kStep) {
      v16 acc[kBlock][kBlockVectors] = {};
      const float* row = p + (oh * d.Wp + ow0);
      const float* wt = wb;
      for (int64_t t = 0; t < d.taps; ++t, wt += kBlock) {
        const float* tap = row + offset[t];
        v16 s[kBlockVectors];
#pragma clang loop unroll(full)
        for (int j = 0; j < kBlockVectors; ++j) s[j] = load(tap + j * kLanes);
#pragma clang loop unroll(full)
        for (int m = 0; m < kBlock; ++m)
#pragma clang loop unroll(full)
          for (int j = 0; j < kBlockVectors; ++j) acc[m][j] += wt[m] * s[j];
      }
      // Unrolled with constant indices: a loop to mb would make acc an array
      // in memory, its FMAs stored and reloaded every tap.
#pragma clang loop unroll(full)
      for (int m = 0; m < kBlock; ++m)
#pragma clang loop unroll(full)
        for (int j = 0; j < kBlockVectors; ++j) {
          const int64_t start = ow0 + j * kLanes, n = std::min<int64_t>(kLanes, d.OW - start);
          if (m < mb && n > 0) store_lanes(acc[m][j], n, y + ((m0 + m) * d.OH + oh) * d.OW + start);
        }
    }
}
FLUIDC_ISA_CLONES(void, forward_block,
                  (const Dims& d, const float* p, const int64_t* offset, const float* wb, int64_t m0, int64_t mb,
                   int64_t oh0, int64_t oh1, float* y),
                  (d, p, offset, wb, m0, mb, oh0, oh1, y))

// Output rows [oh0, oh1) of one output channel (w: its taps) from an image's
// padded planes, kSingleVectors column vectors at a time. For a conv with
// one to a few output channels and many taps (a detection or segmentation
// head's last 3x3, 16+ channels in), where forward_block would spend most of
// its kBlock lanes on zeros and im2col copies every input row once per tap.
// Each output sums its taps in the filter's order (c, kh, kw), as forward_block.
[[gnu::always_inline]] inline void forward_rows_single_body(const Dims& d, const float* p, const float* w, int64_t oh0,
                                                            int64_t oh1, float* y) {
  constexpr int64_t kStep = kLanes * kSingleVectors;
  for (int64_t oh = oh0; oh < oh1; ++oh)
    for (int64_t ow0 = 0; ow0 < d.OW; ow0 += kStep) {
      v16 acc[kSingleVectors] = {};
      const float* row = p + (oh * d.Wp + ow0);
      const float* wt = w;
      for (int64_t c = 0; c < d.C; ++c)
        for (int64_t kh = 0; kh < d.KH; ++kh) {
          const float* tap_row = row + (c * d.Hp + kh) * d.Wp;
          for (int64_t kw = 0; kw < d.KW; ++kw, ++wt) {
            const float wv = *wt;
#pragma clang loop unroll(full)
            for (int j = 0; j < kSingleVectors; ++j) acc[j] += wv * load(tap_row + kw + j * kLanes);
          }
        }
      for (int j = 0; j < kSingleVectors; ++j) {
        const int64_t start = ow0 + j * kLanes, n = std::min<int64_t>(kLanes, d.OW - start);
        if (n <= 0) break;
        store_lanes(acc[j], n, y + oh * d.OW + start);
      }
    }
}
FLUIDC_ISA_CLONES(void, forward_rows_single,
                  (const Dims& d, const float* p, const float* w, int64_t oh0, int64_t oh1, float* y),
                  (d, p, w, oh0, oh1, y))

// For tap t (c, kh, kw) and channels [m0, m0 + mb): the sum over the image
// of dyp (dy with rows padded to a whole number of vectors) times the input
// under the tap, added to dw.
[[gnu::always_inline]] inline void filter_grad_tap_body(const Dims& d, const float* p, const float* dyp, int64_t owr,
                                                        int64_t t, int64_t m0, int64_t mb, float* dw) {
  const int64_t c = t / (d.KH * d.KW), kh = t / d.KW % d.KH, kw = t % d.KW;
  // Lanes past OW read inputs no output of the row uses: they are cleared
  // (not multiplied by a zero dy, which an infinite input would make NaN).
  i16 lane, tail;
  for (int l = 0; l < kLanes; ++l) lane[l] = l;
  tail = lane < static_cast<int32_t>(d.OW - (owr - kLanes));
  const float* g[kBlock];
  for (int m = 0; m < kBlock; ++m) g[m] = dyp + (std::min<int64_t>(m, mb - 1) + m0) * d.OH * owr;
  v16 acc[kBlock] = {};
  for (int64_t oh = 0; oh < d.OH; ++oh)
    for (int64_t ow0 = 0; ow0 < owr; ow0 += kLanes) {
      v16 v = load(p + (c * d.Hp + oh + kh) * d.Wp + ow0 + kw);
      if (ow0 + kLanes > d.OW) {
        i16 bits;
        std::memcpy(&bits, &v, sizeof bits);
        bits &= tail;
        std::memcpy(&v, &bits, sizeof v);
      }
#pragma clang loop unroll(full)
      for (int m = 0; m < kBlock; ++m) acc[m] += load(g[m] + oh * owr + ow0) * v;
    }
  for (int64_t m = 0; m < mb; ++m) {
    float lanes[kLanes];
    std::memcpy(lanes, &acc[m], sizeof lanes);
    float s = 0.0f;
    for (int l = 0; l < kLanes; ++l) s += lanes[l];
    dw[(m0 + m) * d.taps + t] += s;
  }
}
FLUIDC_ISA_CLONES(void, filter_grad_tap,
                  (const Dims& d, const float* p, const float* dyp, int64_t owr, int64_t t, int64_t m0, int64_t mb,
                   float* dw),
                  (d, p, dyp, owr, t, m0, mb, dw))

}  // namespace

// A 1x1 window from 8 input channels on is left to the GEMM: the image is
// already its right-hand operand (no im2col), and the packed GEMM ran
// MobileNetV2's 24 -> 144 channel 1x1 at 56x56 at 233 GFLOP/s against this
// kernel's 62 (bench/conv_rate, 1 thread, 2026-11-27).
bool small_conv_fits(const shapes::ConvGeometry& g) {
  const bool gemm_pointwise = g.k[1] == 1 && g.k[2] == 1 && g.C >= 8;
  return g.nsp == 2 && g.groups == 1 && g.stride[1] == 1 && g.stride[2] == 1 && g.dil[1] == 1 && g.dil[2] == 1 &&
         g.C * g.k[1] * g.k[2] <= kMaxTaps && !gemm_pointwise && g.out[2] >= 8 && g.M > 0 && g.N > 0;
}

namespace {

// small_conv_forward's second form: one output channel at a time.
bool single_channel_fits(const shapes::ConvGeometry& g) {
  return g.nsp == 2 && g.groups == 1 && g.stride[1] == 1 && g.stride[2] == 1 && g.dil[1] == 1 && g.dil[2] == 1 &&
         g.C * g.k[1] * g.k[2] > kMaxTaps && g.out[2] >= kLanes && g.M > 0 && g.M <= kSingleMaxChannels && g.N > 0;
}

// Output rows per task: a band of 8 rows of a few channels is a task of
// tens of microseconds at the first layers' widths, whose output is still in
// cache for the epilogue.
constexpr int64_t kRowsPerTask = 8;

void single_channel_forward(const shapes::ConvGeometry& g, const float* x, const float* w, float* y,
                            const ConvEpilogue<float>& ep) {
  const Dims d = dims_of(g);
  const int64_t bands = (d.OH + kRowsPerTask - 1) / kRowsPerTask, plane = d.OH * d.OW;
  float* p = conv_buffer<float>(ConvBuf::kPlaneIn, padded_size(d));
  for (int64_t n = 0; n < g.N; ++n) {
    pad_image(d, x + n * d.C * d.H * d.W, p);
    float* yn = y + n * d.M * plane;
    rt::parallel_for(d.M * bands, [&](int64_t i) {
      const int64_t m = i / bands, oh0 = i % bands * kRowsPerTask, oh1 = std::min(oh0 + kRowsPerTask, d.OH);
      forward_rows_single(d, p, w + m * d.taps, oh0, oh1, yn + m * plane);
      if (!ep.empty()) ep.rows(yn + m * plane + oh0 * d.OW, plane, m, 1, (oh1 - oh0) * d.OW);
    });
  }
}

}  // namespace

bool small_conv_forward_fits(const shapes::ConvGeometry& g) { return single_channel_fits(g) || small_conv_fits(g); }

void small_conv_forward(const shapes::ConvGeometry& g, const float* x, const float* w, float* y,
                        const ConvEpilogue<float>& ep) {
  if (single_channel_fits(g)) return single_channel_forward(g, x, w, y, ep);
  const Dims d = dims_of(g);
  const int64_t blocks = (d.M + kBlock - 1) / kBlock, bands = (d.OH + kRowsPerTask - 1) / kRowsPerTask;
  const int64_t plane = d.OH * d.OW;
  // The weights as [block][taps][kBlock], zeros past M: the inner loop reads one row per tap.
  float* wb = conv_buffer<float>(ConvBuf::kWeights, blocks * d.taps * kBlock);
  std::fill(wb, wb + blocks * d.taps * kBlock, 0.0f);
  for (int64_t m = 0; m < d.M; ++m)
    for (int64_t t = 0; t < d.taps; ++t) wb[(m / kBlock * d.taps + t) * kBlock + m % kBlock] = w[m * d.taps + t];
  int64_t offset[kMaxTaps];
  for (int64_t c = 0; c < d.C; ++c)
    for (int64_t kh = 0; kh < d.KH; ++kh)
      for (int64_t kw = 0; kw < d.KW; ++kw) offset[(c * d.KH + kh) * d.KW + kw] = (c * d.Hp + kh) * d.Wp + kw;
  float* p = conv_buffer<float>(ConvBuf::kPlaneIn, padded_size(d));
  for (int64_t n = 0; n < g.N; ++n) {
    pad_image(d, x + n * d.C * d.H * d.W, p);
    float* yn = y + n * d.M * plane;
    rt::parallel_for(blocks * bands, [&](int64_t i) {
      const int64_t b = i / bands, oh0 = i % bands * kRowsPerTask, oh1 = std::min(oh0 + kRowsPerTask, d.OH);
      const int64_t m0 = b * kBlock, mb = std::min<int64_t>(kBlock, d.M - m0);
      forward_block(d, p, offset, wb + b * d.taps * kBlock, m0, mb, oh0, oh1, yn);
      if (!ep.empty()) ep.rows(yn + m0 * plane + oh0 * d.OW, plane, m0, mb, (oh1 - oh0) * d.OW);
    });
  }
}

void small_conv_filter_grad(const shapes::ConvGeometry& g, const float* x, const float* dy, float* dw) {
  const Dims d = dims_of(g);
  const int64_t owr = (d.OW + kLanes - 1) / kLanes * kLanes;
  const int64_t blocks = (d.M + kBlock - 1) / kBlock;
  std::fill(dw, dw + d.M * d.taps, 0.0f);
  float* p = conv_buffer<float>(ConvBuf::kPlaneIn, padded_size(d));
  float* dyp = conv_buffer<float>(ConvBuf::kPlaneOut, d.M * d.OH * owr);
  // Image by image, in order, so every dw sums its images in one order
  // whatever the threads; a chunk is one tap and block of channels.
  for (int64_t n = 0; n < g.N; ++n) {
    pad_image(d, x + n * d.C * d.H * d.W, p);
    std::fill(dyp, dyp + d.M * d.OH * owr, 0.0f);
    for (int64_t r = 0; r < d.M * d.OH; ++r)
      std::copy(dy + (n * d.M * d.OH + r) * d.OW, dy + (n * d.M * d.OH + r + 1) * d.OW, dyp + r * owr);
    rt::parallel_for(d.taps * blocks, [&](int64_t i) {
      const int64_t t = i / blocks, b = i % blocks;
      filter_grad_tap(d, p, dyp, owr, t, b * kBlock, std::min<int64_t>(kBlock, d.M - b * kBlock), dw);
    });
  }
}

}  // namespace fluidc::kernels::detail
