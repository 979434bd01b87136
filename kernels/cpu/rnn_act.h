// kernels/cpu/rnn_act.h - the activations Fluid's fused recurrent ops name by attribute (sigmoid, tanh, relu, identity), with slopes from outputs.
#pragma once

#include <cmath>
#include <string>

#include "kernels/cpu/kernel_util.h"

namespace fluidc::kernels::rnn {

enum class Act { kSigmoid, kTanh, kRelu, kIdentity };

// `op` and `attr` name the op and attribute in the error for an unknown name.
inline Act activation(const char* op, const char* attr, const std::string& name) {
  if (name == "sigmoid") return Act::kSigmoid;
  if (name == "tanh") return Act::kTanh;
  if (name == "relu") return Act::kRelu;
  if (name == "identity" || name == "linear") return Act::kIdentity;
  rt::fail(fmt::format("{}: unknown activation '{}' in {} (sigmoid, tanh, relu or identity)", op, name, attr));
}

template <class T>
T apply(Act a, T x) {
  switch (a) {
    case Act::kSigmoid: return T(1) / (T(1) + std::exp(-x));
    case Act::kTanh: return std::tanh(x);
    case Act::kRelu: return x > T(0) ? x : T(0);
    case Act::kIdentity: return x;
  }
  return x;
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

}  // namespace fluidc::kernels::rnn
