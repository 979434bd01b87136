// kernels/cpu/conv_epilogue.cc - the convolution epilogue's exact activations (none, relu, relu6) as vectorised ISA clones.
//
// An addition and compares give the same bits in every instruction set (no
// multiply for the compiler to contract into an FMA), so unlike the other
// activations (conv_epilogue.h) these may run in the AVX-512/AVX2 copies:
// the epilogue of MobileNet's relu6 convolutions had been 9% of its run in
// baseline SSE code.
#include "kernels/cpu/conv_epilogue.h"

#include "kernels/cpu/isa_clones.h"

namespace fluidc::kernels::detail {
namespace {

__attribute__((always_inline)) inline void exact_epilogue_rows_f32_body(float* y, int64_t ld, const float* bias,
                                                                        int64_t count, int64_t n, ConvAct act,
                                                                        float threshold) {
  for (int64_t r = 0; r < count; ++r) exact_epilogue_row(y + r * ld, n, bias ? bias + r : nullptr, act, threshold);
}

}  // namespace

FLUIDC_ISA_CLONES(void, exact_epilogue_rows_f32,
                  (float* y, int64_t ld, const float* bias, int64_t count, int64_t n, ConvAct act, float threshold),
                  (y, ld, bias, count, n, act, threshold))

}  // namespace fluidc::kernels::detail
