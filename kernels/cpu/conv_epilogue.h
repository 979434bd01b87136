// kernels/cpu/conv_epilogue.h - private: a convolution's bias and fused activation, applied to output planes while they are in cache.
//
// The convolutions compute channels-first planes (kernels/cpu/conv.cc) and
// call an epilogue on each group of finished planes: + Bias[channel], then
// the activation op named by fuse_activation. The activation is the op's own
// scalar function (kernels/pointwise.h) with its attribute struct filled from
// fuse_alpha / fuse_beta, the mapping the op table's ConvEpilogueFn writes
// (compiler/ops/activation*.cc), so a conv + elementwise_add + relu program
// gives the same bits fused or not: the same additions and the same function,
// in the same order. Kept out of the ISA-cloned loops: in an AVX2 clone the
// compiler could contract a * b + c into an FMA that the plain activation
// kernel (baseline x86-64) does not use. The exception is the exact
// activations (none, relu, relu6: one addition and compares), which give the
// same bits vectorised and run in clones (conv_epilogue.cc).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/conv.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/loop_hints.h"
#include "kernels/pointwise.h"

namespace fluidc::kernels::detail {

enum class ConvAct { kNone, kRelu, kRelu6, kLeakyRelu, kSigmoid, kTanh, kSwish, kSilu, kHardSwish, kHardSigmoid, kElu };

/// The activation a fuse_activation value names; fails (a located run-time
/// error) for one the kernels do not know. The compiler rejects those first
/// (compiler/ops/conv.cc), so this guards hand-written calls.
inline ConvAct conv_activation(const char* op, const std::string& name) {
  static const std::pair<const char*, ConvAct> kNames[] = {
      {"", ConvAct::kNone},           {"relu", ConvAct::kRelu},   {"relu6", ConvAct::kRelu6},
      {"leaky_relu", ConvAct::kLeakyRelu}, {"sigmoid", ConvAct::kSigmoid}, {"tanh", ConvAct::kTanh},
      {"swish", ConvAct::kSwish},     {"silu", ConvAct::kSilu},   {"hard_swish", ConvAct::kHardSwish},
      {"hard_sigmoid", ConvAct::kHardSigmoid}, {"elu", ConvAct::kElu}};
  for (const auto& [n, a] : kNames)
    if (name == n) return a;
  rt::fail(fmt::format("{}: fuse_activation '{}' is not an activation the convolution can apply", op, name));
}

/// The activations that give the same bits in every instruction set (an
/// addition and compares, nothing to contract into an FMA): these may run
/// vectorised inside the ISA clones.
inline bool is_exact(ConvAct a) { return a == ConvAct::kNone || a == ConvAct::kRelu || a == ConvAct::kRelu6; }

/// p[0, n) = act(p + b) (b = *bias when set) for the activations that are
/// exact in every instruction set (none, relu, relu6): inlined into the
/// ISA clones that call it, which vectorise it. The same operations as the
/// generic epilogue (ConvEpilogue::run), so the same bits.
[[gnu::always_inline]] inline void exact_epilogue_row(float* p, int64_t n, const float* bias, ConvAct act,
                                                      float threshold) {
  const auto each = [&](auto fn) __attribute__((always_inline)) {
    if (bias) {
      const float b = *bias;
      FLUIDC_ELEMENTWISE_LOOP
      for (int64_t i = 0; i < n; ++i) p[i] = fn(static_cast<float>(p[i] + b));
    } else {
      FLUIDC_ELEMENTWISE_LOOP
      for (int64_t i = 0; i < n; ++i) p[i] = fn(p[i]);
    }
  };
  switch (act) {
    case ConvAct::kRelu: return each([](float v) { return pw::Relu::f(v); });
    case ConvAct::kRelu6: {
      Relu6Attrs a;
      a.threshold = threshold;
      return each([a](float v) { return pw::Relu6::f(v, a); });
    }
    default: return each([](float v) { return v; });
  }
}

/// A convolution's epilogue when it is exact (bias and none, relu or
/// relu6), for kernels that apply it in their own ISA clones to output
/// they have just written, while it is in cache (the implicit GEMM's copy
/// out of its tile buffer).
struct ExactEpilogue {
  const float* bias = nullptr;  // one per output channel, or null
  ConvAct act = ConvAct::kNone;
  float threshold = 0;
  bool empty() const { return !bias && act == ConvAct::kNone; }
  /// p[0, n), all of output channel m.
  [[gnu::always_inline]] void operator()(float* p, int64_t n, int64_t m) const {
    if (!empty()) exact_epilogue_row(p, n, bias ? bias + m : nullptr, act, threshold);
  }
};

/// ConvEpilogue::rows for fp32 and the exact activations, vectorised
/// (conv_epilogue.cc). bias, when set, is the rows' own (bias[r] for row r).
void exact_epilogue_rows_f32(float* y, int64_t ld, const float* bias, int64_t count, int64_t n, ConvAct act,
                             float threshold);

/// Bias (one per output channel, may be null) and activation for the
/// channels-first output of one convolution call.
template <class T>
class ConvEpilogue {
 public:
  /// `a`: ConvAttrs or ConvTransposeAttrs (both carry fuse_activation, fuse_alpha, fuse_beta).
  template <class Attrs>
  ConvEpilogue(const char* op, const Tensor* bias, const Attrs& a)
      : bias_(bias ? bias->data<T>() : nullptr), act_(conv_activation(op, a.fuse_activation)), alpha_(a.fuse_alpha),
        beta_(a.fuse_beta) {}

  bool empty() const { return !bias_ && act_ == ConvAct::kNone; }
  bool has_activation() const { return act_ != ConvAct::kNone; }
  /// This epilogue as an ExactEpilogue, when it is one (fp32; none, relu or
  /// relu6): then a kernel may apply it itself. False otherwise.
  bool exact(ExactEpilogue& e) const {
    if constexpr (std::is_same_v<T, float>) {
      if (!is_exact(act_)) return false;
      e = ExactEpilogue{bias_, act_, alpha_};
      return true;
    }
    return false;
  }
  /// The same epilogue without its activation (applied later, after a residual).
  ConvEpilogue bias_only() const {
    ConvEpilogue e = *this;
    e.act_ = ConvAct::kNone;
    return e;
  }

  /// `count` planes of P values starting at y, output channels m0, m0 + 1, ...
  /// (the bias index; taken modulo M by the caller's m0).
  void planes(T* y, int64_t m0, int64_t count, int64_t P) const {
    rows(y, P, m0, count, P);
  }
  /// Rows of a matrix block: row r (channel m0 + r) has n values at y + r * ld.
  void rows(T* y, int64_t ld, int64_t m0, int64_t count, int64_t n) const {
    if constexpr (std::is_same_v<T, float>) {
      if (is_exact(act_))
        return exact_epilogue_rows_f32(y, ld, bias_ ? bias_ + m0 : nullptr, count, n, act_, alpha_);
    }
    switch (act_) {
      case ConvAct::kNone: return run(y, ld, m0, count, n, [](T v) { return v; });
      case ConvAct::kRelu: return run(y, ld, m0, count, n, [](T v) { return pw::Relu::f(v); });
      case ConvAct::kRelu6: {
        Relu6Attrs a;
        a.threshold = alpha_;
        return run(y, ld, m0, count, n, [a](T v) { return pw::Relu6::f(v, a); });
      }
      case ConvAct::kLeakyRelu: {
        LeakyReluAttrs a;
        a.alpha = alpha_;
        return run(y, ld, m0, count, n, [a](T v) { return pw::LeakyRelu::f(v, a); });
      }
      case ConvAct::kSigmoid: return run(y, ld, m0, count, n, [](T v) { return pw::Sigmoid::f(v); });
      case ConvAct::kTanh: return run(y, ld, m0, count, n, [](T v) { return pw::Tanh::f(v); });
      case ConvAct::kSwish: {
        SwishAttrs a;
        a.beta = alpha_;
        return run(y, ld, m0, count, n, [a](T v) { return pw::Swish::f(v, a); });
      }
      case ConvAct::kSilu: return run(y, ld, m0, count, n, [](T v) { return pw::Silu::f(v); });
      case ConvAct::kHardSwish: {
        HardSwishAttrs a;  // threshold and scale are one value in the fusable form
        a.threshold = a.scale = alpha_;
        a.offset = beta_;
        return run(y, ld, m0, count, n, [a](T v) { return pw::HardSwish::f(v, a); });
      }
      case ConvAct::kHardSigmoid: {
        HardSigmoidAttrs a;
        a.slope = alpha_;
        a.offset = beta_;
        return run(y, ld, m0, count, n, [a](T v) { return pw::HardSigmoid::f(v, a); });
      }
      case ConvAct::kElu: {
        EluAttrs a;
        a.alpha = alpha_;
        return run(y, ld, m0, count, n, [a](T v) { return pw::Elu::f(v, a); });
      }
    }
  }

  /// The activation alone over n values (after a residual was added).
  void activate(T* y, int64_t n) const {
    ConvEpilogue e = *this;
    e.bias_ = nullptr;
    e.rows(y, n, 0, 1, n);
  }

 private:
  template <class Fn>
  void run(T* y, int64_t ld, int64_t m0, int64_t count, int64_t n, Fn fn) const {
    for (int64_t r = 0; r < count; ++r) {
      T* p = y + r * ld;
      if (bias_) {
        // As elementwise_add computes X + Y, then the activation kernel.
        const T b = bias_[m0 + r];
        for (int64_t i = 0; i < n; ++i) p[i] = fn(static_cast<T>(p[i] + b));
      } else {
        for (int64_t i = 0; i < n; ++i) p[i] = fn(p[i]);
      }
    }
  }

  const T* bias_;
  ConvAct act_;
  float alpha_, beta_;
};

}  // namespace fluidc::kernels::detail
