// kernels/cpu/rnn_coalesce.cc - coalesce_tensor: the flat weight copy in the startup program of Paddle's RNN layers.
#include "kernels/cpu/kernel_util.h"
#include "kernels/rnn.h"

namespace fluidc::kernels {

void coalesce_tensor(const Tensor* const* input, int num_input, Tensor* const* output, int num_output,
                     Tensor& fused_output, const CoalesceTensorAttrs& attrs) {
  using namespace detail;
  if (attrs.use_align)
    rt::fail("coalesce_tensor: use_align pads by Paddle's device alignment, which fluidc does not reproduce");
  if (num_output != num_input)
    rt::fail(fmt::format("coalesce_tensor: {} Output for {} Input tensors", num_output, num_input));
  if (num_input == 0) rt::fail("coalesce_tensor: no Input tensors");
  int64_t total = 0;
  for (int i = 0; i < num_input; ++i) {
    require_init("coalesce_tensor", "Input", *input[i]);
    require_same_dtype("coalesce_tensor", "Input", *input[i], "Input[0]", *input[0]);
    total += input[i]->numel();
  }
  const DType dt = input[0]->dtype();
  visit_float("coalesce_tensor", "Input", dt, [&](auto tag) {
    using T = decltype(tag);
    fused_output.resize(Shape{total}, dt);
    T* f = fused_output.data<T>();
    int64_t at = 0;
    for (int i = 0; i < num_input; ++i) {
      const Tensor& x = *input[i];
      const int64_t n = x.numel();
      if (output[i] && output[i] != &x) output[i]->copy_from(x);
      if (attrs.set_constant) {
        for (int64_t k = 0; k < n; ++k) f[at + k] = static_cast<T>(attrs.constant);
        if (output[i])
          for (int64_t k = 0; k < n; ++k) output[i]->data<T>()[k] = static_cast<T>(attrs.constant);
      } else if (attrs.copy_data) {
        const T* src = x.data<T>();
        for (int64_t k = 0; k < n; ++k) f[at + k] = src[k];
      } else {
        for (int64_t k = 0; k < n; ++k) f[at + k] = T(0);
      }
      at += n;
    }
  });
}

}  // namespace fluidc::kernels
