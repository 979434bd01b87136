// bench/conv_rate.cc - the conv2d kernel's forward rate on typical CNN layers (GFLOP/s, median of repeats).
// usage: conv_rate [repeats]   prints one line per layer: "<name> <ms> <GFLOP/s>", and for the 3x3
// stride-1 layers a second line "<name>_winograd <ms> <GFLOP/s>" (conv2d_winograd on the filter
// winograd_filter transformed once, outside the timing; GFLOP/s counted as the direct convolution's,
// so the two lines compare).
//
// Layers: ResNet-18's 3x3 64->64 at 56x56 (im2col + GEMM), a 1x1 128->256
// at 28x28 (plain GEMM), MobileNetV2's 3x3 depthwise 144 channels at 56x56
// (direct loop), ResNet-18's late 14x14 and 7x7 3x3 layers (narrow GEMMs)
// a stride-2 depthwise layer, MobileNetV2's shallow (K = 24) 1x1 and stem (3 -> 32, stride 2), the OCR recogniser's
// (examples/ocr/rec.pdmodel) four 3x3 layers; batch 1, fp32, the threads rt::num_threads() gives.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/conv.h"

using namespace fluidc;

namespace {

struct Layer {
  const char* name;
  int64_t c, m, h, w, k, stride, groups;
};

void fill(rt::Tensor& t, const rt::Shape& s, std::mt19937& rng) {
  t.resize(s, rt::DType::kFP32);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
}

/// The median time of `reps` calls of fn, after two untimed ones (the first
/// calls grow the scratch buffers).
template <class F>
double median_seconds(int reps, F fn) {
  std::vector<double> secs;
  for (int r = 0; r < reps + 2; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r >= 2) secs.push_back(t);
  }
  std::sort(secs.begin(), secs.end());
  return secs[secs.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 50;
  const Layer layers[] = {{"resnet_3x3_64x56x56", 64, 64, 56, 56, 3, 1, 1},
                          {"pointwise_1x1_128to256x28x28", 128, 256, 28, 28, 1, 1, 1},
                          {"depthwise_3x3_144x56x56", 144, 144, 56, 56, 3, 1, 144},
                          {"resnet_3x3_s2_128to256x28x28", 128, 256, 28, 28, 3, 2, 1},
                          {"resnet_3x3_256x14x14", 256, 256, 14, 14, 3, 1, 1},
                          {"resnet_3x3_512x7x7", 512, 512, 7, 7, 3, 1, 1},
                          {"depthwise_3x3_s2_96x112x112", 96, 96, 112, 112, 3, 2, 96},
                          {"pointwise_1x1_24to144x56x56", 24, 144, 56, 56, 1, 1, 1},
                          {"mobilenet_stem_3x3_s2_3to32x224x224", 3, 32, 224, 224, 3, 2, 1},
                          {"ocr_rec_3x3_3to16x48x320", 3, 16, 48, 320, 3, 1, 1},
                          {"ocr_rec_3x3_16to32x24x160", 16, 32, 24, 160, 3, 1, 1},
                          {"ocr_rec_3x3_32to64x12x80", 32, 64, 12, 80, 3, 1, 1},
                          {"ocr_rec_3x3_64to64x6x80", 64, 64, 6, 80, 3, 1, 1}};
  std::mt19937 rng(1);
  for (const Layer& l : layers) {
    rt::Tensor x, w, y;
    fill(x, rt::Shape{1, l.c, l.h, l.w}, rng);
    fill(w, rt::Shape{l.m, l.c / l.groups, l.k, l.k}, rng);
    kernels::ConvAttrs a;
    a.strides = {static_cast<int>(l.stride), static_cast<int>(l.stride)};
    a.paddings = {static_cast<int>(l.k / 2), static_cast<int>(l.k / 2)};
    a.groups = static_cast<int>(l.groups);
    const double med = median_seconds(reps, [&] { kernels::conv2d(x, w, nullptr, nullptr, y, a); });
    const double flops = 2.0 * y.numel() * (l.c / l.groups) * l.k * l.k;
    std::printf("%s %.3f %.1f\n", l.name, med * 1e3, flops / med / 1e9);
    if (l.k == 3 && l.stride == 1 && l.groups == 1) {
      rt::Tensor u;
      kernels::winograd_filter(w, u);
      const double wmed = median_seconds(reps, [&] { kernels::conv2d_winograd(x, u, nullptr, y, a); });
      std::printf("%s_winograd %.3f %.1f\n", l.name, wmed * 1e3, flops / wmed / 1e9);
    }
  }
  return 0;
}
