// kernels/cpu/conv_implicit.h - private: fp32 2-D convolution as an implicit GEMM over phase planes (no im2col).
//
// im2col + GEMM copies each input pixel once per filter tap (9x for a 3x3
// window) and then packs the copy again; at batch 1 that was 12% of
// ResNet-18 and kept the GEMM from its peak. Here the input is copied once,
// into the zero-padded phase planes of conv_depthwise.h (PhasePlanes: one
// per stride phase, so a stride-2 window also reads unit-stride runs), and
// the GEMM's B operand is read straight out of them: for the flat output
// position f (row pitch Wq), row k = (c, a, b) of the column matrix is the
// 16-float run at planes + offset[k] + f. The register tile is the packed
// GEMM's (8 output channels x 48 positions, kernels/cpu/sgemm.cc) with the
// weights read in place, and it sums all of K before one store.
#pragma once

#include <cstdint>

#include "kernels/cpu/conv_depthwise.h"
#include "kernels/cpu/conv_epilogue.h"

namespace fluidc::kernels::detail {

/// One image and group of a convolution the implicit GEMM computes: Mg
/// output channels from Cg input channels; w is [Mg, Cg * taps], x the
/// group's [Cg, H, W] input.
struct ImplicitConv {
  const Lowering* l;
  PhasePlanes q;
  int64_t Cg, Mg, K;
  const float* w;
  const float* planes;   // Cg * phases() * q.plane floats (fill_implicit_planes)
  const int32_t* offset;  // K offsets into planes (fill_tap_offsets)
  ExactEpilogue epilogue;  // applied to each channel's rows as they are copied out (bias: the group's)
  int64_t phases() const { return q.sv * q.sh; }
  /// Output rows per task: enough flat positions (~256) to fill the tiles,
  /// and of the counts up to twice that, the one whose last register tile
  /// computes the fewest columns past the task's positions, as a share of
  /// them (a tile computes whole 16-float vectors).
  int64_t rows_per_task() const {
    const int64_t least = std::clamp<int64_t>((256 + q.Wq - 1) / q.Wq, 1, l->col[1]);
    const auto waste = [this](int64_t r) { return (16 - r * q.Wq % 16) % 16; };
    int64_t best = least;
    for (int64_t r = least + 1; r <= std::min(2 * least, l->col[1]); ++r)
      if (waste(r) * best < waste(best) * r) best = r;
    return best;
  }
};

/// Whether the implicit GEMM computes this convolution: a 2-D window with
/// strides of at most 2, a whole number of 8-channel tiles per group, and
/// offsets that fit in 32 bits. Pointwise stride-1 windows go to the plain
/// GEMM (the image is its own column matrix).
bool implicit_conv_fits(const Lowering& l, int64_t Cg, int64_t Mg);

/// The K tap offsets into the planes (c.q set): the same for every image
/// and group of one call, so made once per call.
void fill_tap_offsets(const ImplicitConv& c, int32_t* offset);

/// The phase planes (Cg * phases * q.plane floats at planes) of one image
/// and group's input x (c.q set).
void fill_implicit_planes(const ImplicitConv& c, const float* x, float* planes);

/// Output rows [r0, r1) of output channels [m0, m1) (m1 - m0 a multiple of
/// 8) into y (the group's [Mg, O1 * O2] output), through the calling
/// thread's tile buffer, then c.epilogue on each channel's rows.
void implicit_conv_rows(const ImplicitConv& c, int64_t r0, int64_t r1, int64_t m0, int64_t m1, float* y);

}  // namespace fluidc::kernels::detail
