// kernels/cpu/rnn_act.cc - the recurrent kernels' fp32 gate activations over arrays, one copy per instruction set.
#include "kernels/cpu/rnn_act.h"

#include "kernels/cpu/isa_clones.h"

namespace fluidc::kernels::rnn_act {
namespace {

// The scalar functions are branch-free and always_inline, so each clone's
// loop vectorises at its own width (4, 8 or 16 lanes).
[[gnu::always_inline]] inline void sigmoid_f32_n_body(float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = pw::sigmoid_f32(x[i]);
}
[[gnu::always_inline]] inline void tanh_f32_n_body(float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = pw::tanh_f32(x[i]);
}

}  // namespace

FLUIDC_ISA_CLONES(void, sigmoid_f32_n, (float* x, int64_t n), (x, n))
FLUIDC_ISA_CLONES(void, tanh_f32_n, (float* x, int64_t n), (x, n))

}  // namespace fluidc::kernels::rnn_act
