// kernels/cuda/ops.h - the CUDA kernels (fp32), one per op type, with the CPU kernels' signatures over DTensor.
//
// Each function takes its op's slots in the op table's order (inputs, then
// outputs; optional ones by pointer, duplicable ones as array + count) and
// the CPU kernel's attribute struct, so the generic call the emitter writes
// for the CPU (kernels/<family>.h) works here with `kc::` for `k::`. They
// read and write device storage (DTensor::dev), size outputs with the
// shared shape rules (kernels/shapes/), run on the current context's stream
// and throw rt::Error for bad shapes or dtypes. The op types listed in
// kernels/cuda/op_list.h are exactly the ones declared here.
#pragma once

#include "kernels/activation.h"
#include "kernels/activation_more.h"
#include "kernels/conv.h"
#include "kernels/elementwise.h"
#include "kernels/fill.h"
#include "kernels/index.h"
#include "kernels/loss.h"
#include "kernels/matmul.h"
#include "kernels/norm.h"
#include "kernels/optimizer.h"
#include "kernels/pool.h"
#include "kernels/reduce.h"
#include "kernels/reshape.h"
#include "kernels/tensor_manip.h"
#include "kernels/transpose.h"
#include "runtime/cuda/cuda_model.h"

namespace fluidc::kernels::cuda {

using cu::DTensor;

// matmul.cc (cuBLAS)
void mul(const DTensor& x, const DTensor& y, DTensor& out, const MulAttrs& attrs);
void mul_grad(const DTensor& x, const DTensor& y, const DTensor& out_grad, DTensor* x_grad, DTensor* y_grad,
              const MulAttrs& attrs);
void matmul(const DTensor& x, const DTensor& y, DTensor& out, const MatmulAttrs& attrs);
void matmul_grad(const DTensor& x, const DTensor& y, const DTensor& out_grad, DTensor* x_grad, DTensor* y_grad,
                 const MatmulAttrs& attrs);
void matmul_v2(const DTensor& x, const DTensor& y, DTensor& out, const MatmulV2Attrs& attrs);
void matmul_v2_grad(const DTensor& x, const DTensor& y, const DTensor& out_grad, DTensor* x_grad, DTensor* y_grad,
                    const MatmulV2Attrs& attrs);

// elementwise.cc (broadcasting as Paddle's axis rule)
void elementwise_add(const DTensor& x, const DTensor& y, DTensor& out, const ElementwiseAttrs& attrs);
void elementwise_sub(const DTensor& x, const DTensor& y, DTensor& out, const ElementwiseAttrs& attrs);
void elementwise_mul(const DTensor& x, const DTensor& y, DTensor& out, const ElementwiseAttrs& attrs);
void elementwise_div(const DTensor& x, const DTensor& y, DTensor& out, const ElementwiseAttrs& attrs);
void elementwise_add_grad(const DTensor& x, const DTensor& y, const DTensor& out_grad, DTensor* x_grad,
                          DTensor* y_grad, const ElementwiseAttrs& attrs);
void elementwise_sub_grad(const DTensor& x, const DTensor& y, const DTensor& out_grad, DTensor* x_grad,
                          DTensor* y_grad, const ElementwiseAttrs& attrs);
void elementwise_mul_grad(const DTensor& x, const DTensor& y, const DTensor& out_grad, DTensor* x_grad,
                          DTensor* y_grad, const ElementwiseAttrs& attrs);
void elementwise_div_grad(const DTensor& x, const DTensor& y, const DTensor& out, const DTensor& out_grad,
                          DTensor* x_grad, DTensor* y_grad, const ElementwiseAttrs& attrs);

// activation.cc
void relu(const DTensor& x, DTensor& out);
void relu_grad(const DTensor& out, const DTensor& out_grad, DTensor* x_grad);
void sigmoid(const DTensor& x, DTensor& out);
void sigmoid_grad(const DTensor& out, const DTensor& out_grad, DTensor* x_grad);
void tanh(const DTensor& x, DTensor& out);
void tanh_grad(const DTensor& out, const DTensor& out_grad, DTensor* x_grad);
void square(const DTensor& x, DTensor& out);
void square_grad(const DTensor& x, const DTensor& out_grad, DTensor* x_grad);
void sqrt(const DTensor& x, DTensor& out);
void sqrt_grad(const DTensor& out, const DTensor& out_grad, DTensor* x_grad);
void exp(const DTensor& x, DTensor& out);
void exp_grad(const DTensor& out, const DTensor& out_grad, DTensor* x_grad);
void log(const DTensor& x, DTensor& out);
void log_grad(const DTensor& x, const DTensor& out_grad, DTensor* x_grad);
void abs(const DTensor& x, DTensor& out);
void abs_grad(const DTensor& x, const DTensor& out_grad, DTensor* x_grad);
void scale(const DTensor& x, const DTensor* scale_tensor, DTensor& out, const ScaleAttrs& attrs);
void fill_constant(const DTensor* value_tensor, const DTensor* shape_tensor, const DTensor* const* shape_list,
                   int num_shape_list, DTensor& out, const FillConstantAttrs& attrs);
void fill_any_like(const DTensor& x, DTensor& out, const FillAnyLikeAttrs& attrs);
void fill_zeros_like(const DTensor& x, DTensor& out);
void cast(const DTensor& x, DTensor& out, const CastAttrs& attrs);
void assign(const DTensor& x, DTensor& out);
void sum(const DTensor* const* xs, int n, DTensor& out);

// reduce.cc (reductions, softmax, softmax_with_cross_entropy)
void mean(const DTensor& x, DTensor& out);
void mean_grad(const DTensor& x, const DTensor& out_grad, DTensor* x_grad);
void reduce_sum(const DTensor& x, DTensor& out, const ReduceAttrs& attrs);
void reduce_mean(const DTensor& x, DTensor& out, const ReduceAttrs& attrs);
void reduce_sum_grad(const DTensor& x, const DTensor& out_grad, DTensor* x_grad, const ReduceAttrs& attrs);
void reduce_mean_grad(const DTensor& x, const DTensor& out_grad, DTensor* x_grad, const ReduceAttrs& attrs);
void softmax(const DTensor& x, DTensor& out, const SoftmaxAttrs& attrs);
void softmax_grad(const DTensor& out, const DTensor& out_grad, DTensor* x_grad, const SoftmaxAttrs& attrs);
void softmax_with_cross_entropy(const DTensor& logits, const DTensor& label, DTensor& softmax, DTensor& loss,
                                const SoftmaxWithCrossEntropyAttrs& attrs);
void softmax_with_cross_entropy_grad(const DTensor& label, const DTensor& softmax, const DTensor& loss_grad,
                                     DTensor* logits_grad, const SoftmaxWithCrossEntropyAttrs& attrs);

// reshape.cc (data moved unchanged, any dtype; XShape records X's dims as [0, dims...] without data)
void reshape2(const DTensor& x, const DTensor* shape, const DTensor* const* shape_tensor, int num_shape_tensor,
              DTensor& out, DTensor* x_shape, const Reshape2Attrs& attrs);
void reshape2_grad(const DTensor& x_shape, const DTensor& out_grad, DTensor* x_grad);
void flatten_contiguous_range(const DTensor& x, DTensor& out, DTensor* x_shape, const FlattenAttrs& attrs);
void flatten_contiguous_range_grad(const DTensor& x_shape, const DTensor& out_grad, DTensor* x_grad);
void squeeze2(const DTensor& x, DTensor& out, DTensor* x_shape, const Squeeze2Attrs& attrs);
void squeeze2_grad(const DTensor& x_shape, const DTensor& out_grad, DTensor* x_grad);
void unsqueeze2(const DTensor& x, const DTensor* axes_tensor, const DTensor* const* axes_list, int num_axes_list,
                DTensor& out, DTensor* x_shape, const Unsqueeze2Attrs& attrs);
void unsqueeze2_grad(const DTensor& x_shape, const DTensor& out_grad, DTensor* x_grad);

// layout.cc (strided copies, any dtype; slice bounds from the attributes)
void slice(const DTensor& input, const DTensor* starts_tensor, const DTensor* ends_tensor,
           const DTensor* const* starts_list, int num_starts, const DTensor* const* ends_list, int num_ends,
           DTensor& out, const SliceAttrs& attrs);
void slice_grad(const DTensor& input, const DTensor* starts_tensor, const DTensor* ends_tensor,
                const DTensor* const* starts_list, int num_starts, const DTensor* const* ends_list, int num_ends,
                const DTensor& out_grad, DTensor* input_grad, const SliceAttrs& attrs);
void transpose2(const DTensor& x, DTensor& out, DTensor* x_shape, const TransposeAttrs& attrs);
void transpose2_grad(const DTensor& x_shape, const DTensor& out_grad, DTensor* x_grad, const TransposeAttrs& attrs);

// conv.cc (cuDNN; NHWC, fused bias/residual/activation and asymmetric padding run the CPU kernel on the host)
void conv2d(const DTensor& input, const DTensor& filter, const DTensor* bias, const DTensor* residual_data,
            DTensor& output, const ConvAttrs& attrs);
void conv2d_grad(const DTensor& input, const DTensor& filter, const DTensor& output_grad, DTensor* input_grad,
                 DTensor* filter_grad, const ConvAttrs& attrs);
void depthwise_conv2d(const DTensor& input, const DTensor& filter, const DTensor* bias, const DTensor* residual_data,
                      DTensor& output, const ConvAttrs& attrs);
void depthwise_conv2d_grad(const DTensor& input, const DTensor& filter, const DTensor& output_grad,
                           DTensor* input_grad, DTensor* filter_grad, const ConvAttrs& attrs);

// pool_norm.cc (pool2d channel-first, channel-last on the host; batch_norm any layout)
void pool2d(const DTensor& x, DTensor& out, const PoolAttrs& attrs);
void pool2d_grad(const DTensor& x, const DTensor& out, const DTensor& out_grad, DTensor* x_grad,
                 const PoolAttrs& attrs);
void batch_norm(const DTensor& x, const DTensor& scale, const DTensor& bias, const DTensor& mean,
                const DTensor& variance, const DTensor* momentum_tensor, DTensor& y, DTensor* mean_out,
                DTensor* variance_out, DTensor* saved_mean, DTensor* saved_variance, DTensor* reserve_space,
                const BatchNormAttrs& attrs);
void batch_norm_grad(const DTensor& x, const DTensor& scale, const DTensor* bias, const DTensor* mean,
                     const DTensor* variance, const DTensor& saved_mean, const DTensor& saved_variance,
                     const DTensor* mean_out, const DTensor* variance_out, const DTensor* reserve_space,
                     const DTensor& y_grad, DTensor* x_grad, DTensor* scale_grad, DTensor* bias_grad,
                     const BatchNormAttrs& attrs);

// transformer.cc (gelu, layer_norm, the embedding lookup)
void gelu(const DTensor& x, DTensor& out, const GeluAttrs& a);
void gelu_grad(const DTensor& x, const DTensor& out_grad, DTensor* x_grad, const GeluAttrs& a);
void layer_norm(const DTensor& x, const DTensor* scale, const DTensor* bias, DTensor& y, DTensor* mean,
                DTensor* variance, const LayerNormAttrs& attrs);
void layer_norm_grad(const DTensor& x, const DTensor* scale, const DTensor* bias, const DTensor& mean,
                     const DTensor& variance, const DTensor& y_grad, DTensor* x_grad, DTensor* scale_grad,
                     DTensor* bias_grad, const LayerNormAttrs& attrs);
void lookup_table_v2(const DTensor& ids, const DTensor& w, DTensor& out, const LookupTableV2Attrs& attrs);
void lookup_table_v2_grad(const DTensor& ids, const DTensor& w, const DTensor& out_grad, DTensor* w_grad,
                          const LookupTableV2Attrs& attrs);

// cross_entropy.cc (over probabilities; hard int32/int64 labels)
void cross_entropy2(const DTensor& x, const DTensor& label, DTensor& y, DTensor& x_shape, DTensor& match_x,
                    const CrossEntropy2Attrs& attrs);
void cross_entropy_grad2(const DTensor& label, const DTensor& match_x, const DTensor& x_shape, const DTensor& y_grad,
                         DTensor* x_grad, const CrossEntropy2Attrs& attrs);

// optimizer.cc (learning rate and beta powers stay on the device)
void sgd(const DTensor& param, const DTensor& learning_rate, const DTensor& grad, DTensor& param_out);
void momentum(const DTensor& param, const DTensor& grad, const DTensor& velocity, const DTensor& learning_rate,
              DTensor& param_out, DTensor& velocity_out, const MomentumAttrs& attrs);
void adam(const DTensor& param, const DTensor& grad, const DTensor& learning_rate, const DTensor& moment1,
          const DTensor& moment2, const DTensor& beta1_pow, const DTensor& beta2_pow, const DTensor* beta1_tensor,
          const DTensor* beta2_tensor, const DTensor* epsilon_tensor, DTensor& param_out, DTensor& moment1_out,
          DTensor& moment2_out, DTensor* beta1_pow_out, DTensor* beta2_pow_out, const AdamAttrs& attrs);

}  // namespace fluidc::kernels::cuda
