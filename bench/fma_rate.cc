// bench/fma_rate.cc - one thread's fp32 multiply-add peak with 512-bit and 256-bit vectors (the roof a conv kernel's GFLOP/s is read against).
// usage: fma_rate [repeats]   prints "avx512 <GFLOP/s>" and "avx2 <GFLOP/s>", each the median of the repeats
//
// Independent accumulators (24 with AVX-512's 32 registers, 12 with AVX2's
// 16): enough chains to keep two FMA units busy through a 4-cycle latency,
// no loads. A CPU without AVX-512 prints 0 for
// that line. The machines fluidc is measured on differ (an AMD Zen 5 VM, an
// Intel Xeon VM): conv_rate's GFLOP/s only compare against this roof.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

template <int W, int A>
__attribute__((always_inline)) inline float multiply_adds(long iters, float s) {
  typedef float v __attribute__((vector_size(W * 4)));
  v acc[A];
  v b = v{} + s;
  for (int j = 0; j < A; ++j) acc[j] = b * static_cast<float>(j);
  for (long it = 0; it < iters; ++it) {
#pragma clang loop unroll(full)
    for (int j = 0; j < A; ++j) acc[j] = acc[j] * b + b;
  }
  v t = {};
  for (int j = 0; j < A; ++j) t += acc[j];
  float r = 0;
  for (int i = 0; i < W; ++i) r += t[i];
  return r;
}

__attribute__((target("avx512f"), noinline)) float multiply_adds_512(long iters, float s) { return multiply_adds<16, 24>(iters, s); }
__attribute__((target("avx2,fma"), noinline)) float multiply_adds_256(long iters, float s) { return multiply_adds<8, 12>(iters, s); }

template <class F>
double median_gflops(int reps, int flops_per_iter, F fn) {
  constexpr long kIters = 10000000;
  std::vector<double> rates;
  volatile float sink = 0;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    sink = sink + fn(kIters, 0.999f);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rates.push_back(static_cast<double>(flops_per_iter) * kIters / s / 1e9);
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  __builtin_cpu_init();
  std::printf("avx512 %.1f\n", __builtin_cpu_supports("avx512f") ? median_gflops(reps, 2 * 24 * 16, multiply_adds_512) : 0.0);
  std::printf("avx2 %.1f\n", __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
                                 ? median_gflops(reps, 2 * 12 * 8, multiply_adds_256)
                                 : 0.0);
  return 0;
}
