// kernels/cpu/rnn_act.h - the activations Fluid's fused recurrent ops name by attribute (sigmoid, tanh, relu, identity), with slopes from outputs.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/pointwise.h"

namespace fluidc::kernels::rnn_act {

enum class Act { kSigmoid, kTanh, kRelu, kIdentity };

// `op` and `attr` name the op and attribute in the error for an unknown name.
inline Act activation(const char* op, const char* attr, const std::string& name) {
  if (name == "sigmoid") return Act::kSigmoid;
  if (name == "tanh") return Act::kTanh;
  if (name == "relu") return Act::kRelu;
  if (name == "identity" || name == "linear") return Act::kIdentity;
  rt::fail(fmt::format("{}: unknown activation '{}' in {} (sigmoid, tanh, relu or identity)", op, name, attr));
}

// One value. sigmoid and tanh are the pointwise ops' own (kernels/pointwise.h):
// fp32 the branch-free forms within a few ulp, fp64 libm's.
template <class T>
T apply(Act a, T x) {
  switch (a) {
    case Act::kSigmoid: return pw::sigmoid_t(x);
    case Act::kTanh: return pw::tanh_t(x);
    case Act::kRelu: return x > T(0) ? x : T(0);
    case Act::kIdentity: return x;
  }
  return x;
}

// x[i] = sigmoid(x[i]) / tanh(x[i]) for n fp32 values, vectorised: one copy
// of the loop per instruction set (kernels/cpu/isa_clones.h), in rnn_act.cc.
void sigmoid_f32_n(float* x, int64_t n);
void tanh_f32_n(float* x, int64_t n);

// x[i] = act(x[i]) for n values, the activation chosen once outside the loop,
// so the recurrent kernels activate a gate block at a time.
template <class T>
void apply_n(Act a, T* x, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    if (a == Act::kSigmoid) return sigmoid_f32_n(x, n);
    if (a == Act::kTanh) return tanh_f32_n(x, n);
  }
  switch (a) {
    case Act::kSigmoid:
      for (int64_t i = 0; i < n; ++i) x[i] = pw::sigmoid_t(x[i]);
      break;
    case Act::kTanh:
      for (int64_t i = 0; i < n; ++i) x[i] = pw::tanh_t(x[i]);
      break;
    case Act::kRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] > T(0) ? x[i] : T(0);
      break;
    case Act::kIdentity: break;
  }
}

// The derivative, from the activation's output y (what the forward keeps).
template <class T>
T slope(Act a, T y) {
  switch (a) {
    case Act::kSigmoid: return y * (T(1) - y);
    case Act::kTanh: return T(1) - y * y;
    case Act::kRelu: return y > T(0) ? T(1) : T(0);
    case Act::kIdentity: return T(1);
  }
  return T(1);
}

}  // namespace fluidc::kernels::rnn_act
