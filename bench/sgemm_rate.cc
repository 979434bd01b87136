// bench/sgemm_rate.cc - the machine's practical GEMM peak: oneDNN sgemm GFLOP/s for given shapes (median of runs).
// usage: sgemm_rate M N K [repeats]   prints "<GFLOP/s>"
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: sgemm_rate M N K [repeats]\n");
    return 2;
  }
  const long M = std::atol(argv[1]), N = std::atol(argv[2]), K = std::atol(argv[3]);
  const int reps = argc > 4 ? std::atoi(argv[4]) : 50;
  std::vector<float> a(M * K, 0.5f), b(K * N, 0.25f), c(M * N);
  std::vector<double> secs;
  for (int r = 0; r < reps + 1; ++r) {  // the first call JIT-compiles; not timed
    auto t0 = std::chrono::steady_clock::now();
    dnnl_sgemm('N', 'N', M, N, K, 1.0f, a.data(), K, b.data(), N, 0.0f, c.data(), N);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r) secs.push_back(s);
  }
  std::sort(secs.begin(), secs.end());
  std::printf("%.2f\n", 2.0 * M * N * K / secs[secs.size() / 2] / 1e9);
  return 0;
}
