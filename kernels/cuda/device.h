// kernels/cuda/device.h - host-callable launchers of the fp32 device kernels (implemented in kernels/cuda/*.cu).
//
// The op kernels (ops.h, *.cc) check shapes and size outputs on the host,
// then call these with raw device pointers; every launcher queues work on
// `stream` and never synchronises, so a step can be captured into a graph.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace fluidc::kernels::cuda::dev {

constexpr int kMaxRank = 9;

/// An elementwise walk over Out's dims with each operand's strides (0 where
/// it is broadcast along a dim).
struct Strided {
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t a[kMaxRank] = {};
  int64_t b[kMaxRank] = {};
};

enum class Binary { kAdd, kSub, kMul, kDiv };
void binary(Binary op, const float* a, const float* b, float* out, int64_t n, const Strided& s, cudaStream_t st);

enum class Unary { kRelu, kSigmoid, kTanh, kSquare, kSqrt, kExp, kLog, kAbs };
void unary(Unary op, const float* x, float* out, int64_t n, cudaStream_t st);
/// x_grad from the forward output (relu, sigmoid, tanh, sqrt, exp) or input (square, log, abs).
void unary_grad(Unary op, const float* ref, const float* dout, float* dx, int64_t n, cudaStream_t st);

/// out = x * s + bias (bias_after_scale) or (x + bias) * s; s = *scale_dev when given.
void scale(const float* x, float* out, int64_t n, float s, float bias, bool bias_after, const float* scale_dev,
           cudaStream_t st);
/// Every element of `out` (elem_bytes wide) set to the bit pattern `bits`.
void fill(void* out, int elem_bytes, int64_t n, uint64_t bits, cudaStream_t st);
/// Element conversion between dtype codes (rt::DType: bool, int32, int64,
/// float32, float64), as the CPU cast: float to integer truncates, NaN and
/// out-of-range values give the integer minimum. False for other codes.
bool cast(const void* in, int in_dtype, void* out, int out_dtype, int64_t n, cudaStream_t st);
/// out (+)= x: the first input copies, the others add (sum over several inputs).
void accumulate(float* out, const float* x, int64_t n, bool first, cudaStream_t st);

/// out[o] = factor * sum over r of in[kept(o) + reduced(r)], one block per
/// output element (a fixed tree order: deterministic).
struct ReduceSpec {
  int64_t outputs = 1, count = 1;
  int krank = 0, rrank = 0;
  int64_t kdims[kMaxRank] = {}, kstr[kMaxRank] = {};
  int64_t rdims[kMaxRank] = {}, rstr[kMaxRank] = {};
};
void reduce_sum(const float* in, float* out, const ReduceSpec& r, float factor, cudaStream_t st);
/// out[i] = factor * in[offset of i under s.a] (s.b unused): expands a reduced gradient.
void broadcast(const float* in, float* out, int64_t n, const Strided& s, float factor, cudaStream_t st);

/// Softmax along the middle dim of [outer, n, inner] (Paddle's -64 clip of the shifted logits).
void softmax(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, cudaStream_t st);
void softmax_grad(const float* y, const float* dy, float* dx, int64_t outer, int64_t n, int64_t inner,
                  cudaStream_t st);
/// Cross entropy of a softmax: hard labels (int32 or int64; ignore_index
/// gives 0) or soft ones (float, Logits' shape). Loss is [outer, 1, inner].
/// `bad_label` gets 1 when a hard label is out of range (read at the next copy back).
void xent_hard(const float* sm, const void* label, bool label64, float* loss, int64_t outer, int64_t n,
               int64_t inner, int ignore_index, int* bad_label, cudaStream_t st);
void xent_soft(const float* sm, const float* label, float* loss, int64_t outer, int64_t n, int64_t inner,
               cudaStream_t st);
/// The gradients with respect to the logits, or with `probs` (use_softmax=false:
/// `sm` holds the probabilities the program gave) with respect to them: -dLoss / p.
void xent_hard_grad(const float* sm, const void* label, bool label64, const float* dloss, float* dx, int64_t outer,
                    int64_t n, int64_t inner, int ignore_index, bool probs, cudaStream_t st);
void xent_soft_grad(const float* sm, const float* label, const float* dloss, float* dx, int64_t outer, int64_t n,
                    int64_t inner, bool probs, cudaStream_t st);

/// cross_entropy2 over rows of D probabilities: Y = -log(X[label]) and
/// MatchX = X[label] (both 0 where ignored); the gradient -dY / MatchX at
/// the label, 0 elsewhere.
void xent2(const float* x, const void* label, bool label64, float* y, float* match, int64_t rows, int64_t d,
           int ignore_index, cudaStream_t st);
void xent2_grad(const float* match, const void* label, bool label64, const float* dy, float* dx, int64_t rows,
                int64_t d, int ignore_index, cudaStream_t st);

/// Optimizers: the learning rate and beta powers are device scalars.
void sgd(const float* p, const float* lr, const float* g, float* po, int64_t n, cudaStream_t st);
void momentum(const float* p, const float* g, const float* v, const float* lr, float* po, float* vo, int64_t n,
              float mu, bool nesterov, bool l2, float coeff, cudaStream_t st);
/// beta1/beta2/eps come from the *_dev pointers when given, else the values.
void adam(const float* p, const float* g, const float* lr, const float* m1, const float* m2, const float* b1p,
          const float* b2p, const float* beta1_dev, const float* beta2_dev, const float* eps_dev, float* po,
          float* m1o, float* m2o, int64_t n, float beta1, float beta2, float eps, cudaStream_t st);
/// Beta powers advanced after the update (one thread; out may alias in).
void adam_pows(const float* b1p, const float* b2p, float* b1o, float* b2o, const float* beta1_dev,
               const float* beta2_dev, float beta1, float beta2, cudaStream_t st);

/// gelu (erf form, or tanh form with `approximate`) and its gradient from X.
void gelu(const float* x, float* out, int64_t n, bool approximate, cudaStream_t st);
void gelu_grad(const float* x, const float* dout, float* dx, int64_t n, bool approximate, cudaStream_t st);

/// layer_norm over rows of `cols`: y = (x - mean) / sqrt(var + eps) * scale + bias (each optional), the
/// population mean and variance of each row accumulated in double (mean/var may be null).
void layer_norm(const float* x, const float* scale, const float* bias, float* y, float* mean, float* var, int64_t rows,
                int64_t cols, float eps, cudaStream_t st);
/// Its gradients (each output may be null), in double as the CPU kernel: dx per row; dscale and dbias summed
/// over the rows, one column per thread in row order (deterministic).
void layer_norm_grad(const float* x, const float* scale, const float* mean, const float* var, const float* dy,
                     float* dx, float* dscale, float* dbias, int64_t rows, int64_t cols, float eps, cudaStream_t st);

/// Embedding lookup: out row i = W row ids[i] (int64 or int32 ids); zeros for the padding id, NaN for an id
/// outside W (found without reading the ids back: the loss turns NaN and the trainer stops).
void embedding(const void* ids, bool ids64, const float* w, float* out, int64_t n, int64_t rows, int64_t d,
               int64_t pad, cudaStream_t st);
/// W@GRAD: zeros, then each dOut row added into the row its id names (atomic adds: their order varies),
/// the padding row only when `grad_pad`.
void embedding_grad(const void* ids, bool ids64, const float* dout, float* dw, int64_t n, int64_t rows, int64_t d,
                    int64_t pad, bool grad_pad, cudaStream_t st);

/// Any dtype's elements (elem_bytes 1, 2, 4 or 8): out[i] = in[offset of i under s.a] (gather: slices and
/// transposes), or with `scatter` out[offset of i under s.a] = in[i] (a slice's gradient).
void strided_copy(const void* in, void* out, int elem_bytes, int64_t n, const Strided& s, bool scatter,
                  cudaStream_t st);

/// pool2d over NCHW planes (planes = N*C): windows as kernels/shapes/pool.h's PoolGeom (adaptive bins, or
/// stride/pad windows clipped to the input); avg divides by the clipped window when exclusive or adaptive,
/// else by the unclipped one; max of an empty window is the lowest float.
struct Pool2d {
  int64_t planes = 0;
  int64_t in[2] = {}, out[2] = {}, k[2] = {}, s[2] = {}, pad[2] = {};
  bool max = true, adaptive = false, exclusive = true;
};
void pool2d(const float* x, float* y, const Pool2d& p, cudaStream_t st);
/// X@GRAD: zeros, then each output's gradient to the first element of its window equal to Out (max) or
/// shared over the window (avg), by atomic adds (overlapping windows: the order of the adds varies).
void pool2d_grad(const float* x, const float* y, const float* dy, float* dx, const Pool2d& p, cudaStream_t st);

/// batch_norm over [n, C, s] (C the channel dim, s the elements after it). Per channel, one block: the batch
/// moments in double (two passes, as the CPU kernel) or, with `global`, Mean/Variance; SavedMean and
/// SavedVariance (the inverse std; zeros with `global`), the running statistics
/// momentum * running + (1 - momentum) * batch (momentum from *momentum_dev when given; outputs may alias
/// the running inputs), and the per-channel multiplier and shift (`mul_add`, 2*C floats) for bn_apply.
struct BatchNorm {
  int64_t n = 0, c = 0, s = 0;
  float eps = 1e-5f, momentum = 0.9f;
  bool global = false;
};
void batch_norm_stats(const float* x, const float* scale, const float* bias, const float* mean, const float* var,
                      const float* momentum_dev, float* mean_out, float* var_out, float* saved_mean,
                      float* saved_var, float* mul_add, const BatchNorm& b, cudaStream_t st);
/// y = x * mul[c] + add[c].
void batch_norm_apply(const float* x, const float* mul_add, float* y, const BatchNorm& b, cudaStream_t st);
/// The gradients from the batch statistics (mean, inv_std) or, with `global`, the running ones (mean,
/// variance): per channel the sums of dy and dy * xhat in double (`sums`, 2*C doubles; written to
/// dscale/dbias when given), then dx.
void batch_norm_grad(const float* x, const float* scale, const float* mean, const float* var_or_inv, const float* dy,
                     float* dx, float* dscale, float* dbias, double* sums, const BatchNorm& b, cudaStream_t st);

/// Launch geometry of the elementwise kernels: 256 threads, at most
/// 65536 blocks, grid-stride beyond (unit-tested on the host).
struct Grid {
  unsigned blocks, threads;
};
constexpr Grid grid_for(int64_t n) {
  const int64_t threads = 256;
  int64_t blocks = (n + threads - 1) / threads;
  if (blocks < 1) blocks = 1;
  if (blocks > 65536) blocks = 65536;
  return {static_cast<unsigned>(blocks), static_cast<unsigned>(threads)};
}

}  // namespace fluidc::kernels::cuda::dev
