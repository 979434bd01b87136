// kernels/cpu/optimizer.cc - dense sgd/momentum/adam updates in Paddle's CPU arithmetic order.
#include "kernels/optimizer.h"

#include <cmath>

#include "kernels/cpu/kernel_util.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

/// A 1-element tensor (learning rate, beta power) read as T. It is read
/// before any output is resized, so an output aliasing it cannot clobber it.
template <class T>
T scalar_of(const char* op, const char* role, const Tensor& t) {
  require_init(op, role, t);
  if (t.numel() != 1)
    rt::fail(fmt::format("{}: {} must have exactly one element, has shape {}", op, role, t.shape().str()));
  switch (t.dtype()) {
    case DType::kFP32: return static_cast<T>(t.data<float>()[0]);
    case DType::kFP64: return static_cast<T>(t.data<double>()[0]);
    default: fail_dtype(op, role, t.dtype());
  }
}

/// A state tensor that must match Param in shape and dtype.
void require_like_param(const char* op, const Tensor& param, const char* role, const Tensor& t) {
  require_init(op, role, t);
  require_same_dtype(op, "Param", param, role, t);
  require_same_shape(op, "Param", param, role, t);
}

}  // namespace

void sgd(const Tensor& param, const Tensor& learning_rate, const Tensor& grad, Tensor& param_out) {
  const char* op = "sgd";
  require_init(op, "Param", param);
  require_like_param(op, param, "Grad", grad);
  visit_float(op, "Param", param.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T lr = scalar_of<T>(op, "LearningRate", learning_rate);
    param_out.resize(param.shape(), param.dtype());
    const T* p = param.data<T>();
    const T* g = grad.data<T>();
    T* po = param_out.data<T>();
    parallel_ranges(param.numel(), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) po[i] = p[i] - lr * g[i];
    });
  });
}

void momentum(const Tensor& param, const Tensor& grad, const Tensor& velocity, const Tensor& learning_rate,
              Tensor& param_out, Tensor& velocity_out, const MomentumAttrs& attrs) {
  const char* op = "momentum";
  require_init(op, "Param", param);
  require_like_param(op, param, "Grad", grad);
  require_like_param(op, param, "Velocity", velocity);
  if (&param_out == &velocity_out) rt::fail("momentum: ParamOut and VelocityOut are the same tensor");
  const bool l2 = attrs.regularization_method == "l2_decay";
  visit_float(op, "Param", param.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T lr = scalar_of<T>(op, "LearningRate", learning_rate);
    const T mu = static_cast<T>(attrs.mu);
    const T coeff = static_cast<T>(attrs.regularization_coeff);
    param_out.resize(param.shape(), param.dtype());
    velocity_out.resize(param.shape(), param.dtype());
    const T* p = param.data<T>();
    const T* g = grad.data<T>();
    const T* v = velocity.data<T>();
    T* po = param_out.data<T>();
    T* vo = velocity_out.data<T>();
    parallel_ranges(param.numel(), [&](int64_t begin, int64_t end) {
      FLUIDC_ELEMENTWISE_LOOP
      for (int64_t i = begin; i < end; ++i) {
        const T pi = p[i];
        const T gi = l2 ? pi * coeff + g[i] : g[i];
        const T vi = v[i] * mu + gi;
        po[i] = attrs.use_nesterov ? pi - (gi + vi * mu) * lr : pi - lr * vi;
        vo[i] = vi;
      }
    });
  });
}

void adam(const Tensor& param, const Tensor& grad, const Tensor& learning_rate, const Tensor& moment1,
          const Tensor& moment2, const Tensor& beta1_pow, const Tensor& beta2_pow, const Tensor* beta1_tensor,
          const Tensor* beta2_tensor, const Tensor* epsilon_tensor, Tensor& param_out, Tensor& moment1_out,
          Tensor& moment2_out, Tensor* beta1_pow_out, Tensor* beta2_pow_out, const AdamAttrs& attrs) {
  const char* op = "adam";
  require_init(op, "Param", param);
  require_like_param(op, param, "Grad", grad);
  require_like_param(op, param, "Moment1", moment1);
  require_like_param(op, param, "Moment2", moment2);
  if (&param_out == &moment1_out || &param_out == &moment2_out || &moment1_out == &moment2_out)
    rt::fail("adam: ParamOut, Moment1Out and Moment2Out must be distinct tensors");
  visit_float(op, "Param", param.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // Every scalar is read before any output is touched.
    const T lr0 = scalar_of<T>(op, "LearningRate", learning_rate);
    const T b1p = scalar_of<T>(op, "Beta1Pow", beta1_pow);
    const T b2p = scalar_of<T>(op, "Beta2Pow", beta2_pow);
    const Shape b1s = beta1_pow.shape(), b2s = beta2_pow.shape();
    const DType b1t = beta1_pow.dtype(), b2t = beta2_pow.dtype();
    const T beta1 = beta1_tensor ? scalar_of<T>(op, "Beta1Tensor", *beta1_tensor) : static_cast<T>(attrs.beta1);
    const T beta2 = beta2_tensor ? scalar_of<T>(op, "Beta2Tensor", *beta2_tensor) : static_cast<T>(attrs.beta2);
    const T epsilon =
        epsilon_tensor ? scalar_of<T>(op, "EpsilonTensor", *epsilon_tensor) : static_cast<T>(attrs.epsilon);
    // Bias correction folded into the step size and epsilon, as Paddle does.
    const T lr = lr0 * (std::sqrt(T(1) - b2p) / (T(1) - b1p));
    const T eps = epsilon * std::sqrt(T(1) - b2p);

    param_out.resize(param.shape(), param.dtype());
    moment1_out.resize(param.shape(), param.dtype());
    moment2_out.resize(param.shape(), param.dtype());
    const T* p = param.data<T>();
    const T* g = grad.data<T>();
    const T* m1 = moment1.data<T>();
    const T* m2 = moment2.data<T>();
    T* po = param_out.data<T>();
    T* m1o = moment1_out.data<T>();
    T* m2o = moment2_out.data<T>();
    parallel_ranges(param.numel(), [&](int64_t begin, int64_t end) {
      FLUIDC_ELEMENTWISE_LOOP
      for (int64_t i = begin; i < end; ++i) {
        const T gi = g[i];
        const T a = beta1 * m1[i] + (T(1) - beta1) * gi;
        const T b = beta2 * m2[i] + (T(1) - beta2) * gi * gi;
        const T pi = p[i];
        m1o[i] = a;
        m2o[i] = b;
        po[i] = pi + (-lr) * (a / (std::sqrt(b) + eps));
      }
    });

    if (!attrs.use_global_beta_pow) {
      auto store = [](Tensor* out, const Shape& s, DType t, T v) {
        if (!out) return;
        out->resize(s, t);
        if (t == DType::kFP32) out->data<float>()[0] = static_cast<float>(v);
        else out->data<double>()[0] = static_cast<double>(v);
      };
      store(beta1_pow_out, b1s, b1t, b1p * beta1);
      store(beta2_pow_out, b2s, b2t, b2p * beta2);
    }
  });
}

}  // namespace fluidc::kernels
