// kernels/cpu/isa_clones.h - a hot loop compiled for AVX-512, Haswell and baseline x86-64, one copy picked per CPU.
//
// Why not target_clones: it dispatches through an ifunc (STT_GNU_IFUNC), which LLVM 14's JITLink
// cannot link, so `fluidc run` (compiler/driver/embedded_jit.cc) could not use these kernels. The same
// three copies called through a function pointer chosen at first use link everywhere, and the choice is
// the one target_clones("avx512f", "arch=haswell", "default") makes (its resolver, read from the
// object code): AVX-512F if the CPU has it, else the Haswell copy on a CPU that is a Haswell, else
// baseline. So a `fluidc run` and a `fluidc build` binary run the same instructions on one machine.
#pragma once

namespace fluidc::kernels::isa {

enum class Level { kBaseline, kHaswell, kAvx512 };

inline Level cpu_level() {
  static const Level level = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return Level::kAvx512;
    if (__builtin_cpu_is("haswell")) return Level::kHaswell;
    return Level::kBaseline;
  }();
  return level;
}

template <class Fn>
Fn pick(Fn avx512, Fn haswell, Fn baseline) {
  switch (cpu_level()) {
    case Level::kAvx512: return avx512;
    case Level::kHaswell: return haswell;
    default: return baseline;
  }
}

}  // namespace fluidc::kernels::isa

/// Defines `RET NAME PARAMS` from `NAME##_body`, an always_inline function taking ARGS: the body is
/// compiled into three copies (inlined, so its loops are vectorised for each instruction set) and
/// NAME calls the one for this CPU.
#define FLUIDC_ISA_CLONES(RET, NAME, PARAMS, ARGS)                                                   \
  __attribute__((target("avx512f"))) static RET NAME##_avx512 PARAMS { return NAME##_body ARGS; }   \
  __attribute__((target("arch=haswell"))) static RET NAME##_haswell PARAMS { return NAME##_body ARGS; } \
  static RET NAME##_baseline PARAMS { return NAME##_body ARGS; }                                    \
  RET NAME PARAMS {                                                                                 \
    static RET(*const chosen) PARAMS = ::fluidc::kernels::isa::pick(&NAME##_avx512, &NAME##_haswell,  \
                                                                    &NAME##_baseline);              \
    return chosen ARGS;                                                                             \
  }
