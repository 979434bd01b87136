// bench/collective/gloo_allreduce.cc - in-place fp32 gloo::allreduce time at 3 sizes and rendezvous time (transport choice, docs/distributed.md).
// Usage: gloo_allreduce RANK SIZE STORE_DIR (ranks meet through a FileStore in STORE_DIR, TCP on 127.0.0.1).
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using Clock = std::chrono::steady_clock;
static double ms_since(Clock::time_point a) { return std::chrono::duration<double, std::milli>(Clock::now() - a).count(); }

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const int rank = std::atoi(argv[1]), size = std::atoi(argv[2]);
  const auto t0 = Clock::now();
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto dev = gloo::transport::tcp::CreateDevice(attr);
  gloo::rendezvous::FileStore store(argv[3]);
  auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, size);
  ctx->connectFullMesh(store, dev);
  const double t_init = ms_since(t0);
  constexpr int kWarm = 5, kRuns = 41;
  uint32_t tag = 0;
  for (int n : {20201, 262144, 1048576}) {  // fc_sgd's parameters; 1 MB; 4 MB
    std::vector<float> b(n);
    for (int i = 0; i < n; i++) b[i] = rank + i * 1e-6f;
    std::vector<double> t;
    for (int it = 0; it < kWarm + kRuns; it++) {
      gloo::AllreduceOptions o(ctx);
      o.setOutput(b.data(), n);
      o.setReduceFunction(static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
      o.setTag(tag++);
      const auto a = Clock::now();
      gloo::allreduce(o);
      if (it >= kWarm) t.push_back(ms_since(a));
    }
    std::sort(t.begin(), t.end());
    if (rank == 0) std::printf("gloo allreduce %8d floats (%.2f MB): median %.3f ms\n", n, n * 4 / 1e6, t[kRuns / 2]);
  }
  if (rank == 0) std::printf("gloo rendezvous %.1f ms\n", t_init);
  return 0;
}
