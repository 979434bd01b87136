// kernels/cpu/conv_winograd.cc - Winograd F(2x2, 3x3) convolution: the filter transform (run at load time) and the convolution.
//
// A 3x3 stride-1 convolution computes each 2x2 block of outputs from a 4x4
// input tile d as Y = A' [(G g G') . (B' d B)] A (Lavin and Gray, 2015):
// 16 multiplications per input channel instead of 36. Summed over input
// channels, the products become 16 GEMMs, one per tile position (xi, nu):
// M[xi,nu] (M x T) = U[xi,nu] (M x C) @ V[xi,nu] (C x T), with U the
// transformed filter (winograd_filter, a load-time op: the winograd pass in
// transpilers/winograd.h only rewrites convolutions whose filter is a
// constant) and V the transformed input tiles. The transforms are additions
// and subtractions only (G's halves are in U), so the only rounding beyond a
// direct convolution's is that of a few extra additions per output.
//
// Tiles go through in blocks of whole tile rows sized to stay in cache: the
// input transform of a block (parallel over channels), its 16 GEMMs (each
// threaded by packed_sgemm), then the output transform with the bias and
// activation (parallel over output channels) while the block is still warm.
#include <fmt/format.h>

#include <algorithm>

#include "kernels/conv.h"
#include "kernels/cpu/conv_epilogue.h"
#include "kernels/cpu/conv_layout.h"
#include "kernels/cpu/isa_clones.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/sgemm.h"
#include "kernels/shapes/conv.h"
#include "runtime/parallel.h"

namespace fluidc::kernels {
namespace {

using detail::ConvBuf;
using detail::conv_buffer;

constexpr int64_t kPositions = 16;  // a 4x4 tile: the 16 GEMMs
// V and M of a block together stay under this many bytes (the L2 of one
// core, about; measured with bench/conv_rate).
constexpr int64_t kBlockBytes = 2 << 20;

/// What one call works on: the geometry in tiles, and the block's buffers.
struct Tiles {
  int64_t C, M, H, W, OH, OW, pad_top, pad_left;
  int64_t TH, TW;       // tiles per column and per row
  const float* x;       // [N, C, H, W]
  float* y;             // [N, M, OH, OW]
  // Floats between the 16 positions of V and of M (set by convolve): an odd
  // number of cache lines, so that the transforms' 16 streams fall in
  // different L1 sets (C * ld floats apart, a multiple of 4 KiB at 32
  // channels of 256 tiles, put all 16 in one set: on an Intel Xeon the
  // input transform took 11% of the OCR recogniser).
  int64_t v_stride = 0, m_stride = 0;
};

/// `floats` rounded up to whole cache lines, then to an odd number of them.
constexpr int64_t odd_lines(int64_t floats) {
  const int64_t lines = (floats + 15) / 16;
  return (lines | 1) * 16;
}

typedef float v16 __attribute__((vector_size(64)));

/// n tiles rounded up to whole 16-lane vectors.
constexpr int64_t vector_tiles(int64_t n) { return (n + 15) / 16 * 16; }
typedef float v16u __attribute__((vector_size(64), aligned(4)));  // same, at any float address

// Loads and stores of one tile (float) or of 16 neighbouring tiles (v16):
// the transforms are written once for both.
template <class V>
__attribute__((always_inline)) inline V load(const float* p) {
  if constexpr (sizeof(V) == sizeof(float)) return *p;
  else return *reinterpret_cast<const v16u*>(p);
}
template <class V>
__attribute__((always_inline)) inline void store(float* p, V v) {
  if constexpr (sizeof(V) == sizeof(float)) *p = v;
  else *reinterpret_cast<v16u*>(p) = v;
}

/// Four input rows of channel plane `plane` (H x W) for tile row th, zero
/// outside the image, split by column parity: row r's even columns at
/// strip + (2r) * half and its odd ones at strip + (2r + 1) * half
/// (half = the tiles rounded up to whole vectors, plus one), so the
/// transform reads them at unit stride. Columns past the image are zero.
__attribute__((always_inline)) inline void fill_strip(const Tiles& t, const float* plane, int64_t th, float* strip,
                                                      int64_t half) {
  // Pairs j whose columns 2j - pad_left and 2j + 1 - pad_left are both in the image.
  const int64_t j0 = std::min(half, (t.pad_left + 1) / 2);
  const int64_t j1 = std::max(j0, std::min(half, (t.W + t.pad_left - 1) / 2));
  for (int64_t r = 0; r < 4; ++r) {
    float* even = strip + 2 * r * half;
    float* odd = even + half;
    const int64_t ih = 2 * th - t.pad_top + r;
    if (ih < 0 || ih >= t.H) {
      std::fill(even, even + 2 * half, 0.0f);
      continue;
    }
    const float* src = plane + ih * t.W - t.pad_left;  // src[col] for the strip's column col
    auto edge = [&](int64_t j) __attribute__((always_inline)) {
      const int64_t c0 = 2 * j, c1 = c0 + 1;
      even[j] = c0 >= t.pad_left && c0 < t.pad_left + t.W ? src[c0] : 0.0f;
      odd[j] = c1 >= t.pad_left && c1 < t.pad_left + t.W ? src[c1] : 0.0f;
    };
    for (int64_t j = 0; j < j0; ++j) edge(j);
    // 16 pairs at a time split by shuffles: as a plain loop (the compiler
    // cannot rule out src overlapping the strip) it ran one float at a
    // time, most of the input transform's time.
    int64_t j = j0;
    for (; j + 16 <= j1; j += 16) {
      const v16 lo = load<v16>(src + 2 * j), hi = load<v16>(src + 2 * j + 16);
      store<v16>(even + j, __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30));
      store<v16>(odd + j, __builtin_shufflevector(lo, hi, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31));
    }
    for (; j < j1; ++j) {
      even[j] = src[2 * j];
      odd[j] = src[2 * j + 1];
    }
    for (int64_t j = j1; j < half; ++j) edge(j);
  }
}

/// B' d B for tiles tw.. (one, or 16 side by side), d read from the strip.
template <class V>
__attribute__((always_inline)) inline void transform_tiles(const float* strip, int64_t half, int64_t tw, float* out,
                                                           int64_t stride_p) {
  V d[4][4];
  for (int r = 0; r < 4; ++r) {
    const float* even = strip + 2 * r * half;
    const float* odd = even + half;
    d[r][0] = load<V>(even + tw);
    d[r][1] = load<V>(odd + tw);
    d[r][2] = load<V>(even + tw + 1);
    d[r][3] = load<V>(odd + tw + 1);
  }
  // Rows: B' d = (d0 - d2, d1 + d2, d2 - d1, d1 - d3), for each column.
  V a[4][4];
  for (int q = 0; q < 4; ++q) {
    a[0][q] = d[0][q] - d[2][q];
    a[1][q] = d[1][q] + d[2][q];
    a[2][q] = d[2][q] - d[1][q];
    a[3][q] = d[1][q] - d[3][q];
  }
  // Columns: the same combination across each row of a.
  for (int p = 0; p < 4; ++p) {
    store<V>(out + (p * 4 + 0) * stride_p + tw, a[p][0] - a[p][2]);
    store<V>(out + (p * 4 + 1) * stride_p + tw, a[p][1] + a[p][2]);
    store<V>(out + (p * 4 + 2) * stride_p + tw, a[p][2] - a[p][1]);
    store<V>(out + (p * 4 + 3) * stride_p + tw, a[p][1] - a[p][3]);
  }
}

/// V[p][c][j] for the tiles of the block's tile rows [r0, r0 + rows) (of
/// all images, flattened n * TH + th), channel c.
__attribute__((always_inline)) inline void input_transform_body(const Tiles& t, int64_t r0, int64_t nrows,
                                                                int64_t c, float* v, int64_t ldv, float* strip) {
  const int64_t half = vector_tiles(t.TW) + 1;
  const int64_t stride_p = t.v_stride;  // between the 16 positions
  for (int64_t rr = 0; rr < nrows; ++rr) {
    const int64_t n = (r0 + rr) / t.TH, th = (r0 + rr) % t.TH;
    fill_strip(t, t.x + (n * t.C + c) * t.H * t.W, th, strip, half);
    float* out = v + c * ldv + rr * t.TW;
    // Whole vectors, the last one past the row's tiles: its extra lanes land
    // on the next tile row's slots (written after, in this loop) or on the
    // padding at the end of V's rows (ldv - tiles >= 16).
    for (int64_t tw = 0; tw < t.TW; tw += 16) transform_tiles<v16>(strip, half, tw, out, stride_p);
  }
}

FLUIDC_ISA_CLONES(void, input_transform,
                  (const Tiles& t, int64_t r0, int64_t nrows, int64_t c, float* v, int64_t ldv, float* strip),
                  (t, r0, nrows, c, v, ldv, strip))

/// A' m A for tiles tw.. (one, or 16 side by side) of output channel
/// src's: the two output rows' even and odd columns into cols (4 rows of
/// `pitch`).
template <class V>
__attribute__((always_inline)) inline void untransform_tiles(const float* src, int64_t stride_p, int64_t tw,
                                                             float* cols, int64_t pitch) {
  V s[2][4];
  for (int q = 0; q < 4; ++q) {
    const V m0 = load<V>(src + (0 * 4 + q) * stride_p + tw), m1 = load<V>(src + (1 * 4 + q) * stride_p + tw);
    const V m2 = load<V>(src + (2 * 4 + q) * stride_p + tw), m3 = load<V>(src + (3 * 4 + q) * stride_p + tw);
    s[0][q] = m0 + m1 + m2;
    s[1][q] = m1 - m2 - m3;
  }
  for (int i = 0; i < 2; ++i) {
    store<V>(cols + (2 * i) * pitch + tw, s[i][0] + s[i][1] + s[i][2]);
    store<V>(cols + (2 * i + 1) * pitch + tw, s[i][1] - s[i][2] - s[i][3]);
  }
}

/// Output channel m of the block's tile rows: Y = A' M A from M[p][m][j],
/// into y (the 2x2 outputs that fall inside the image), interleaving the
/// columns on the copy.
__attribute__((always_inline)) inline void output_transform_body(const Tiles& t, int64_t r0, int64_t nrows,
                                                                 int64_t m, const float* mb, int64_t ldm,
                                                                 float* cols) {
  const int64_t stride_p = t.m_stride;  // between the 16 positions
  for (int64_t rr = 0; rr < nrows; ++rr) {
    const int64_t n = (r0 + rr) / t.TH, th = (r0 + rr) % t.TH;
    const float* src = mb + m * ldm + rr * t.TW;
    // Whole vectors: lanes past the row's tiles read what the GEMMs left
    // there (the next row's, or padding) and are never copied out.
    const int64_t pitch = vector_tiles(t.TW);
    for (int64_t tw = 0; tw < t.TW; tw += 16) untransform_tiles<v16>(src, stride_p, tw, cols, pitch);
    float* plane = t.y + (n * t.M + m) * t.OH * t.OW;
    for (int64_t i = 0; i < 2 && 2 * th + i < t.OH; ++i) {
      const float* even = cols + 2 * i * pitch;
      const float* odd = even + pitch;
      float* row = plane + (2 * th + i) * t.OW;
      const int64_t pairs = t.OW / 2;
      int64_t j = 0;
      for (; j + 16 <= pairs; j += 16) {  // interleaved by shuffles, as fill_strip splits them
        const v16 e = load<v16>(even + j), o = load<v16>(odd + j);
        store<v16>(row + 2 * j, __builtin_shufflevector(e, o, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23));
        store<v16>(row + 2 * j + 16,
                   __builtin_shufflevector(e, o, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31));
      }
      for (; j < pairs; ++j) {
        row[2 * j] = even[j];
        row[2 * j + 1] = odd[j];
      }
      if (t.OW % 2) row[t.OW - 1] = even[pairs];
    }
  }
}

FLUIDC_ISA_CLONES(void, output_transform,
                  (const Tiles& t, int64_t r0, int64_t nrows, int64_t m, const float* mb, int64_t ldm,
                   float* cols),
                  (t, r0, nrows, m, mb, ldm, cols))

/// A thread's scratch row for the transforms: its own, as the chunks of a
/// parallel_for run on several threads.
float* row_scratch(int64_t n) {
  thread_local std::vector<float> buf;
  if (static_cast<int64_t>(buf.size()) < n) buf.resize(static_cast<size_t>(n));
  return buf.data();
}

void convolve(Tiles t, int64_t N, const float* u, const detail::ConvEpilogue<float>& ep) {
  const int64_t all_rows = N * t.TH;
  const int64_t per_row = kPositions * (t.C + t.M) * t.TW * static_cast<int64_t>(sizeof(float));
  const int64_t rows = std::clamp<int64_t>(kBlockBytes / std::max<int64_t>(per_row, 1), 1, all_rows);
  // A block's tiles (the GEMMs' N; the last block may have fewer), and room
  // for the transforms' last vector past them.
  const int64_t ld = rows * t.TW + 16;
  t.v_stride = odd_lines(t.C * ld);
  t.m_stride = odd_lines(t.M * ld);
  float* v = conv_buffer<float>(ConvBuf::kWinogradInput, kPositions * t.v_stride);
  float* mb = conv_buffer<float>(ConvBuf::kWinogradProduct, kPositions * t.m_stride);
  for (int64_t r0 = 0; r0 < all_rows; r0 += rows) {
    const int64_t nrows = std::min(rows, all_rows - r0), nt = nrows * t.TW;
    rt::parallel_for(t.C, [&](int64_t c) { input_transform(t, r0, nrows, c, v, ld, row_scratch(8 * (vector_tiles(t.TW) + 1))); });
    for (int64_t p = 0; p < kPositions; ++p)
      detail::packed_sgemm(false, false, t.M, nt, t.C, 1.0f, u + p * t.M * t.C, t.C, v + p * t.v_stride, ld, 0.0f,
                           mb + p * t.m_stride, ld);
    rt::parallel_for(t.M, [&](int64_t m) {
      output_transform(t, r0, nrows, m, mb, ld, row_scratch(4 * vector_tiles(t.TW)));
      if (ep.empty()) return;
      // The block's output rows of channel m: whole rows, as blocks are whole tile rows.
      for (int64_t rr = 0; rr < nrows; ++rr) {
        const int64_t n = (r0 + rr) / t.TH, th = (r0 + rr) % t.TH;
        const int64_t h0 = 2 * th, h1 = std::min(t.OH, h0 + 2);
        ep.rows(t.y + ((n * t.M + m) * t.OH + h0) * t.OW, t.OW, m, 1, (h1 - h0) * t.OW);
      }
    });
  }
}

}  // namespace

void winograd_filter(const Tensor& filter, Tensor& out) {
  constexpr const char* op = "winograd_filter";
  detail::require_init(op, "Filter", filter);
  if (filter.dtype() != rt::DType::kFP32)
    rt::fail(fmt::format("{}: Filter must be float32, got {}", op, rt::dtype_name(filter.dtype())));
  const rt::Shape& s = filter.shape();
  if (s.rank != 4 || s[2] != 3 || s[3] != 3)
    rt::fail(fmt::format("{}: Filter must be [M, C, 3, 3], got {}", op, s.str()));
  const int64_t M = s[0], C = s[1], MC = M * C;
  detail::OutBuf buf(&out, detail::Slot::kOut0, detail::aliases(&out, {&filter}));
  Tensor& o = buf.get();
  o.resize(rt::Shape{kPositions, M, C}, rt::DType::kFP32);
  const float* w = filter.data<float>();
  float* u = o.data<float>();
  for (int64_t i = 0; i < MC; ++i) {
    const float* g = w + i * 9;
    // G g (4 x 3), G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]; then (G g) G'.
    float a[4][3];
    for (int j = 0; j < 3; ++j) {
      a[0][j] = g[j];
      a[1][j] = (g[j] + g[3 + j] + g[6 + j]) * 0.5f;
      a[2][j] = (g[j] - g[3 + j] + g[6 + j]) * 0.5f;
      a[3][j] = g[6 + j];
    }
    for (int p = 0; p < 4; ++p) {
      u[(p * 4 + 0) * MC + i] = a[p][0];
      u[(p * 4 + 1) * MC + i] = (a[p][0] + a[p][1] + a[p][2]) * 0.5f;
      u[(p * 4 + 2) * MC + i] = (a[p][0] - a[p][1] + a[p][2]) * 0.5f;
      u[(p * 4 + 3) * MC + i] = a[p][2];
    }
  }
  buf.finish();
}

void conv2d_winograd(const Tensor& input, const Tensor& filter, const Tensor* bias, Tensor& output,
                     const ConvAttrs& a) {
  constexpr const char* op = "conv2d_winograd";
  detail::require_init(op, "Input", input);
  detail::require_init(op, "Filter", filter);
  if (input.dtype() != rt::DType::kFP32 || filter.dtype() != rt::DType::kFP32)
    rt::fail(fmt::format("{}: Input and Filter must be float32, got {} and {}", op, rt::dtype_name(input.dtype()),
                         rt::dtype_name(filter.dtype())));
  shapes::ConvGeometry g;
  if (std::string e = shapes::winograd_conv_shape(input.shape(), filter.shape(), a, g); !e.empty())
    rt::fail(fmt::format("{}: {}", op, e));
  if (bias) {
    detail::require_init(op, "Bias", *bias);
    if (bias->dtype() != rt::DType::kFP32 || bias->numel() != g.M)
      rt::fail(fmt::format("{}: Bias must be float32 with one value per output channel ({}), got {} {}", op, g.M,
                           rt::dtype_name(bias->dtype()), bias->shape().str()));
  }
  detail::OutBuf buf(&output, detail::Slot::kOut0, detail::aliases(&output, {&input, &filter, bias}));
  Tensor& out = buf.get();
  out.resize(g.out_shape, rt::DType::kFP32);
  if (out.numel() != 0 && g.C != 0) {
    Tiles t{.C = g.C, .M = g.M, .H = g.in[1], .W = g.in[2], .OH = g.out[1], .OW = g.out[2], .pad_top = g.pad[1],
            .pad_left = g.pad[2], .TH = (g.out[1] + 1) / 2, .TW = (g.out[2] + 1) / 2,
            .x = input.data<float>(), .y = out.data<float>()};
    convolve(t, g.N, filter.data<float>(), detail::ConvEpilogue<float>(op, bias, a));
  } else if (out.numel() != 0) {
    // No input channels: the sum is empty; only the bias and activation remain.
    std::fill(out.data<float>(), out.data<float>() + out.numel(), 0.0f);
    const int64_t P = g.out[1] * g.out[2];
    for (int64_t n = 0; n < g.N; ++n)
      detail::ConvEpilogue<float>(op, bias, a).planes(out.data<float>() + n * g.M * P, 0, g.M, P);
  }
  buf.finish();
}

}  // namespace fluidc::kernels
