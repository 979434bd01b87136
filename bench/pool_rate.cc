// bench/pool_rate.cc - pool2d's forward time on the CRNN recogniser's pools and two common CNN ones (median of repeats).
// usage: pool_rate [repeats]   prints one line per layer: "<name> <us>"
//
// Layers: examples/ocr's recogniser (3x48x320 input): max k2s2 on 16x48x320
// and 32x24x160, max k(2,1)s(2,1) on 64x12x80; a ResNet stem's max k3s2
// pad 1 on 64x112x112; an Inception-style avg k3s1 pad 1 on 192x28x28.
// Batch 1, fp32, NCHW, the threads rt::num_threads() gives (FLUIDC_NUM_THREADS).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/pool.h"

using namespace fluidc;

namespace {

struct Layer {
  const char* name;
  const char* type;
  int64_t c, h, w;
  int kh, kw, sh, sw, pad;
};

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 200;
  const Layer layers[] = {{"crnn_max_k2s2_16x48x320", "max", 16, 48, 320, 2, 2, 2, 2, 0},
                          {"crnn_max_k2s2_32x24x160", "max", 32, 24, 160, 2, 2, 2, 2, 0},
                          {"crnn_max_k2x1s2x1_64x12x80", "max", 64, 12, 80, 2, 1, 2, 1, 0},
                          {"resnet_max_k3s2p1_64x112x112", "max", 64, 112, 112, 3, 3, 2, 2, 1},
                          {"inception_avg_k3s1p1_192x28x28", "avg", 192, 28, 28, 3, 3, 1, 1, 1}};
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (const Layer& l : layers) {
    rt::Tensor x, y;
    x.resize(rt::Shape{1, l.c, l.h, l.w}, rt::DType::kFP32);
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = u(rng);
    kernels::PoolAttrs a;
    a.pooling_type = l.type;
    a.ksize = {l.kh, l.kw};
    a.strides = {l.sh, l.sw};
    a.paddings = {l.pad, l.pad};
    std::vector<double> secs;
    for (int r = 0; r < reps + 2; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      kernels::pool2d(x, y, a);
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r >= 2) secs.push_back(t);  // the first calls grow the scratch buffers
    }
    std::sort(secs.begin(), secs.end());
    std::printf("%s %.2f\n", l.name, secs[secs.size() / 2] * 1e6);
  }
  return 0;
}
