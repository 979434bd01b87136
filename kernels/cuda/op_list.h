// kernels/cuda/op_list.h - the op types the CUDA target compiles: the one list, asked by the CUDA target and tests.
//
// Each has a kernel in kernels/cuda/ops.h with its CPU kernel's signature
// (test cuda_kernel_abi compiles the generic call of every entry against
// it). Header-only, no CUDA: the compiler includes it.
#pragma once

#include <algorithm>
#include <iterator>
#include <string_view>

namespace fluidc::kernels::cuda {

inline constexpr std::string_view kOpTypes[] = {
    "abs", "abs_grad", "adam", "assign", "batch_norm", "batch_norm_grad", "cast", "conv2d", "conv2d_grad",
    "cross_entropy2", "cross_entropy_grad2", "depthwise_conv2d", "depthwise_conv2d_grad", "elementwise_add", "elementwise_add_grad", "elementwise_div", "elementwise_div_grad",
    "elementwise_mul", "elementwise_mul_grad", "elementwise_sub", "elementwise_sub_grad", "exp", "exp_grad", "fill_any_like", "fill_constant",
    "fill_zeros_like", "flatten_contiguous_range", "flatten_contiguous_range_grad", "gelu", "gelu_grad", "layer_norm",
    "layer_norm_grad", "log", "log_grad", "lookup_table_v2", "lookup_table_v2_grad", "matmul",
    "matmul_grad", "matmul_v2", "matmul_v2_grad", "mean", "mean_grad", "momentum", "mul", "mul_grad", "pool2d", "pool2d_grad", "reduce_mean",
    "reduce_mean_grad", "reduce_sum", "reduce_sum_grad", "relu", "relu_grad", "reshape2", "reshape2_grad",
    "scale", "sgd", "sigmoid", "sigmoid_grad", "slice", "slice_grad", "softmax", "softmax_grad", "softmax_with_cross_entropy",
    "softmax_with_cross_entropy_grad", "sqrt", "sqrt_grad", "square", "square_grad", "squeeze2", "squeeze2_grad", "sum",
    "tanh", "tanh_grad", "transpose2", "transpose2_grad", "unsqueeze2", "unsqueeze2_grad",
};

/// The CUDA kernels that take tensors of other dtypes than float32 (casts,
/// copies, fills, integer labels). Every other kernel computes float32 only:
/// the generated code runs such an op on the host (runtime/cuda/host_ops.h)
/// when one of its inputs is not float32.
inline constexpr std::string_view kAnyDtypeOpTypes[] = {
    "assign", "cast", "cross_entropy2", "cross_entropy_grad2", "fill_any_like", "fill_constant", "fill_zeros_like",
    "flatten_contiguous_range", "flatten_contiguous_range_grad", "lookup_table_v2", "lookup_table_v2_grad",
    "reshape2", "reshape2_grad", "slice", "slice_grad", "softmax_with_cross_entropy", "softmax_with_cross_entropy_grad",
    "squeeze2", "squeeze2_grad", "transpose2", "transpose2_grad", "unsqueeze2", "unsqueeze2_grad",
};

/// Input slots a CUDA kernel does not take (their values would be read back
/// to the host in the middle of the step): an op given one of them runs on
/// the host instead (runtime/cuda/host_ops.h).
struct HostOnlyInputs {
  std::string_view type;
  std::string_view slots[4];
};
inline constexpr HostOnlyInputs kHostOnlyInputs[] = {
    {"fill_constant", {"ValueTensor", "ShapeTensor", "ShapeTensorList", ""}},
    {"reshape2", {"Shape", "ShapeTensor", "", ""}},
    {"slice", {"StartsTensor", "EndsTensor", "StartsTensorList", "EndsTensorList"}},
    {"slice_grad", {"StartsTensor", "EndsTensor", "StartsTensorList", "EndsTensorList"}},
    {"unsqueeze2", {"AxesTensor", "AxesTensorList", "", ""}},
};

/// Whether `type`'s CUDA kernel refuses an input in `slot`.
inline bool host_only_input(std::string_view type, std::string_view slot) {
  for (const HostOnlyInputs& h : kHostOnlyInputs)
    if (h.type == type) return std::find(std::begin(h.slots), std::end(h.slots), slot) != std::end(h.slots);
  return false;
}

/// Whether `type`'s CUDA kernel needs float32 inputs.
inline bool float32_only(std::string_view type) {
  return std::find(std::begin(kAnyDtypeOpTypes), std::end(kAnyDtypeOpTypes), type) == std::end(kAnyDtypeOpTypes);
}

/// Whether `type` has a CUDA kernel.
inline bool has_kernel(std::string_view type) {
  return std::find(std::begin(kOpTypes), std::end(kOpTypes), type) != std::end(kOpTypes);
}

}  // namespace fluidc::kernels::cuda
