// kernels/fused.h - run-time side of the code generator's fused elementwise loops.
//
// The generator (compiler/codegen/fusion.cc) turns a chain such as
// elementwise_add -> relu into one loop over the chain's value, calling the
// ops' scalar functions (kernels/pointwise.h) in a row, so the intermediate
// tensors are never written. It decides from declared shapes how each
// second operand (an elementwise op's Y) lines up with the value; plan_fused
// checks that at run time, and when it does not hold (an unexpected
// broadcast, a wrong dtype, an uninitialised input) the generated code runs
// the ops' ordinary kernels instead, which handle every case and report the
// error.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "kernels/cpu/isa_clones.h"
#include "kernels/loop_hints.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::DType;
using fluidc::rt::Tensor;

/// How a second operand lines up with the chain's value X.
enum class Bcast {
  kFull,  ///< the same shape as X: indexed like X
  /// X's dims [axis, axis + rank(Y)) (Paddle's axis rule), repeated over the others; a Y of X's rank
  /// has ones around one run of X's dims ([N, C, 1, 1]: a squeeze-and-excitation scale).
  kRow,
  kScalar,  ///< one element, of a rank no higher than X's: the same for every element
};

struct FusedOperand {
  const Tensor* tensor;
  Bcast kind;
  int axis;  ///< the elementwise op's axis attribute (-1: trailing)
};

/// The loop nest of a fused chain: X seen as [pre, n, post], where kRow
/// operands have n elements and are indexed by the middle loop. Without
/// kRow operands it is one flat loop (pre = post = 1, n = numel).
struct FusedPlan {
  bool ok = false;
  int64_t pre = 1, n = 1, post = 1;
};

/// Checks that X and every operand are initialised, of dtype `dt`, and line
/// up as declared (all kRow operands with the same [pre, n, post]); on
/// success resizes `out` to X's shape. `out` may be X or a kFull operand
/// (each element is read before it is written), never a kRow or kScalar one.
FusedPlan plan_fused(const Tensor& x, DType dt, std::initializer_list<FusedOperand> operands, Tensor& out);

namespace detail {

template <class Body>
[[gnu::always_inline]] inline void fused_loops(const FusedPlan& p, Body& body) {
  if (p.post == 1) {
    for (int64_t a = 0; a < p.pre; ++a) {
      const int64_t base = a * p.n;
FLUIDC_ELEMENTWISE_LOOP
      for (int64_t j = 0; j < p.n; ++j) body(base + j, j);
    }
    return;
  }
  for (int64_t a = 0; a < p.pre; ++a)
    for (int64_t j = 0; j < p.n; ++j) {
      const int64_t base = (a * p.n + j) * p.post;
FLUIDC_ELEMENTWISE_LOOP
      for (int64_t q = 0; q < p.post; ++q) body(base + q, j);
    }
}

// The loops compiled for AVX-512 and AVX2 as well as the generated code's baseline x86-64, picked as
// kernels/cpu/isa_clones.h picks the kernels' copies: a chain through hard_swish's division ran at 4
// floats a step. The same bits in every copy: the chain's arithmetic is kernels/pointwise.h's, where
// contraction into FMAs is off. Instruction sets only, no target("arch=haswell"): GCC will not inline
// an always_inline function of the default target into one with another arch (its tuning differs).
template <class Body>
__attribute__((target("avx512f"))) void fused_loops_avx512(const FusedPlan& p, Body& body) {
  fused_loops(p, body);
}
template <class Body>
__attribute__((target("avx2"))) void fused_loops_avx2(const FusedPlan& p, Body& body) {
  fused_loops(p, body);
}

}  // namespace detail

/// Calls body(i, j) for every element: i is the flat index into X and the
/// output (and kFull operands), j the index into kRow operands. The inner
/// loop is unit-stride in i and free of aliasing hazards (element i is read
/// before it is written), so it is marked for vectorisation, and it runs in
/// the copy for this CPU's instruction set. `body` must be always_inline:
/// only inlined does it vectorise in each copy.
template <class Body>
inline void fused_for(const FusedPlan& p, Body body) {
  switch (isa::cpu_level()) {
    case isa::Level::kAvx512: return detail::fused_loops_avx512(p, body);
    case isa::Level::kHaswell: return detail::fused_loops_avx2(p, body);
    default: return detail::fused_loops(p, body);
  }
}

}  // namespace fluidc::kernels
