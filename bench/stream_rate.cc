// bench/stream_rate.cc - how fast one thread can read N bytes that were just read (the cache levels' floor for a GEMV).
// usage: stream_rate BYTES [repeats]   prints "<ms per pass> <GB/s>"
//
// Batch-1 inference reads every weight once per run and does 2 flops per 4
// bytes: it can be no faster than reading the weights from wherever they
// stay between runs (L2 or L3 here). This measures that floor on this
// machine, in the same run as the benchmark.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: stream_rate BYTES [repeats]\n");
    return 2;
  }
  const size_t n = std::strtoull(argv[1], nullptr, 10) / sizeof(float) / 64 * 64;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 2000;
  std::vector<float> data(n, 1.0f);
  std::vector<double> secs;
  volatile float sink = 0.0f;
  for (int r = 0; r < reps + 1; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    float acc[16] = {};  // independent sums: the loop is bound by loads, not by an add chain
    for (size_t i = 0; i < n; i += 16)
      for (int j = 0; j < 16; ++j) acc[j] += data[i + j];
    float s = 0.0f;
    for (float a : acc) s += a;
    sink = sink + s;
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r) secs.push_back(t);  // the first pass brings the data in
  }
  std::sort(secs.begin(), secs.end());
  const double med = secs[secs.size() / 2];
  std::printf("%.5f %.2f\n", med * 1e3, n * sizeof(float) / med / 1e9);
  return 0;
}
