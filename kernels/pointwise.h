// kernels/pointwise.h - the scalar function of every elementwise op, shared by its kernel and by fused loops.
//
// A kernel applies one of these per element; the code generator's fused
// loops (see kernels/fused.h) call the very same functions one after
// another on a value held in a register. One definition for both keeps
// fused and unfused results bit-identical.
#pragma once

#include <cmath>

#include "kernels/activation.h"

namespace fluidc::kernels::pw {

// ---- unary: Out = f(X) ------------------------------------------------------
struct Relu { template <class T> static T f(T v) { return v > 0 ? v : T(0); } };
struct Sqrt { template <class T> static T f(T v) { return std::sqrt(v); } };
struct Sigmoid { template <class T> static T f(T v) { return T(1) / (T(1) + std::exp(-v)); } };
struct Tanh { template <class T> static T f(T v) { return std::tanh(v); } };
struct Square { template <class T> static T f(T v) { return static_cast<T>(v * v); } };
/// scale's attributes are float; they are applied in X's type.
struct Scale {
  template <class T> static T f(T v, const ScaleAttrs& a) {
    const T s = static_cast<T>(a.scale), b = static_cast<T>(a.bias);
    return a.bias_after_scale ? static_cast<T>(v * s + b) : static_cast<T>((v + b) * s);
  }
};

// ---- binary: Out = f(X, Y) --------------------------------------------------
struct Add { template <class T> static T f(T a, T b) { return a + b; } };
struct Sub { template <class T> static T f(T a, T b) { return a - b; } };
struct Mul { template <class T> static T f(T a, T b) { return a * b; } };
struct Max { template <class T> static T f(T a, T b) { return a > b ? a : b; } };

}  // namespace fluidc::kernels::pw
