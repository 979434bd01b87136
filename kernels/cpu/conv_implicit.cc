// kernels/cpu/conv_implicit.cc - the implicit-GEMM convolution of conv_implicit.h: phase planes, tap offsets, register tiles.
#include "kernels/cpu/conv_implicit.h"

#include <algorithm>
#include <limits>

#include "kernels/cpu/conv_layout.h"
#include "kernels/cpu/isa_clones.h"

namespace fluidc::kernels::detail {
namespace {

typedef float v16 __attribute__((vector_size(64)));
typedef float v16u __attribute__((vector_size(64), aligned(4)));  // same, at any float address

constexpr int kTileRows = 8;   // output channels per register tile
constexpr int kTileCols = 48;  // flat output positions per register tile: three vectors (8 x 3 accumulators)

/// out[8][16 * NV] (rows ldo apart) = the 8 weight rows at w (ldw apart)
/// times B[K][16 * NV], row k of B being the floats at b + offset[k].
template <int NV>
__attribute__((always_inline)) inline void tile(int64_t K, const float* w, int64_t ldw, const float* b,
                                                const int32_t* offset, float* out, int64_t ldo) {
  v16 acc[kTileRows][NV] = {};
  for (int64_t k = 0; k < K; ++k) {
    const float* src = b + offset[k];
    v16 bv[NV];
    for (int h = 0; h < NV; ++h) bv[h] = *reinterpret_cast<const v16u*>(src + 16 * h);
#pragma clang loop unroll(full)  // the accumulators must live in registers
    for (int i = 0; i < kTileRows; ++i)
      for (int h = 0; h < NV; ++h) acc[i][h] += w[i * ldw + k] * bv[h];
  }
  for (int i = 0; i < kTileRows; ++i)
    for (int h = 0; h < NV; ++h) *reinterpret_cast<v16u*>(out + i * ldo + 16 * h) = acc[i][h];
}

__attribute__((always_inline)) inline void implicit_conv_rows_body(const ImplicitConv& c, int64_t r0, int64_t r1,
                                                                   int64_t m0, int64_t m1, float* y) {
  const PhasePlanes& q = c.q;
  const int64_t O2 = c.l->col[2], Pout = c.l->col_size();
  // Flat positions [fa, fb) hold the rows' outputs (and the Wq - O2 unused
  // columns between them); tiles round the end up to whole vectors.
  const int64_t fa = r0 * q.Wq, fb = std::min(r1 * q.Wq, q.n);
  const int64_t pitch = (fb - fa + 15) / 16 * 16;
  float* buf = conv_buffer<float>(ConvBuf::kImplicitTile, (m1 - m0) * pitch);
  // Channel blocks outside, positions inside: a block's weight rows stay
  // in cache across the task's positions, and the planes' rows the task
  // reads across its channel blocks.
  for (int64_t m = m0; m < m1; m += kTileRows) {
    const float* w = c.w + m * c.K;
    float* out = buf + (m - m0) * pitch;
    for (int64_t f = fa; f < fb; f += kTileCols) {
      const int64_t nr = std::min<int64_t>(kTileCols, fb - f);
      if (nr > 32) tile<3>(c.K, w, c.K, c.planes + f, c.offset, out + (f - fa), pitch);
      else if (nr > 16) tile<2>(c.K, w, c.K, c.planes + f, c.offset, out + (f - fa), pitch);
      else tile<1>(c.K, w, c.K, c.planes + f, c.offset, out + (f - fa), pitch);
    }
  }
  for (int64_t m = m0; m < m1; ++m) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* src = buf + (m - m0) * pitch + (r - r0) * q.Wq;
      copy_run(src, O2, y + m * Pout + r * O2);
    }
    c.epilogue(y + m * Pout + r0 * O2, (r1 - r0) * O2, m);  // the channel's rows, just written
  }
}

__attribute__((always_inline)) inline void fill_channel_planes_body(const Lowering& l, const PhasePlanes& q,
                                                                    const float* x, float* planes) {
  fill_phase_planes(l, q, x, planes);
}

FLUIDC_ISA_CLONES(void, fill_channel_planes, (const Lowering& l, const PhasePlanes& q, const float* x, float* planes),
                  (l, q, x, planes))

}  // namespace

FLUIDC_ISA_CLONES(void, implicit_conv_rows,
                  (const ImplicitConv& c, int64_t r0, int64_t r1, int64_t m0, int64_t m1, float* y),
                  (c, r0, r1, m0, m1, y))

bool implicit_conv_fits(const Lowering& l, int64_t Cg, int64_t Mg) {
  PhasePlanes q;
  if (l.pointwise() || Mg <= 0 || Mg % kTileRows != 0 || !phase_planes(l, q)) return false;
  // Every offset plus a flat position must fit the int32 offset table.
  const int64_t floats = Cg * q.sv * q.sh * q.plane;
  return Cg > 0 && floats / std::max<int64_t>(1, Cg) == q.sv * q.sh * q.plane &&
         floats + q.n + 64 < std::numeric_limits<int32_t>::max();
}

void fill_tap_offsets(const ImplicitConv& c, int32_t* offset) {
  const Lowering& l = *c.l;
  const PhasePlanes& q = c.q;
  const int64_t per_channel = c.phases() * q.plane, taps = l.taps();
  for (int64_t ch = 0; ch < c.Cg; ++ch)
    for (int64_t a = 0; a < l.k[1]; ++a)
      for (int64_t b = 0; b < l.k[2]; ++b) {
        const int64_t dr = a * l.d[1], dc = b * l.d[2];
        const int64_t plane = (dr % q.sv) * q.sh + dc % q.sh;
        offset[ch * taps + a * l.k[2] + b] =
            static_cast<int32_t>(ch * per_channel + plane * q.plane + (dr / q.sv) * q.Wq + dc / q.sh);
      }
}

void fill_implicit_planes(const ImplicitConv& c, const float* x, float* planes) {
  const int64_t per_channel = c.phases() * c.q.plane, Pin = c.l->img_size();
  rt::parallel_for(c.Cg, [&](int64_t ch) { fill_channel_planes(*c.l, c.q, x + ch * Pin, planes + ch * per_channel); });
}

}  // namespace fluidc::kernels::detail
