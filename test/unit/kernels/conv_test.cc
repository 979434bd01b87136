// test/unit/kernels/conv_test.cc - convolutions and transposed convolutions: values against the definition, shapes, errors, gradients.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/conv.h"
#include "kernels/shapes/conv.h"
#include "runtime/parallel.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;
using kernels::ConvAttrs;
using kernels::ConvTransposeAttrs;

namespace {

/// Index of (n, c, spatial s of `sp`) in a tensor of the geometry's layout.
int64_t at(const shapes::ConvGeometry& g, const int64_t* sp, int64_t n, int64_t c, int64_t channels,
           const int64_t s[3]) {
  int64_t p = (s[0] * sp[1] + s[1]) * sp[2] + s[2];
  const int64_t P = sp[0] * sp[1] * sp[2];
  return g.channel_last ? (n * P + p) * channels + c : (n * channels + c) * P + p;
}

/// The convolution by its definition, one output element at a time, in fp64.
std::vector<double> reference_conv(const Tensor& x, const Tensor& w, const shapes::ConvGeometry& g) {
  std::vector<double> y(static_cast<size_t>(g.out_shape.numel()), 0.0);
  const int64_t Cg = g.C / g.groups, Mg = g.M / g.groups;
  int64_t o[3], i[3], k[3];
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t m = 0; m < g.M; ++m)
      for (o[0] = 0; o[0] < g.out[0]; ++o[0])
        for (o[1] = 0; o[1] < g.out[1]; ++o[1])
          for (o[2] = 0; o[2] < g.out[2]; ++o[2]) {
            double acc = 0;
            for (int64_t c = 0; c < Cg; ++c)
              for (k[0] = 0; k[0] < g.k[0]; ++k[0])
                for (k[1] = 0; k[1] < g.k[1]; ++k[1])
                  for (k[2] = 0; k[2] < g.k[2]; ++k[2]) {
                    bool inside = true;
                    for (int d = 0; d < 3; ++d) {
                      i[d] = o[d] * g.stride[d] - g.pad[d] + k[d] * g.dil[d];
                      inside &= i[d] >= 0 && i[d] < g.in[d];
                    }
                    if (!inside) continue;
                    const int64_t ci = (m / Mg) * Cg + c;
                    const int64_t wi = ((m * Cg + c) * g.k[0] + k[0]) * g.k[1] * g.k[2] + k[1] * g.k[2] + k[2];
                    acc += get(x, at(g, g.in, n, ci, g.C, i)) * get(w, wi);
                  }
            y[static_cast<size_t>(at(g, g.out, n, m, g.M, o))] = acc;
          }
  return y;
}

/// The transposed convolution by its definition: every input element scatters.
std::vector<double> reference_transpose(const Tensor& x, const Tensor& w, const shapes::ConvGeometry& g) {
  std::vector<double> y(static_cast<size_t>(g.out_shape.numel()), 0.0);
  const int64_t Cg = g.C / g.groups, Mg = g.M / g.groups;
  int64_t o[3], i[3], k[3];
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t c = 0; c < g.C; ++c)
      for (i[0] = 0; i[0] < g.in[0]; ++i[0])
        for (i[1] = 0; i[1] < g.in[1]; ++i[1])
          for (i[2] = 0; i[2] < g.in[2]; ++i[2])
            for (int64_t m = 0; m < Mg; ++m)
              for (k[0] = 0; k[0] < g.k[0]; ++k[0])
                for (k[1] = 0; k[1] < g.k[1]; ++k[1])
                  for (k[2] = 0; k[2] < g.k[2]; ++k[2]) {
                    bool inside = true;
                    for (int d = 0; d < 3; ++d) {
                      o[d] = i[d] * g.stride[d] - g.pad[d] + k[d] * g.dil[d];
                      inside &= o[d] >= 0 && o[d] < g.out[d];
                    }
                    if (!inside) continue;
                    const int64_t wi = ((c * Mg + m) * g.k[0] + k[0]) * g.k[1] * g.k[2] + k[1] * g.k[2] + k[2];
                    y[static_cast<size_t>(at(g, g.out, n, (c / Cg) * Mg + m, g.M, o))] +=
                        get(x, at(g, g.in, n, c, g.C, i)) * get(w, wi);
                  }
  return y;
}

void check_close(const Tensor& got, const std::vector<double>& want, double tol) {
  REQUIRE(got.numel() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    CHECK(get(got, static_cast<int64_t>(i)) == Approx(want[i]).margin(tol));
  }
}

ConvAttrs conv_attrs(std::vector<int> strides, std::vector<int> paddings, std::vector<int> dilations, int groups,
                     std::string format = "NCHW", std::string algo = "EXPLICIT") {
  ConvAttrs a;
  a.strides = std::move(strides);
  a.paddings = std::move(paddings);
  a.dilations = std::move(dilations);
  a.groups = groups;
  a.data_format = std::move(format);
  a.padding_algorithm = std::move(algo);
  return a;
}

struct ConvCase {
  const char* name;
  Shape x, w;
  ConvAttrs a;
};

/// The forward ops of one spatial rank, by name.
void run_conv(const std::string& op, const Tensor& x, const Tensor& w, Tensor& y, const ConvAttrs& a) {
  if (op == "conv3d") kernels::conv3d(x, w, nullptr, nullptr, y, a);
  else if (op == "depthwise_conv2d") kernels::depthwise_conv2d(x, w, nullptr, nullptr, y, a);
  else kernels::conv2d(x, w, nullptr, nullptr, y, a);
}

void run_conv_grad(const std::string& op, const Tensor& x, const Tensor& w, const Tensor& dy, Tensor* dx,
                   Tensor* dw, const ConvAttrs& a) {
  if (op == "conv3d") kernels::conv3d_grad(x, w, dy, dx, dw, a);
  else if (op == "depthwise_conv2d") kernels::depthwise_conv2d_grad(x, w, dy, dx, dw, a);
  else kernels::conv2d_grad(x, w, dy, dx, dw, a);
}

const std::vector<std::pair<std::string, ConvCase>>& conv_cases() {
  static const std::vector<std::pair<std::string, ConvCase>> cases = {
      {"conv2d", {"3x3 pad 1", Shape{2, 3, 6, 5}, Shape{4, 3, 3, 3}, conv_attrs({1, 1}, {1, 1}, {1, 1}, 1)}},
      {"conv2d", {"stride 2, asymmetric pads", Shape{2, 3, 7, 6}, Shape{4, 3, 3, 2},
                  conv_attrs({2, 2}, {1, 0, 2, 1}, {1, 1}, 1)}},
      {"conv2d", {"dilation 2, groups 2", Shape{1, 4, 7, 7}, Shape{6, 2, 3, 3},
                  conv_attrs({1, 1}, {2, 2}, {2, 2}, 2)}},
      {"conv2d", {"1x1 pointwise", Shape{2, 5, 4, 3}, Shape{3, 5, 1, 1}, conv_attrs({}, {}, {}, 1)}},
      {"conv2d", {"1x1 stride 2", Shape{1, 3, 5, 5}, Shape{2, 3, 1, 1}, conv_attrs({2, 2}, {0, 0}, {1, 1}, 1)}},
      {"conv2d", {"NHWC groups 3", Shape{2, 5, 4, 3}, Shape{6, 1, 2, 3},
                  conv_attrs({1, 2}, {1, 1}, {1, 1}, 3, "NHWC")}},
      {"conv2d", {"SAME stride 2", Shape{1, 2, 7, 6}, Shape{3, 2, 3, 4},
                  conv_attrs({2, 2}, {5, 5}, {2, 2}, 1, "NCHW", "SAME")}},
      {"conv2d", {"VALID", Shape{1, 2, 6, 6}, Shape{2, 2, 3, 3}, conv_attrs({1, 1}, {3, 3}, {1, 1}, 1, "AnyLayout", "VALID")}},
      // Big enough for the fp32 GEMM that makes its column matrix row by
      // row (im2col_row): rows across output-row and padding edges.
      {"conv2d", {"im2col by rows: strided, dilated, asymmetric, groups 2", Shape{2, 6, 23, 37}, Shape{8, 3, 3, 3},
                  conv_attrs({2, 1}, {1, 2, 0, 1}, {1, 2}, 2)}},
      {"conv2d", {"im2col by rows: 1x1 stride 2", Shape{1, 16, 30, 34}, Shape{24, 16, 1, 1},
                  conv_attrs({2, 2}, {0, 0}, {1, 1}, 1)}},
      {"conv2d", {"groups == channels through conv2d", Shape{1, 3, 5, 4}, Shape{3, 1, 3, 1},
                  conv_attrs({1, 1}, {1, 0}, {1, 1}, 3)}},
      {"depthwise_conv2d", {"3x3 stride 1", Shape{2, 4, 6, 6}, Shape{4, 1, 3, 3}, conv_attrs({1, 1}, {1, 1}, {1, 1}, 4)}},
      {"depthwise_conv2d", {"multiplier 2, stride 2, dilation 2", Shape{1, 3, 9, 8}, Shape{6, 1, 3, 3},
                            conv_attrs({2, 2}, {2, 1, 2, 0}, {2, 2}, 3)}},
      // Planes wide enough for the vectorised phase-plane copy and taps
      // (16 outputs at a time), with odd left pads and a 5x5 window.
      {"depthwise_conv2d", {"3x3 stride 2, wide plane", Shape{1, 2, 37, 70}, Shape{2, 1, 3, 3},
                            conv_attrs({2, 2}, {1, 1}, {1, 1}, 2)}},
      {"depthwise_conv2d", {"stride 2, asymmetric odd pads", Shape{1, 2, 20, 67}, Shape{2, 1, 3, 3},
                            conv_attrs({2, 2}, {0, 1, 3, 0}, {1, 1}, 2)}},
      {"depthwise_conv2d", {"5x5 stride 1", Shape{1, 3, 19, 40}, Shape{3, 1, 5, 5}, conv_attrs({1, 1}, {2, 2}, {1, 1}, 3)}},
      {"depthwise_conv2d", {"strides (1, 2), dilation (2, 1)", Shape{1, 2, 21, 50}, Shape{4, 1, 3, 3},
                            conv_attrs({1, 2}, {2, 1}, {2, 1}, 2)}},
      {"depthwise_conv2d", {"NHWC", Shape{2, 5, 5, 3}, Shape{3, 1, 3, 3}, conv_attrs({2, 1}, {1, 1}, {1, 1}, 3, "NHWC")}},
      {"conv3d", {"3x3x3 pad 1", Shape{1, 2, 4, 5, 4}, Shape{3, 2, 3, 3, 3}, conv_attrs({1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 1)}},
      {"conv3d", {"strided, asymmetric, groups 2", Shape{2, 4, 5, 4, 5}, Shape{2, 2, 2, 3, 2},
                  conv_attrs({2, 1, 2}, {1, 0, 0, 1, 1, 1}, {1, 1, 1}, 2, "NCDHW")}},
      {"conv3d", {"NDHWC, temporal 3x1x1", Shape{1, 4, 3, 3, 2}, Shape{3, 2, 3, 1, 1},
                  conv_attrs({1, 1, 1}, {1, 0, 0}, {1, 1, 1}, 1, "NDHWC")}},
  };
  return cases;
}

ConvTransposeAttrs transpose_attrs(std::vector<int> strides, std::vector<int> paddings, std::vector<int> dilations,
                                   int groups, std::vector<int> output_padding = {}, std::vector<int> output_size = {},
                                   std::string format = "NCHW", std::string algo = "EXPLICIT") {
  ConvTransposeAttrs a;
  a.strides = std::move(strides);
  a.paddings = std::move(paddings);
  a.dilations = std::move(dilations);
  a.groups = groups;
  a.output_padding = std::move(output_padding);
  a.output_size = std::move(output_size);
  a.data_format = std::move(format);
  a.padding_algorithm = std::move(algo);
  return a;
}

struct TransposeCase {
  const char* op;
  const char* name;
  Shape x, w;
  ConvTransposeAttrs a;
};

const std::vector<TransposeCase>& transpose_cases() {
  static const std::vector<TransposeCase> cases = {
      {"conv2d_transpose", "3x3 stride 1 pad 1", Shape{2, 3, 4, 5}, Shape{3, 2, 3, 3}, transpose_attrs({1, 1}, {1, 1}, {1, 1}, 1)},
      {"conv2d_transpose", "stride 2, output_padding 1", Shape{1, 2, 3, 4}, Shape{2, 3, 3, 3},
       transpose_attrs({2, 2}, {1, 1}, {1, 1}, 1, {1, 1})},
      {"conv2d_transpose", "groups 2, dilation 2, asymmetric pads", Shape{2, 4, 3, 3}, Shape{4, 1, 2, 3},
       transpose_attrs({2, 1}, {0, 1, 1, 0}, {2, 2}, 2)},
      {"conv2d_transpose", "output_size", Shape{1, 2, 3, 3}, Shape{2, 2, 3, 3},
       transpose_attrs({2, 2}, {1, 1}, {1, 1}, 1, {}, {6, 5})},
      {"conv2d_transpose", "1x1", Shape{2, 3, 3, 2}, Shape{3, 4, 1, 1}, transpose_attrs({}, {}, {}, 1)},
      {"conv2d_transpose", "NHWC SAME", Shape{1, 3, 4, 2}, Shape{2, 3, 3, 3},
       transpose_attrs({2, 2}, {}, {1, 1}, 1, {}, {}, "NHWC", "SAME")},
      {"depthwise_conv2d_transpose", "stride 2", Shape{2, 3, 3, 4}, Shape{3, 1, 3, 3},
       transpose_attrs({2, 2}, {0, 0}, {1, 1}, 3)},
      {"conv3d_transpose", "strides (2, 1, 2), pads, groups 2", Shape{1, 4, 3, 2, 3}, Shape{4, 1, 2, 2, 3},
       transpose_attrs({2, 1, 2}, {1, 0, 1}, {1, 1, 1}, 2)},
  };
  return cases;
}

void run_transpose(const std::string& op, const Tensor& x, const Tensor& w, Tensor& y, const ConvTransposeAttrs& a) {
  if (op == "conv2d_transpose") kernels::conv2d_transpose(x, w, nullptr, y, a);
  else if (op == "conv3d_transpose") kernels::conv3d_transpose(x, w, nullptr, y, a);
  else kernels::depthwise_conv2d_transpose(x, w, nullptr, y, a);
}

void run_transpose_grad(const std::string& op, const Tensor& x, const Tensor& w, const Tensor& dy, Tensor* dx,
                        Tensor* dw, const ConvTransposeAttrs& a) {
  if (op == "conv2d_transpose") kernels::conv2d_transpose_grad(x, w, nullptr, dy, dx, dw, a);
  else if (op == "conv3d_transpose") kernels::conv3d_transpose_grad(x, w, nullptr, dy, dx, dw, a);
  else kernels::depthwise_conv2d_transpose_grad(x, w, nullptr, dy, dx, dw, a);
}

}  // namespace

TEST_CASE("conv2d: a hand-computed 2x2 filter", "[conv]") {
  // 3x3 image 1..9, filter [[1, 0], [0, -1]]: each output is x[i][j] - x[i+1][j+1] = -4.
  Tensor x = f32(Shape{1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Tensor w = f32(Shape{1, 1, 2, 2}, {1, 0, 0, -1});
  Tensor y;
  kernels::conv2d(x, w, nullptr, nullptr, y, {});
  CHECK(y.shape() == Shape{1, 1, 2, 2});
  CHECK(values(y) == std::vector<double>{-4, -4, -4, -4});
  SECTION("padding 1 exposes the borders") {
    kernels::conv2d(x, w, nullptr, nullptr, y, conv_attrs({1, 1}, {1, 1}, {1, 1}, 1));
    CHECK(y.shape() == Shape{1, 1, 4, 4});
    // Top-left output reads only x[0][0] through the -1 tap; bottom-right only x[2][2] through the 1 tap.
    CHECK(get(y, 0) == -1);
    CHECK(get(y, 15) == 9);
    CHECK(get(y, 5) == -4);
  }
  SECTION("Bias and ResidualData are added") {
    Tensor b = f32(Shape{1}, {10});
    Tensor r = f32(Shape{1, 1, 2, 2}, {1, 2, 3, 4});
    kernels::conv2d(x, w, &b, &r, y, {});
    CHECK(values(y) == std::vector<double>{7, 8, 9, 10});
  }
  SECTION("output written over the input") {
    Tensor xx = f32(Shape{1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    kernels::conv2d(xx, w, nullptr, nullptr, xx, {});
    CHECK(values(xx) == std::vector<double>{-4, -4, -4, -4});
  }
}

TEST_CASE("conv2d_transpose: a hand-computed stride-2 scatter", "[conv]") {
  // Each input pixel stamps v * filter at 2*i: a 2x2 filter of ones with
  // stride 2 gives a nearest-neighbour upsampling.
  Tensor x = f32(Shape{1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor w = f32(Shape{1, 1, 2, 2}, {1, 1, 1, 1});
  Tensor y;
  kernels::conv2d_transpose(x, w, nullptr, y, transpose_attrs({2, 2}, {0, 0}, {1, 1}, 1));
  CHECK(y.shape() == Shape{1, 1, 4, 4});
  CHECK(values(y) == std::vector<double>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  SECTION("Bias is added per output channel") {
    Tensor b = f32(Shape{1}, {0.5f});
    kernels::conv2d_transpose(x, w, &b, y, transpose_attrs({2, 2}, {0, 0}, {1, 1}, 1));
    CHECK(get(y, 0) == 1.5);
    CHECK(get(y, 15) == 4.5);
  }
}

TEST_CASE("convolutions match their definition", "[conv]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    for (const auto& [op, c] : conv_cases()) {
      INFO(op << ": " << c.name << " " << rt::dtype_name(dt));
      std::mt19937 rng(7);
      Tensor x = random(c.x, dt, rng), w = random(c.w, dt, rng), y;
      shapes::ConvGeometry g;
      REQUIRE(shapes::conv_shape(c.x, c.w, c.a, c.x.rank - 2, g) == "");
      run_conv(op, x, w, y, c.a);
      REQUIRE(y.shape() == g.out_shape);
      check_close(y, reference_conv(x, w, g), dt == DType::kFP32 ? 1e-5 : 1e-12);
    }
    for (const auto& c : transpose_cases()) {
      INFO(c.op << ": " << c.name << " " << rt::dtype_name(dt));
      std::mt19937 rng(8);
      Tensor x = random(c.x, dt, rng), w = random(c.w, dt, rng), y;
      shapes::ConvGeometry g;
      REQUIRE(shapes::conv_transpose_shape(c.x, c.w, c.a, c.x.rank - 2, g) == "");
      run_transpose(c.op, x, w, y, c.a);
      REQUIRE(y.shape() == g.out_shape);
      check_close(y, reference_transpose(x, w, g), dt == DType::kFP32 ? 1e-5 : 1e-12);
    }
  }
}

TEST_CASE("conv2d: a ResNet-sized 3x3 layer through the packed GEMM", "[conv]") {
  std::mt19937 rng(3);
  Tensor x = random(Shape{1, 16, 14, 14}, DType::kFP32, rng), w = random(Shape{32, 16, 3, 3}, DType::kFP32, rng);
  Tensor y;
  const ConvAttrs a = conv_attrs({1, 1}, {1, 1}, {1, 1}, 1);
  kernels::conv2d(x, w, nullptr, nullptr, y, a);
  shapes::ConvGeometry g;
  REQUIRE(shapes::conv_shape(x.shape(), w.shape(), a, 2, g) == "");
  check_close(y, reference_conv(x, w, g), 1e-4);
}

TEST_CASE("conv2d: the implicit GEMM over phase planes, threaded, with its epilogue", "[conv]") {
  // fp32 2-D windows at strides up to 2 whose groups have a multiple of 8
  // output channels read the phase planes in place (kernels/cpu/conv_implicit.h).
  // Wide outputs (no batching of images), tasks that end mid-image and
  // more than 64 output channels (several channel tasks, the last short).
  struct Case {
    const char* name;
    Shape x, w;
    ConvAttrs a;
  };
  const Case cases[] = {
      {"3x3 stride 1, 72 channels", Shape{2, 5, 17, 19}, Shape{72, 5, 3, 3}, conv_attrs({1, 1}, {1, 1}, {1, 1}, 1)},
      {"7x7 stride 2 pad 3 (a stem)", Shape{1, 3, 33, 30}, Shape{16, 3, 7, 7}, conv_attrs({2, 2}, {3, 3}, {1, 1}, 1)},
      {"strides (2, 1), dilation (1, 2), asymmetric pads, groups 2", Shape{1, 6, 29, 41}, Shape{16, 3, 3, 3},
       conv_attrs({2, 1}, {0, 2, 1, 3}, {1, 2}, 2)},
      {"1x1 stride 2", Shape{1, 12, 31, 33}, Shape{24, 12, 1, 1}, conv_attrs({2, 2}, {0, 0}, {1, 1}, 1)},
      {"5x5 stride 1, narrow rows", Shape{1, 4, 40, 9}, Shape{8, 4, 5, 5}, conv_attrs({1, 1}, {2, 2}, {1, 1}, 1)},
  };
  for (int threads : {1, 2})
    for (const Case& c : cases) {
      INFO(c.name << ", " << threads << " threads");
      rt::set_num_threads(threads);
      std::mt19937 rng(5);
      Tensor x = random(c.x, DType::kFP32, rng), w = random(c.w, DType::kFP32, rng), bias, y, y_fused;
      bias.resize(Shape{c.w.d[0]}, DType::kFP32);
      for (int64_t i = 0; i < bias.numel(); ++i) bias.data<float>()[i] = 0.25f * static_cast<float>(i % 7) - 0.75f;
      kernels::conv2d(x, w, nullptr, nullptr, y, c.a);
      shapes::ConvGeometry g;
      REQUIRE(shapes::conv_shape(x.shape(), w.shape(), c.a, 2, g) == "");
      REQUIRE(y.shape() == g.out_shape);
      check_close(y, reference_conv(x, w, g), 1e-4);
      // The fused epilogue on each task's block: + bias[channel], then relu,
      // bit for bit what the separate ops give.
      ConvAttrs fused = c.a;
      fused.fuse_activation = "relu";
      kernels::conv2d(x, w, &bias, nullptr, y_fused, fused);
      const int64_t P = y.numel() / (g.N * g.M);
      for (int64_t i = 0; i < y.numel(); ++i) {
        const float want = std::max(0.0f, y.data<float>()[i] + bias.data<float>()[i / P % g.M]);
        REQUIRE(y_fused.data<float>()[i] == want);
      }
    }
  rt::set_num_threads(1);
}

TEST_CASE("conv2d_winograd: the 3x3 convolution from the transformed filter, threaded, with its epilogue", "[conv]") {
  // Odd and even sizes (a last tile half outside the image), symmetric,
  // asymmetric and SAME paddings, images smaller than a tile, batches that
  // span several blocks of tile rows, channel counts off the vector width.
  struct Case {
    const char* name;
    Shape x;
    int64_t m;
    ConvAttrs a;
  };
  ConvAttrs same = conv_attrs({1, 1}, {0, 0}, {1, 1}, 1);
  same.padding_algorithm = "SAME";
  const Case cases[] = {
      {"9x9 pad 1", Shape{1, 8, 9, 9}, 16, conv_attrs({1, 1}, {1, 1}, {1, 1}, 1)},
      {"17x40 no padding, batch 3", Shape{3, 5, 17, 40}, 7, conv_attrs({1, 1}, {0, 0}, {1, 1}, 1)},
      {"asymmetric pads", Shape{2, 6, 11, 8}, 9, conv_attrs({1, 1}, {0, 2, 1, 3}, {1, 1}, 1)},
      {"SAME", Shape{1, 4, 6, 13}, 20, same},
      {"1x1 image pad 1", Shape{2, 3, 1, 1}, 4, conv_attrs({1, 1}, {1, 1}, {1, 1}, 1)},
      {"many tile rows, 56 wide", Shape{2, 64, 56, 56}, 64, conv_attrs({1, 1}, {1, 1}, {1, 1}, 1)},
  };
  for (int threads : {1, 2})
    for (const Case& c : cases) {
      INFO(c.name << ", " << threads << " threads");
      rt::set_num_threads(threads);
      std::mt19937 rng(9);
      Tensor x = random(c.x, DType::kFP32, rng), w = random(Shape{c.m, c.x.d[1], 3, 3}, DType::kFP32, rng);
      Tensor u, y, bias, y_fused;
      kernels::winograd_filter(w, u);
      REQUIRE(u.shape() == Shape{16, c.m, c.x.d[1]});
      kernels::conv2d_winograd(x, u, nullptr, y, c.a);
      shapes::ConvGeometry g;
      REQUIRE(shapes::conv_shape(x.shape(), w.shape(), c.a, 2, g) == "");
      REQUIRE(y.shape() == g.out_shape);
      check_close(y, reference_conv(x, w, g), 1e-4);
      // The bias and relu6 after the transform: what the direct kernel's epilogue gives on the same sums.
      bias.resize(Shape{c.m}, DType::kFP32);
      for (int64_t i = 0; i < c.m; ++i) bias.data<float>()[i] = 0.5f * static_cast<float>(i % 5) - 1.0f;
      ConvAttrs fused = c.a;
      fused.fuse_activation = "relu6";
      fused.fuse_alpha = 1.5f;
      kernels::conv2d_winograd(x, u, &bias, y_fused, fused);
      const int64_t P = y.numel() / (g.N * g.M);
      for (int64_t i = 0; i < y.numel(); ++i) {
        const float want = std::min(1.5f, std::max(0.0f, y.data<float>()[i] + bias.data<float>()[i / P % g.M]));
        REQUIRE(y_fused.data<float>()[i] == want);
      }
    }
  rt::set_num_threads(1);
}

TEST_CASE("conv2d_winograd and winograd_filter: invalid inputs throw rt::Error", "[conv][errors]") {
  std::mt19937 rng(2);
  Tensor x = random(Shape{1, 4, 6, 6}, DType::kFP32, rng), w = random(Shape{8, 4, 3, 3}, DType::kFP32, rng), u, y;
  Tensor w5 = random(Shape{8, 4, 5, 5}, DType::kFP32, rng);
  CHECK_THROWS_WITH(kernels::winograd_filter(w5, u), Catch::Contains("Filter must be [M, C, 3, 3]"));
  kernels::winograd_filter(w, u);
  const ConvAttrs plain = conv_attrs({1, 1}, {1, 1}, {1, 1}, 1);
  CHECK_THROWS_WITH(kernels::conv2d_winograd(x, w, nullptr, y, plain),
                    Catch::Contains("Filter must be a transformed filter [16, M, C]"));
  CHECK_THROWS_WITH(kernels::conv2d_winograd(x, u, nullptr, y, conv_attrs({2, 2}, {1, 1}, {1, 1}, 1)),
                    Catch::Contains("3x3 window with strides 1"));
  Tensor x3 = random(Shape{1, 3, 6, 6}, DType::kFP32, rng);
  CHECK_THROWS_WITH(kernels::conv2d_winograd(x3, u, nullptr, y, plain), Catch::Contains("channels"));
  Tensor bad_bias = random(Shape{3}, DType::kFP32, rng);
  CHECK_THROWS_WITH(kernels::conv2d_winograd(x, u, &bad_bias, y, plain), Catch::Contains("Bias"));
}

// Image n of a batch, as a batch of one.
Tensor slice_rows(const Tensor& t, int64_t n) {
  Shape s = t.shape();
  const int64_t per = t.numel() / s.d[0];
  s.d[0] = 1;
  Tensor out;
  out.resize(s, t.dtype());
  for (int64_t i = 0; i < per; ++i) set(out, i, get(t, n * per + i));
  return out;
}

TEST_CASE("conv2d and its gradients: a batch of narrow images in chunks of images, the last one short", "[conv]") {
  // 10x10 outputs (100 columns an image) are batched about 11 images to a
  // product: 25 images make chunks of 11, 11 and 3; the pointwise case and
  // groups go through the same chunks.
  struct Case {
    Shape x, w;
    std::vector<int> pad;
    int groups;
  };
  for (const Case& c : {Case{Shape{25, 6, 14, 14}, Shape{16, 6, 5, 5}, {0, 0}, 1},
                        Case{Shape{25, 4, 10, 10}, Shape{6, 2, 3, 3}, {1, 1}, 2},
                        Case{Shape{25, 3, 10, 10}, Shape{5, 3, 1, 1}, {0, 0}, 1}})
    for (DType dt : {DType::kFP32, DType::kFP64}) {
      INFO(c.x.str() << " * " << c.w.str() << " groups " << c.groups << " " << rt::dtype_name(dt));
      std::mt19937 rng(11);
      Tensor x = random(c.x, dt, rng), w = random(c.w, dt, rng), y;
      const ConvAttrs a = conv_attrs({1, 1}, c.pad, {1, 1}, c.groups);
      kernels::conv2d(x, w, nullptr, nullptr, y, a);
      shapes::ConvGeometry g;
      REQUIRE(shapes::conv_shape(x.shape(), w.shape(), a, 2, g) == "");
      check_close(y, reference_conv(x, w, g), dt == DType::kFP32 ? 1e-4 : 1e-12);
      // The gradients go through the same chunks: against the same gradients taken image by image (one
      // image is never batched), Filter@GRAD summed over the images.
      Tensor dy = random(y.shape(), dt, rng), dx, dw;
      kernels::conv2d_grad(x, w, dy, &dx, &dw, a);
      std::vector<double> dw_sum(static_cast<size_t>(dw.numel()), 0.0);
      const int64_t per_x = x.numel() / c.x.d[0];
      for (int64_t n = 0; n < c.x.d[0]; ++n) {
        Tensor xn = slice_rows(x, n), dyn = slice_rows(dy, n), dxn, dwn;
        kernels::conv2d_grad(xn, w, dyn, &dxn, &dwn, a);
        for (int64_t i = 0; i < per_x; ++i) REQUIRE(get(dx, n * per_x + i) == Approx(get(dxn, i)).margin(1e-5));
        for (int64_t i = 0; i < dwn.numel(); ++i) dw_sum[static_cast<size_t>(i)] += get(dwn, i);
      }
      for (int64_t i = 0; i < dw.numel(); ++i) REQUIRE(get(dw, i) == Approx(dw_sum[static_cast<size_t>(i)]).margin(1e-4));
    }
}

TEST_CASE("conv2d with few input taps at stride 1: the direct kernels, forward and gradients", "[conv]") {
  // kernels/cpu/conv_small.cc takes C*KH*KW <= 64 at stride 1 (LeNet-5's first layer: 1 channel, 5x5):
  // against the definition and against fp64 (the im2col path), including rows that are not whole vectors,
  // asymmetric padding that crops, more than one block of 8 output channels, and the NHWC copy around it.
  struct Case {
    Shape x, w;
    std::vector<int> pad;
    std::string format;
  };
  for (const Case& c : {Case{Shape{3, 1, 28, 28}, Shape{6, 1, 5, 5}, {2, 2}, "NCHW"},
                        Case{Shape{2, 2, 9, 21}, Shape{11, 2, 3, 3}, {1, 0, 2, 1}, "NCHW"},
                        Case{Shape{2, 3, 7, 12}, Shape{17, 3, 2, 2}, {0, 0}, "NCHW"},
                        Case{Shape{2, 10, 9, 3}, Shape{5, 3, 3, 3}, {1, 1}, "NHWC"}}) {
    INFO(c.x.str() << " * " << c.w.str() << " " << c.format);
    std::mt19937 rng(21);
    Tensor x = random(c.x, DType::kFP32, rng), w = random(c.w, DType::kFP32, rng), y;
    const ConvAttrs a = conv_attrs({1, 1}, c.pad, {1, 1}, 1, c.format);
    shapes::ConvGeometry g;
    REQUIRE(shapes::conv_shape(x.shape(), w.shape(), a, 2, g) == "");
    kernels::conv2d(x, w, nullptr, nullptr, y, a);
    check_close(y, reference_conv(x, w, g), 1e-5);
    Tensor dy = random(y.shape(), DType::kFP32, rng), dx, dw, dx64, dw64;
    kernels::conv2d_grad(x, w, dy, &dx, &dw, a);
    kernels::conv2d_grad(converted(x, DType::kFP64), converted(w, DType::kFP64), converted(dy, DType::kFP64), &dx64,
                         &dw64, a);
    for (int64_t i = 0; i < dw.numel(); ++i) REQUIRE(get(dw, i) == Approx(get(dw64, i)).margin(1e-4));
    for (int64_t i = 0; i < dx.numel(); ++i) REQUIRE(get(dx, i) == Approx(get(dx64, i)).margin(1e-5));
  }
  // An infinite input reaches only the filter taps that read it: a row's lanes past its last output are
  // not multiplied in (0 * inf would be NaN).
  Tensor x = f32(Shape{1, 1, 6, 10}, std::vector<float>(60, 1.0f)), w = f32(Shape{2, 1, 3, 3}, std::vector<float>(18, 0.5f));
  x.data<float>()[9] = std::numeric_limits<float>::infinity();  // row 0, last column
  const ConvAttrs a = conv_attrs({1, 1}, {0, 0}, {1, 1}, 1);
  Tensor y, dw;
  kernels::conv2d(x, w, nullptr, nullptr, y, a);
  Tensor dy = f32(y.shape(), std::vector<float>(static_cast<size_t>(y.numel()), 1.0f));
  kernels::conv2d_grad(x, w, dy, nullptr, &dw, a);
  for (int64_t m = 0; m < 2; ++m)
    for (int64_t t = 0; t < 9; ++t) {
      INFO("channel " << m << " tap " << t);
      // Only the top-right tap (kh 0, kw 2) reads column 9 of row 0, from output column 7.
      if (t == 2) CHECK(std::isinf(get(dw, m * 9 + t)));
      else CHECK(get(dw, m * 9 + t) == 32.0);  // 4 output rows x 8 columns of 1 * 1
    }
}

TEST_CASE("conv2d with few input taps at stride 2 (a MobileNet stem)", "[conv]") {
  // 3 channels, 3x3, stride 2 and its kin, whichever kernel takes them (the implicit GEMM's phase planes
  // for 8-channel blocks, the GEMM otherwise): against the definition, with odd and even image sizes (the
  // last column read or not), asymmetric padding, a 2x2 window, a batch, threaded or not.
  struct Case {
    Shape x, w;
    std::vector<int> pad;
  };
  for (int threads : {1, 3})
    for (const Case& c : {Case{Shape{1, 3, 33, 47}, Shape{32, 3, 3, 3}, {1, 1}},
                          Case{Shape{2, 3, 20, 40}, Shape{16, 3, 3, 3}, {0, 1, 1, 0}},
                          Case{Shape{1, 2, 18, 37}, Shape{13, 2, 2, 2}, {0, 0}},
                          Case{Shape{1, 1, 40, 64}, Shape{5, 1, 5, 5}, {2, 2}}}) {
      INFO(c.x.str() << " * " << c.w.str() << ", " << threads << " threads");
      rt::set_num_threads(threads);
      std::mt19937 rng(22);
      Tensor x = random(c.x, DType::kFP32, rng), w = random(c.w, DType::kFP32, rng), y;
      const ConvAttrs a = conv_attrs({2, 2}, c.pad, {1, 1}, 1);
      shapes::ConvGeometry g;
      REQUIRE(shapes::conv_shape(x.shape(), w.shape(), a, 2, g) == "");
      kernels::conv2d(x, w, nullptr, nullptr, y, a);
      check_close(y, reference_conv(x, w, g), 1e-5);
    }
  rt::set_num_threads(1);
}

TEST_CASE("conv shape rules", "[conv][shapes]") {
  shapes::ConvGeometry g;
  SECTION("out = (in + pads - dilated window) / stride + 1") {
    REQUIRE(shapes::conv_shape(Shape{2, 3, 224, 224}, Shape{64, 3, 7, 7}, conv_attrs({2, 2}, {3, 3}, {1, 1}, 1), 2, g) == "");
    CHECK(g.out_shape == Shape{2, 64, 112, 112});
    REQUIRE(shapes::conv_shape(Shape{1, 3, 10, 9}, Shape{4, 3, 3, 3}, conv_attrs({1, 2}, {0, 2, 1, 0}, {2, 1}, 1), 2, g) == "");
    CHECK(g.out_shape == Shape{1, 4, 8, 4});
  }
  SECTION("SAME gives ceil(in / stride) and ignores dilations; VALID ignores paddings") {
    REQUIRE(shapes::conv_shape(Shape{1, 3, 7, 8}, Shape{4, 3, 3, 3}, conv_attrs({2, 3}, {9, 9}, {3, 3}, 1, "NCHW", "SAME"), 2, g) == "");
    CHECK(g.out_shape == Shape{1, 4, 4, 3});
    CHECK(g.pad[1] == 1);  // pad sum (4-1)*2+3-7 = 2
    CHECK(g.dil[1] == 1);
    REQUIRE(shapes::conv_shape(Shape{1, 3, 7, 8}, Shape{4, 3, 3, 3}, conv_attrs({1, 1}, {9, 9}, {1, 1}, 1, "NCHW", "VALID"), 2, g) == "");
    CHECK(g.out_shape == Shape{1, 4, 5, 6});
  }
  SECTION("NHWC puts channels last, run-time dims stay unknown") {
    REQUIRE(shapes::conv_shape(Shape{-1, 8, -1, 3}, Shape{5, 3, 3, 3}, conv_attrs({1, 1}, {1, 1}, {1, 1}, 1, "NHWC"), 2, g) == "");
    CHECK(g.out_shape == Shape{-1, 8, -1, 5});
  }
  SECTION("conv3d") {
    REQUIRE(shapes::conv_shape(Shape{1, 2, 8, 9, 9}, Shape{4, 2, 3, 1, 1}, conv_attrs({1, 1, 1}, {1, 0, 0}, {1, 1, 1}, 1), 3, g) == "");
    CHECK(g.out_shape == Shape{1, 4, 8, 9, 9});
  }
  SECTION("transposed: (in-1)*stride - pads + window, + output_padding or output_size") {
    REQUIRE(shapes::conv_transpose_shape(Shape{1, 4, 5, 5}, Shape{4, 3, 3, 3}, transpose_attrs({2, 2}, {1, 1}, {1, 1}, 1, {1, 0}), 2, g) == "");
    CHECK(g.out_shape == Shape{1, 3, 10, 9});
    REQUIRE(shapes::conv_transpose_shape(Shape{1, 4, 5, 5}, Shape{4, 3, 3, 3}, transpose_attrs({2, 2}, {1, 1}, {1, 1}, 2, {}, {10, 9}), 2, g) == "");
    CHECK(g.out_shape == Shape{1, 6, 10, 9});
  }
  SECTION("errors name the problem") {
    CHECK_THAT(shapes::conv_shape(Shape{1, 4, 5, 5}, Shape{4, 3, 3, 3}, conv_attrs({}, {}, {}, 1), 2, g),
               Catch::Contains("Input has 4 channels"));
    CHECK_THAT(shapes::conv_shape(Shape{1, 4, 5, 5}, Shape{3, 2, 3, 3}, conv_attrs({}, {}, {}, 2), 2, g),
               Catch::Contains("not divisible by groups"));
    CHECK_THAT(shapes::conv_shape(Shape{1, 3, 5, 5}, Shape{4, 3, 3, 3}, conv_attrs({}, {1, 1, 1}, {}, 1), 2, g),
               Catch::Contains("paddings has 3 values"));
    CHECK_THAT(shapes::conv_shape(Shape{1, 3, 2, 5}, Shape{4, 3, 3, 3}, conv_attrs({}, {}, {}, 1), 2, g),
               Catch::Contains("larger than the padded input"));
    CHECK_THAT(shapes::conv_shape(Shape{1, 3, 5, 5}, Shape{4, 3, 3, 3}, conv_attrs({0, 1}, {}, {}, 1), 2, g),
               Catch::Contains("strides must be positive"));
    CHECK_THAT(shapes::conv_shape(Shape{1, 3, 5, 5}, Shape{4, 3, 3, 3}, conv_attrs({}, {}, {}, 1, "NCWH"), 2, g),
               Catch::Contains("data_format"));
    CHECK_THAT(shapes::conv_shape(Shape{1, 3, 5, 5}, Shape{4, 3, 3, 3}, conv_attrs({}, {}, {}, 1, "NCHW", "FULL"), 2, g),
               Catch::Contains("padding_algorithm"));
    CHECK_THAT(shapes::conv_shape(Shape{1, 3, 5, 5}, Shape{4, 3, 3, 3}, conv_attrs({}, {}, {}, 1), 3, g),
               Catch::Contains("rank 5"));
    CHECK_THAT(shapes::conv_transpose_shape(Shape{1, 4, 5, 5}, Shape{4, 3, 3, 3}, transpose_attrs({2, 2}, {}, {}, 1, {}, {14, 11}), 2, g),
               Catch::Contains("output_size 14"));
    CHECK_THAT(shapes::conv_transpose_shape(Shape{1, 4, 5, 5}, Shape{4, 3, 3, 3}, transpose_attrs({2, 2}, {}, {}, 1, {2, 0}), 2, g),
               Catch::Contains("output_padding 2"));
  }
}

TEST_CASE("conv kernels: invalid inputs throw rt::Error", "[conv][errors]") {
  Tensor x = f32(Shape{1, 2, 3, 3}, std::vector<float>(18, 1.0f));
  Tensor w = f32(Shape{1, 3, 2, 2}, std::vector<float>(12, 1.0f));
  Tensor y, uninit;
  CHECK_THROWS_AS(kernels::conv2d(x, w, nullptr, nullptr, y, {}), rt::Error);
  CHECK_THROWS_WITH(kernels::conv2d(x, w, nullptr, nullptr, y, {}), Catch::Contains("conv2d: Input has 2 channels"));
  CHECK_THROWS_AS(kernels::conv2d(uninit, w, nullptr, nullptr, y, {}), rt::Error);
  Tensor w2 = f32(Shape{1, 2, 2, 2}, std::vector<float>(8, 1.0f));
  Tensor bias = f32(Shape{2}, {1, 2});
  CHECK_THROWS_WITH(kernels::conv2d(x, w2, &bias, nullptr, y, {}), Catch::Contains("Bias"));
  Tensor dy = f32(Shape{1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  Tensor dx;
  CHECK_THROWS_WITH(kernels::conv2d_grad(x, w2, dy, &dx, nullptr, {}), Catch::Contains("Output@GRAD has shape"));
  Tensor xd = f64(Shape{1, 2, 3, 3}, std::vector<double>(18, 1.0));
  CHECK_THROWS_AS(kernels::conv3d(xd, w2, nullptr, nullptr, y, {}), rt::Error);
}

TEST_CASE("conv gradients: finite differences", "[conv][gradcheck]") {
  for (DType dt : {DType::kFP64, DType::kFP32}) {
    for (const auto& [op, c] : conv_cases()) {
      INFO(op << ": " << c.name << " " << rt::dtype_name(dt));
      std::mt19937 rng(11);
      Tensor x = random(c.x, dt, rng), w = random(c.w, dt, rng);
      const ConvAttrs a = c.a;
      const std::string o = op;
      CHECK_GRADCHECK_OP(
          op, {&x, &w}, [&](Tensor& y) { run_conv(o, x, w, y, a); },
          [&](const Tensor& dy, std::vector<Tensor*>& g) { run_conv_grad(o, x, w, dy, g[0], g[1], a); });
    }
    for (const auto& c : transpose_cases()) {
      INFO(c.op << ": " << c.name << " " << rt::dtype_name(dt));
      std::mt19937 rng(12);
      Tensor x = random(c.x, dt, rng), w = random(c.w, dt, rng);
      const ConvTransposeAttrs a = c.a;
      const std::string o = c.op;
      CHECK_GRADCHECK_OP(
          c.op, {&x, &w}, [&](Tensor& y) { run_transpose(o, x, w, y, a); },
          [&](const Tensor& dy, std::vector<Tensor*>& g) { run_transpose_grad(o, x, w, dy, g[0], g[1], a); });
    }
  }
}

TEST_CASE("conv gradients: only the requested one, and written over Output@GRAD", "[conv][gradcheck]") {
  std::mt19937 rng(5);
  Tensor x = random(Shape{1, 2, 4, 4}, DType::kFP64, rng), w = random(Shape{2, 2, 3, 3}, DType::kFP64, rng);
  const ConvAttrs a = conv_attrs({1, 1}, {1, 1}, {1, 1}, 1);
  Tensor dy = random(Shape{1, 2, 4, 4}, DType::kFP64, rng);
  Tensor dx_ref, dw_ref, dx, dw;
  kernels::conv2d_grad(x, w, dy, &dx_ref, &dw_ref, a);
  kernels::conv2d_grad(x, w, dy, nullptr, &dw, a);
  CHECK(values(dw) == values(dw_ref));
  kernels::conv2d_grad(x, w, dy, &dx, nullptr, a);
  CHECK(values(dx) == values(dx_ref));
  kernels::conv2d_grad(x, w, dy, &dy, nullptr, a);  // Input@GRAD over Output@GRAD (same shape here)
  CHECK(values(dy) == values(dx_ref));
}

TEST_CASE("unfold and fold: each other's adjoint, gradients by finite differences, errors", "[conv][gradcheck]") {
  kernels::UnfoldAttrs a;
  a.kernel_sizes = {2, 3};
  a.strides = {2, 1};
  a.paddings = {1, 0, 2, 1};  // top, left, bottom, right
  a.dilations = {1, 2};
  a.output_sizes = {5, 6};
  for (DType dt : {DType::kFP64, DType::kFP32}) {
    INFO(rt::dtype_name(dt));
    std::mt19937 rng(21);
    Tensor x = random(Shape{2, 3, 5, 6}, dt, rng);
    Tensor cols;
    kernels::unfold(x, cols, a);
    // rows C*kh*kw; windows ((5+1+2-2)/2+1) x ((6+0+1-5)/1+1) = 4 x 3.
    REQUIRE(cols.shape() == Shape{2, 18, 12});
    Tensor c = random(cols.shape(), dt, rng);
    CHECK_GRADCHECK_OP("unfold", {&x}, [&](Tensor& y) { kernels::unfold(x, y, a); },
                       [&](const Tensor& dy, std::vector<Tensor*>& g) { kernels::unfold_grad(x, dy, g[0], a); });
    CHECK_GRADCHECK_OP("fold", {&c}, [&](Tensor& y) { kernels::fold(c, y, a); },
                       [&](const Tensor& dy, std::vector<Tensor*>& g) { kernels::fold_grad(c, dy, g[0], a); });
  }
  std::mt19937 rng(22);
  Tensor x3 = random(Shape{2, 3, 5}, DType::kFP32, rng), y;
  CHECK_THROWS_WITH(kernels::unfold(x3, y, a), Catch::Contains("X must have rank 4"));
  Tensor cols = random(Shape{2, 18, 11}, DType::kFP32, rng);
  CHECK_THROWS_WITH(kernels::fold(cols, y, a), Catch::Contains("takes 12 windows"));
  kernels::UnfoldAttrs big = a;
  big.kernel_sizes = {9, 9};
  Tensor x = random(Shape{1, 1, 5, 6}, DType::kFP32, rng);
  CHECK_THROWS_WITH(kernels::unfold(x, y, big), Catch::Contains("larger than the padded image"));
}
