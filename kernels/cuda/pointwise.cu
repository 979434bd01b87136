// kernels/cuda/pointwise.cu - fp32 elementwise device kernels: broadcasting binaries, activations and their gradients, fills.
#include <cstdint>
#include <type_traits>

#include "kernels/cuda/device.h"

namespace fluidc::kernels::cuda::dev {
namespace {

// Offsets of flat Out index i in both operands.
__device__ inline void offsets(const Strided& s, int64_t i, int64_t& oa, int64_t& ob) {
  oa = 0, ob = 0;
  for (int d = s.rank - 1; d >= 0; --d) {
    const int64_t q = i % s.dims[d];
    i /= s.dims[d];
    oa += q * s.a[d];
    ob += q * s.b[d];
  }
}

__global__ void binary_k(Binary op, const float* a, const float* b, float* out, int64_t n, Strided s) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t oa, ob;
    offsets(s, i, oa, ob);
    const float x = a[oa], y = b[ob];
    float r;
    switch (op) {
      case Binary::kAdd: r = x + y; break;
      case Binary::kSub: r = x - y; break;
      case Binary::kMul: r = x * y; break;
      default: r = x / y; break;
    }
    out[i] = r;
  }
}

__global__ void unary_k(Unary op, const float* x, float* out, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float v = x[i];
    float r;
    switch (op) {
      case Unary::kRelu: r = v > 0.f ? v : 0.f; break;
      case Unary::kSigmoid: r = 1.f / (1.f + expf(-v)); break;
      case Unary::kTanh: r = tanhf(v); break;
      case Unary::kSqrt: r = sqrtf(v); break;
      case Unary::kExp: r = expf(v); break;
      case Unary::kLog: r = logf(v); break;
      case Unary::kAbs: r = fabsf(v); break;
      default: r = v * v; break;
    }
    out[i] = r;
  }
}

__global__ void unary_grad_k(Unary op, const float* ref, const float* dout, float* dx, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float r = ref[i], g = dout[i];
    float d;
    switch (op) {
      case Unary::kRelu: d = r > 0.f ? g : 0.f; break;
      case Unary::kSigmoid: d = g * r * (1.f - r); break;
      case Unary::kTanh: d = g * (1.f - r * r); break;
      case Unary::kSqrt: d = g * 0.5f / r; break;
      case Unary::kExp: d = g * r; break;
      case Unary::kLog: d = g / r; break;
      case Unary::kAbs: d = g * static_cast<float>((r > 0.f) - (r < 0.f)); break;
      default: d = g * 2.f * r; break;
    }
    dx[i] = d;
  }
}

__global__ void scale_k(const float* x, float* out, int64_t n, float s, float bias, bool after, const float* sd) {
  const float k = sd ? *sd : s;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = after ? x[i] * k + bias : (x[i] + bias) * k;
}

template <class T>
__global__ void fill_k(T* out, int64_t n, T v) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = v;
}

template <class To, class From>
__device__ inline To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // The integer minimum (x86's cvtt* result for NaN and out of range), as the CPU cast.
    const To min = sizeof(To) == 4 ? static_cast<To>(INT32_MIN) : static_cast<To>(INT64_MIN);
    const double lo = static_cast<double>(min);
    const double d = static_cast<double>(v);
    if (!(d >= lo && d < -lo)) return min;
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

template <class To, class From>
__global__ void cast_k(const From* in, To* out, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = convert<To>(in[i]);
}

// Calls f with a value of the C++ type of dtype code `t` (rt::DType's codes).
template <class F>
bool visit(int t, F&& f) {
  switch (t) {
    case 0: f(bool{}); return true;
    case 2: f(int32_t{}); return true;
    case 3: f(int64_t{}); return true;
    case 5: f(float{}); return true;
    case 6: f(double{}); return true;
    default: return false;
  }
}

__global__ void accumulate_k(float* out, const float* x, int64_t n, bool first) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = first ? x[i] : out[i] + x[i];
}

__global__ void broadcast_k(const float* in, float* out, int64_t n, Strided s, float factor) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t oa, ob;
    offsets(s, i, oa, ob);
    out[i] = factor * in[oa];
  }
}

}  // namespace

void binary(Binary op, const float* a, const float* b, float* out, int64_t n, const Strided& s, cudaStream_t st) {
  const Grid g = grid_for(n);
  binary_k<<<g.blocks, g.threads, 0, st>>>(op, a, b, out, n, s);
}

void unary(Unary op, const float* x, float* out, int64_t n, cudaStream_t st) {
  const Grid g = grid_for(n);
  unary_k<<<g.blocks, g.threads, 0, st>>>(op, x, out, n);
}

void unary_grad(Unary op, const float* ref, const float* dout, float* dx, int64_t n, cudaStream_t st) {
  const Grid g = grid_for(n);
  unary_grad_k<<<g.blocks, g.threads, 0, st>>>(op, ref, dout, dx, n);
}

void scale(const float* x, float* out, int64_t n, float s, float bias, bool after, const float* sd, cudaStream_t st) {
  const Grid g = grid_for(n);
  scale_k<<<g.blocks, g.threads, 0, st>>>(x, out, n, s, bias, after, sd);
}

void fill(void* out, int elem_bytes, int64_t n, uint64_t bits, cudaStream_t st) {
  const Grid g = grid_for(n);
  switch (elem_bytes) {
    case 1: fill_k<<<g.blocks, g.threads, 0, st>>>(static_cast<uint8_t*>(out), n, static_cast<uint8_t>(bits)); break;
    case 2: fill_k<<<g.blocks, g.threads, 0, st>>>(static_cast<uint16_t*>(out), n, static_cast<uint16_t>(bits)); break;
    case 4: fill_k<<<g.blocks, g.threads, 0, st>>>(static_cast<uint32_t*>(out), n, static_cast<uint32_t>(bits)); break;
    default: fill_k<<<g.blocks, g.threads, 0, st>>>(static_cast<uint64_t*>(out), n, bits); break;
  }
}

bool cast(const void* in, int in_dtype, void* out, int out_dtype, int64_t n, cudaStream_t st) {
  const Grid g = grid_for(n);
  bool ok = false;
  visit(in_dtype, [&](auto from) {
    using From = decltype(from);
    ok = visit(out_dtype, [&](auto to) {
      using To = decltype(to);
      cast_k<To, From><<<g.blocks, g.threads, 0, st>>>(static_cast<const From*>(in), static_cast<To*>(out), n);
    });
  });
  return ok;
}

void accumulate(float* out, const float* x, int64_t n, bool first, cudaStream_t st) {
  const Grid g = grid_for(n);
  accumulate_k<<<g.blocks, g.threads, 0, st>>>(out, x, n, first);
}

void broadcast(const float* in, float* out, int64_t n, const Strided& s, float factor, cudaStream_t st) {
  const Grid g = grid_for(n);
  broadcast_k<<<g.blocks, g.threads, 0, st>>>(in, out, n, s, factor);
}

}  // namespace fluidc::kernels::cuda::dev
