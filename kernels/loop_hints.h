// kernels/loop_hints.h - FLUIDC_ELEMENTWISE_LOOP: lets the compiler vectorise in-place elementwise loops.
#pragma once

/// Put before an elementwise loop whose outputs may be the very same arrays
/// as its inputs (in-place updates) but never partially overlap them: each
/// element is read before it is written, so vectorising is safe, which the
/// compiler cannot prove on its own.
#if defined(__clang__)
#define FLUIDC_ELEMENTWISE_LOOP _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define FLUIDC_ELEMENTWISE_LOOP _Pragma("GCC ivdep")
#else
#define FLUIDC_ELEMENTWISE_LOOP
#endif
