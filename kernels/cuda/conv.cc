// kernels/cuda/conv.cc - conv2d and depthwise_conv2d (and gradients) through cuDNN; other layouts on the host.
//
// NCHW, float32, without the fused Bias/ResidualData/activation of Paddle's inference fusions: cuDNN's
// legacy convolution API with the heuristics' first algorithm in FMA math (no TF32: float32 results within
// rounding of the CPU kernel's), its workspace from the context's scratch (allocated once, so a captured
// step allocates nothing). Anything else runs the CPU kernel on the host (host_fallback.h).
#include <cudnn.h>

#include <string>

#include "kernels/conv.h"
#include "kernels/cuda/host_fallback.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/shapes/conv.h"

namespace fluidc::kernels::cuda {

using namespace util;

namespace {

void check_cudnn(cudnnStatus_t s, const char* what) {
  if (s != CUDNN_STATUS_SUCCESS) rt::fail(std::string("cuDNN error in ") + what + ": " + cudnnGetErrorString(s));
}

// One handle per thread (a model instance steps on one thread at a time), on the current stream.
cudnnHandle_t handle() {
  thread_local cudnnHandle_t h = nullptr;
  if (!h) check_cudnn(cudnnCreate(&h), "cudnnCreate");
  check_cudnn(cudnnSetStream(h, stream()), "cudnnSetStream");
  return h;
}

// The descriptors of one convolution, destroyed with it.
struct Descriptors {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;

  explicit Descriptors(const shapes::ConvGeometry& g) {
    check_cudnn(cudnnCreateTensorDescriptor(&x), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateTensorDescriptor(&y), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateFilterDescriptor(&w), "cudnnCreateFilterDescriptor");
    check_cudnn(cudnnCreateConvolutionDescriptor(&conv), "cudnnCreateConvolutionDescriptor");
    auto i32 = [](int64_t v) { return static_cast<int>(v); };
    check_cudnn(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, i32(g.N), i32(g.C), i32(g.in[1]),
                                           i32(g.in[2])),
                "cudnnSetTensor4dDescriptor (Input)");
    check_cudnn(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, i32(g.N), i32(g.M), i32(g.out[1]),
                                           i32(g.out[2])),
                "cudnnSetTensor4dDescriptor (Output)");
    check_cudnn(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, i32(g.M), i32(g.C / g.groups),
                                           i32(g.k[1]), i32(g.k[2])),
                "cudnnSetFilter4dDescriptor");
    check_cudnn(cudnnSetConvolution2dDescriptor(conv, i32(g.pad[1]), i32(g.pad[2]), i32(g.stride[1]),
                                                i32(g.stride[2]), i32(g.dil[1]), i32(g.dil[2]),
                                                CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                "cudnnSetConvolution2dDescriptor");
    check_cudnn(cudnnSetConvolutionGroupCount(conv, i32(g.groups)), "cudnnSetConvolutionGroupCount");
    check_cudnn(cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH), "cudnnSetConvolutionMathType");
  }
  ~Descriptors() {
    cudnnDestroyConvolutionDescriptor(conv);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyTensorDescriptor(x);
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;
};

// The heuristics' first algorithm that works in FMA math.
template <class Perf, class Query>
Perf pick(const char* what, Query&& query) {
  Perf perf[16];
  int n = 0;
  check_cudnn(query(16, &n, perf), what);
  for (int i = 0; i < n; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].mathType == CUDNN_FMA_MATH) return perf[i];
  for (int i = 0; i < n; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS) return perf[i];
  rt::fail(std::string(what) + ": no algorithm for this convolution");
}

// The geometry when cuDNN takes the call: NCHW, 2-D, padding that one symmetric value per dim reproduces
// (an after-padding that changes no output position is never read), no fusions.
bool on_device(const char* op, const DTensor& input, const DTensor& filter, const DTensor* bias,
               const DTensor* residual, const ConvAttrs& a, shapes::ConvGeometry& g) {
  if (bias || residual || !a.fuse_activation.empty()) return false;
  if (input.ddtype() != rt::DType::kFP32 || filter.ddtype() != rt::DType::kFP32) return false;
  require_rule(op, shapes::conv_shape(input.dshape(), filter.dshape(), a, 2, g));
  if (g.channel_last) return false;
  for (int i = 1; i < 3; ++i)
    if ((g.in[i] + 2 * g.pad[i] - (g.dil[i] * (g.k[i] - 1) + 1)) / g.stride[i] + 1 != g.out[i]) return false;
  return true;
}

void forward(const char* op, const DTensor& input, const DTensor& filter, const DTensor* bias,
             const DTensor* residual, DTensor& output, const ConvAttrs& a,
             void (*cpu)(const rt::Tensor&, const rt::Tensor&, const rt::Tensor*, const rt::Tensor*, rt::Tensor&,
                         const ConvAttrs&)) {
  require_dev(op, "Input", input);
  require_dev(op, "Filter", filter);
  shapes::ConvGeometry g;
  if (!on_device(op, input, filter, bias, residual, a, g))
    return run_on_host({&input, &filter, bias, residual}, {&output}, [&] { cpu(input, filter, bias, residual, output, a); });
  if (same_storage(output, input) || same_storage(output, filter))
    rt::fail(std::string(op) + ": Output must not share storage with Input or Filter");
  output.dresize(g.out_shape, rt::DType::kFP32);
  if (output.dnumel() == 0) return;
  const Descriptors d(g);
  cudnnHandle_t h = handle();
  const auto perf = pick<cudnnConvolutionFwdAlgoPerf_t>("cudnnGetConvolutionForwardAlgorithm_v7",
                                                        [&](int want, int* got, cudnnConvolutionFwdAlgoPerf_t* p) {
    return cudnnGetConvolutionForwardAlgorithm_v7(h, d.x, d.w, d.conv, d.y, want, got, p);
  });
  size_t ws = 0;
  check_cudnn(cudnnGetConvolutionForwardWorkspaceSize(h, d.x, d.w, d.conv, d.y, perf.algo, &ws),
              "cudnnGetConvolutionForwardWorkspaceSize");
  const float one = 1.f, zero = 0.f;
  check_cudnn(cudnnConvolutionForward(h, &one, d.x, f(input), d.w, f(filter), d.conv, perf.algo,
                                      ws ? cu::current().scratch(ws) : nullptr, ws, &zero, d.y, f(output)),
              "cudnnConvolutionForward");
  cu::launched(op);
}

void backward(const char* op, const DTensor& input, const DTensor& filter, const DTensor& output_grad,
              DTensor* input_grad, DTensor* filter_grad, const ConvAttrs& a,
              void (*cpu)(const rt::Tensor&, const rt::Tensor&, const rt::Tensor&, rt::Tensor*, rt::Tensor*,
                          const ConvAttrs&)) {
  require_dev(op, "Input", input);
  require_dev(op, "Filter", filter);
  require_dev(op, "Output@GRAD", output_grad);
  shapes::ConvGeometry g;
  if (!on_device(op, input, filter, nullptr, nullptr, a, g) || output_grad.ddtype() != rt::DType::kFP32)
    return run_on_host({&input, &filter, &output_grad}, {input_grad, filter_grad},
                       [&] { cpu(input, filter, output_grad, input_grad, filter_grad, a); });
  if (output_grad.dshape() != g.out_shape)
    rt::fail(std::string(op) + ": Output@GRAD " + output_grad.dshape().str() + " is not the output " +
             g.out_shape.str());
  for (const DTensor* t : {input_grad, filter_grad})
    if (t && (same_storage(*t, input) || same_storage(*t, filter) || same_storage(*t, output_grad)))
      rt::fail(std::string(op) + ": a gradient must not share storage with an input");
  const Descriptors d(g);
  cudnnHandle_t h = handle();
  const float one = 1.f, zero = 0.f;
  if (input_grad) {
    input_grad->dresize(input.dshape(), rt::DType::kFP32);
    if (input_grad->dnumel() && output_grad.dnumel()) {
      const auto perf = pick<cudnnConvolutionBwdDataAlgoPerf_t>(
          "cudnnGetConvolutionBackwardDataAlgorithm_v7", [&](int want, int* got, cudnnConvolutionBwdDataAlgoPerf_t* p) {
            return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w, d.y, d.conv, d.x, want, got, p);
          });
      size_t ws = 0;
      check_cudnn(cudnnGetConvolutionBackwardDataWorkspaceSize(h, d.w, d.y, d.conv, d.x, perf.algo, &ws),
                  "cudnnGetConvolutionBackwardDataWorkspaceSize");
      check_cudnn(cudnnConvolutionBackwardData(h, &one, d.w, f(filter), d.y, f(output_grad), d.conv, perf.algo,
                                               ws ? cu::current().scratch(ws) : nullptr, ws, &zero, d.x,
                                               f(*input_grad)),
                  "cudnnConvolutionBackwardData");
      cu::launched(op);
    } else if (input_grad->dnumel()) {
      cu::check(cudaMemsetAsync(f(*input_grad), 0, input_grad->dnumel() * sizeof(float), stream()), op);
    }
  }
  if (filter_grad) {
    filter_grad->dresize(filter.dshape(), rt::DType::kFP32);
    if (filter_grad->dnumel() && output_grad.dnumel()) {
      const auto perf = pick<cudnnConvolutionBwdFilterAlgoPerf_t>(
          "cudnnGetConvolutionBackwardFilterAlgorithm_v7",
          [&](int want, int* got, cudnnConvolutionBwdFilterAlgoPerf_t* p) {
            return cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x, d.y, d.conv, d.w, want, got, p);
          });
      size_t ws = 0;
      check_cudnn(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d.x, d.y, d.conv, d.w, perf.algo, &ws),
                  "cudnnGetConvolutionBackwardFilterWorkspaceSize");
      check_cudnn(cudnnConvolutionBackwardFilter(h, &one, d.x, f(input), d.y, f(output_grad), d.conv, perf.algo,
                                                 ws ? cu::current().scratch(ws) : nullptr, ws, &zero, d.w,
                                                 f(*filter_grad)),
                  "cudnnConvolutionBackwardFilter");
      cu::launched(op);
    } else if (filter_grad->dnumel()) {
      cu::check(cudaMemsetAsync(f(*filter_grad), 0, filter_grad->dnumel() * sizeof(float), stream()), op);
    }
  }
}

}  // namespace

void conv2d(const DTensor& input, const DTensor& filter, const DTensor* bias, const DTensor* residual_data,
            DTensor& output, const ConvAttrs& attrs) {
  forward("conv2d", input, filter, bias, residual_data, output, attrs, &kernels::conv2d);
}

void conv2d_grad(const DTensor& input, const DTensor& filter, const DTensor& output_grad, DTensor* input_grad,
                 DTensor* filter_grad, const ConvAttrs& attrs) {
  backward("conv2d_grad", input, filter, output_grad, input_grad, filter_grad, attrs, &kernels::conv2d_grad);
}

void depthwise_conv2d(const DTensor& input, const DTensor& filter, const DTensor* bias, const DTensor* residual_data,
                      DTensor& output, const ConvAttrs& attrs) {
  forward("depthwise_conv2d", input, filter, bias, residual_data, output, attrs, &kernels::depthwise_conv2d);
}

void depthwise_conv2d_grad(const DTensor& input, const DTensor& filter, const DTensor& output_grad,
                           DTensor* input_grad, DTensor* filter_grad, const ConvAttrs& attrs) {
  backward("depthwise_conv2d_grad", input, filter, output_grad, input_grad, filter_grad, attrs,
           &kernels::depthwise_conv2d_grad);
}

}  // namespace fluidc::kernels::cuda
