// test/cuda/kernels_test.cc - every CUDA kernel (kernels/cuda/op_list.h) against its CPU twin on the same inputs.
//
// Each case runs k::<op> on host tensors and kc::<op> on device copies of
// them, then compares every output (rtol 1e-5, atol 1e-6: GEMMs and
// reductions sum in another order). Exits 77 (CTest: skipped) when there is
// no CUDA device; fails when an op of the list has no case here.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cuda/op_list.h"
#include "kernels/cuda/ops.h"
#include "runtime/error.h"

namespace k = fluidc::kernels;
namespace kc = fluidc::kernels::cuda;
using fluidc::cu::DTensor;
using fluidc::rt::DType;
using fluidc::rt::Shape;
using fluidc::rt::Tensor;

namespace {

std::mt19937 rng(7);
int failures = 0;
std::set<std::string> covered;

Tensor rnd(const Shape& s, float lo = -1.f, float hi = 1.f) {
  Tensor t;
  t.resize(s, DType::kFP32);
  std::uniform_real_distribution<float> u(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

Tensor labels(const Shape& s, int64_t classes, int64_t ignore = -1000) {
  Tensor t;
  t.resize(s, DType::kInt64);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<int64_t>()[i] = static_cast<int64_t>(rng() % classes);
  if (ignore != -1000 && t.numel() > 1) t.data<int64_t>()[1] = ignore;
  return t;
}

// Device tensors live until the end of the run (DTensor is not movable).
std::deque<std::unique_ptr<DTensor>> pool;
DTensor& dev(const Tensor& h) {
  pool.push_back(std::make_unique<DTensor>());
  DTensor& d = *pool.back();
  d.copy_from(h);
  d.upload();
  return d;
}
DTensor& dev_out() {
  pool.push_back(std::make_unique<DTensor>());
  return *pool.back();
}

double at(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kFP32: return t.data<float>()[i];
    case DType::kFP64: return t.data<double>()[i];
    case DType::kInt32: return t.data<int32_t>()[i];
    case DType::kInt64: return static_cast<double>(t.data<int64_t>()[i]);
    case DType::kBool: return t.data<bool>()[i];
    default: return NAN;
  }
}

// atol: 1e-6 for elementwise results; sums of many products (convolutions) round differently in another
// order by up to about their term count times 1e-7, so their cases pass more.
void compare(fluidc::cu::ContextScope& ctx, const std::string& what, const Tensor& cpu, DTensor& gpu,
             double atol = 1e-6) {
  gpu.download_async();
  ctx.sync();
  if (gpu.shape() != cpu.shape() || gpu.dtype() != cpu.dtype()) {
    std::printf("FAIL %s: CUDA %s %s vs CPU %s %s\n", what.c_str(), fluidc::rt::dtype_name(gpu.dtype()),
                gpu.shape().str().c_str(), fluidc::rt::dtype_name(cpu.dtype()), cpu.shape().str().c_str());
    ++failures;
    return;
  }
  double worst = 0;
  int64_t worst_at = -1;
  for (int64_t i = 0; i < cpu.numel(); ++i) {
    const double a = at(cpu, i), b = at(gpu, i);
    const double excess = std::fabs(a - b) - (atol + 1e-5 * std::fabs(a));
    if (excess > worst || std::isnan(b) != std::isnan(a)) worst = std::isnan(b) ? INFINITY : excess, worst_at = i;
  }
  if (worst_at >= 0) {
    std::printf("FAIL %s: element %lld differs (CPU %g, CUDA %g)\n", what.c_str(), static_cast<long long>(worst_at),
                at(cpu, worst_at), at(gpu, worst_at));
    ++failures;
  } else {
    std::printf("ok   %s\n", what.c_str());
  }
}

// ---- slice, transpose2, squeeze2, unsqueeze2: strided copies (any dtype)
void run_layout_cases(fluidc::cu::ContextScope& ctx) {
  struct SliceCase {
    Shape x;
    std::vector<int> axes, starts, ends, decrease;
  };
  for (const SliceCase& c : {SliceCase{{2, 4, 6}, {1, 2}, {1, -3}, {3, 100}, {}},
                             SliceCase{{2, 4, 6}, {1}, {0}, {1}, {1}}, SliceCase{{3, 5}, {0}, {-1}, {3}, {0}}}) {
    covered.insert({"slice", "slice_grad"});
    k::SliceAttrs a;
    a.axes = c.axes, a.starts = c.starts, a.ends = c.ends, a.decrease_axis = c.decrease;
    Tensor x = rnd(c.x), out, dx;
    k::slice(x, nullptr, nullptr, nullptr, 0, nullptr, 0, out, a);
    Tensor g = rnd(out.shape());
    k::slice_grad(x, nullptr, nullptr, nullptr, 0, nullptr, 0, g, &dx, a);
    DTensor &X = dev(x), &G = dev(g), &O = dev_out(), &DX = dev_out();
    kc::slice(X, nullptr, nullptr, nullptr, 0, nullptr, 0, O, a);
    kc::slice_grad(X, nullptr, nullptr, nullptr, 0, nullptr, 0, G, &DX, a);
    const std::string n = "slice of " + c.x.str() + " to " + out.shape().str();
    compare(ctx, n, out, O), compare(ctx, n + " grad", dx, DX);
  }
  {  // an integer slice (a shape's entries), 8-byte elements
    k::SliceAttrs a;
    a.axes = {0}, a.starts = {1}, a.ends = {3};
    Tensor x = labels({4}, 1000), out;
    k::slice(x, nullptr, nullptr, nullptr, 0, nullptr, 0, out, a);
    DTensor &X = dev(x), &O = dev_out();
    kc::slice(X, nullptr, nullptr, nullptr, 0, nullptr, 0, O, a);
    compare(ctx, "slice of int64[4]", out, O);
  }
  for (const std::vector<int>& axis : {std::vector<int>{0, 2, 1, 3}, std::vector<int>{2, 0, 3, 1}}) {
    covered.insert({"transpose2", "transpose2_grad"});
    k::TransposeAttrs a;
    a.axis = axis;
    Tensor x = rnd({2, 3, 4, 5}), out, xs, dx;
    k::transpose2(x, out, &xs, a);
    Tensor g = rnd(out.shape());
    k::transpose2_grad(xs, g, &dx, a);
    DTensor &X = dev(x), &G = dev(g), &O = dev_out(), &XS = dev_out(), &DX = dev_out();
    kc::transpose2(X, O, &XS, a);
    kc::transpose2_grad(XS, G, &DX, a);
    const std::string n = "transpose2 to " + out.shape().str();
    compare(ctx, n, out, O), compare(ctx, n + " grad", dx, DX);
  }
  {
    covered.insert({"squeeze2", "squeeze2_grad", "unsqueeze2", "unsqueeze2_grad"});
    k::Squeeze2Attrs sa;
    sa.axes = {1};
    k::Unsqueeze2Attrs ua;
    ua.axes = {0, 2};
    Tensor x = rnd({3, 1, 4}), sq, sxs, sdx, un, uxs, udx;
    k::squeeze2(x, sq, &sxs, sa);
    k::unsqueeze2(x, nullptr, nullptr, 0, un, &uxs, ua);
    Tensor sg = rnd(sq.shape()), ug = rnd(un.shape());
    k::squeeze2_grad(sxs, sg, &sdx);
    k::unsqueeze2_grad(uxs, ug, &udx);
    DTensor &X = dev(x), &SG = dev(sg), &UG = dev(ug), &SQ = dev_out(), &SXS = dev_out(), &SDX = dev_out(),
            &UN = dev_out(), &UXS = dev_out(), &UDX = dev_out();
    kc::squeeze2(X, SQ, &SXS, sa);
    kc::unsqueeze2(X, nullptr, nullptr, 0, UN, &UXS, ua);
    kc::squeeze2_grad(SXS, SG, &SDX);
    kc::unsqueeze2_grad(UXS, UG, &UDX);
    compare(ctx, "squeeze2", sq, SQ), compare(ctx, "squeeze2_grad", sdx, SDX);
    compare(ctx, "unsqueeze2", un, UN), compare(ctx, "unsqueeze2_grad", udx, UDX);
  }
}

// ---- conv2d and depthwise_conv2d (cuDNN, and the host fallback)
void run_conv_cases(fluidc::cu::ContextScope& ctx) {
  struct ConvCase {
    Shape x, w;
    std::vector<int> strides, paddings, dilations;
    int groups;
    bool depthwise;
  };
  for (const ConvCase& c : {ConvCase{{2, 3, 7, 7}, {4, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false},
                            ConvCase{{2, 3, 9, 8}, {5, 3, 3, 2}, {2, 1}, {0, 1}, {2, 1}, 1, false},
                            ConvCase{{2, 4, 6, 6}, {6, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 2, false},
                            ConvCase{{2, 3, 5, 5}, {6, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 3, true},
                            // asymmetric padding: the CPU kernel on the host
                            ConvCase{{1, 2, 5, 5}, {3, 2, 2, 2}, {1, 1}, {0, 1, 0, 1}, {1, 1}, 1, false}}) {
    covered.insert(c.depthwise ? std::initializer_list<std::string>{"depthwise_conv2d", "depthwise_conv2d_grad"}
                               : std::initializer_list<std::string>{"conv2d", "conv2d_grad"});
    k::ConvAttrs a;
    a.strides = c.strides, a.paddings = c.paddings, a.dilations = c.dilations, a.groups = c.groups;
    Tensor x = rnd(c.x), w = rnd(c.w), out, dx, dw;
    auto cpu = c.depthwise ? &k::depthwise_conv2d : &k::conv2d;
    auto cpu_grad = c.depthwise ? &k::depthwise_conv2d_grad : &k::conv2d_grad;
    cpu(x, w, nullptr, nullptr, out, a);
    Tensor g = rnd(out.shape());
    cpu_grad(x, w, g, &dx, &dw, a);
    DTensor &X = dev(x), &W = dev(w), &G = dev(g), &O = dev_out(), &DX = dev_out(), &DW = dev_out();
    if (c.depthwise) {
      kc::depthwise_conv2d(X, W, nullptr, nullptr, O, a);
      kc::depthwise_conv2d_grad(X, W, G, &DX, &DW, a);
    } else {
      kc::conv2d(X, W, nullptr, nullptr, O, a);
      kc::conv2d_grad(X, W, G, &DX, &DW, a);
    }
    const std::string n = std::string(c.depthwise ? "depthwise_conv2d " : "conv2d ") + c.x.str() + " * " + c.w.str();
    compare(ctx, n, out, O, 1e-5), compare(ctx, n + " grad Input", dx, DX, 1e-5);
    compare(ctx, n + " grad Filter", dw, DW, 1e-4);  // sums over batch and positions: ~100 terms
  }
}

// ---- pool2d, batch_norm
void run_pool_norm_cases(fluidc::cu::ContextScope& ctx) {
  struct PoolCase {
    const char* type;
    std::vector<int> ksize, strides, paddings;
    bool exclusive, adaptive, global, ceil;
  };
  for (const PoolCase& c : {PoolCase{"max", {2, 2}, {2, 2}, {0, 0}, true, false, false, false},
                            PoolCase{"avg", {3, 3}, {2, 2}, {1, 1}, true, false, false, false},
                            PoolCase{"avg", {3, 3}, {2, 2}, {1, 1}, false, false, false, true},
                            PoolCase{"max", {3, 3}, {2, 2}, {1, 1}, true, false, false, true},
                            PoolCase{"avg", {3, 2}, {1, 1}, {0, 0}, true, true, false, false},
                            PoolCase{"max", {1, 1}, {1, 1}, {0, 0}, true, false, true, false}}) {
    covered.insert({"pool2d", "pool2d_grad"});
    k::PoolAttrs a;
    a.pooling_type = c.type, a.ksize = c.ksize, a.strides = c.strides, a.paddings = c.paddings;
    a.exclusive = c.exclusive, a.adaptive = c.adaptive, a.global_pooling = c.global, a.ceil_mode = c.ceil;
    Tensor x = rnd({2, 3, 7, 7}), out, dx;
    k::pool2d(x, out, a);
    Tensor g = rnd(out.shape());
    k::pool2d_grad(x, out, g, &dx, a);
    DTensor &X = dev(x), &G = dev(g), &O = dev_out(), &DX = dev_out();
    kc::pool2d(X, O, a);
    kc::pool2d_grad(X, O, G, &DX, a);
    const std::string n = std::string("pool2d ") + c.type + (c.adaptive ? " adaptive" : "") +
                          (c.global ? " global" : "") + (c.ceil ? " ceil_mode" : "") +
                          (c.exclusive ? "" : " inclusive") + " to " + out.shape().str();
    compare(ctx, n, out, O), compare(ctx, n + " grad", dx, DX);
  }
  for (int variant = 0; variant < 3; ++variant) {  // training NCHW, test mode (global), training [N, C]
    covered.insert({"batch_norm", "batch_norm_grad"});
    k::BatchNormAttrs a;
    a.is_test = variant == 1;
    const Shape xs = variant == 2 ? Shape{6, 5} : Shape{2, 3, 4, 5};
    const int64_t C = xs[1];
    Tensor x = rnd(xs, -2, 3), sc = rnd({C}), bi = rnd({C}), mean = rnd({C}), var = rnd({C}, 0.5f, 2.f), g = rnd(xs);
    Tensor y, mo, vo, sm, sv, dx, ds, db;
    k::batch_norm(x, sc, bi, mean, var, nullptr, y, &mo, &vo, &sm, &sv, nullptr, a);
    k::batch_norm_grad(x, sc, &bi, &mean, &var, sm, sv, &mo, &vo, nullptr, g, &dx, &ds, &db, a);
    DTensor &X = dev(x), &SC = dev(sc), &BI = dev(bi), &M = dev(mean), &V = dev(var), &G = dev(g), &Y = dev_out(),
            &MO = dev_out(), &VO = dev_out(), &SM = dev_out(), &SV = dev_out(), &DX = dev_out(), &DS = dev_out(),
            &DB = dev_out();
    kc::batch_norm(X, SC, BI, M, V, nullptr, Y, &MO, &VO, &SM, &SV, nullptr, a);
    kc::batch_norm_grad(X, SC, &BI, &M, &V, SM, SV, &MO, &VO, nullptr, G, &DX, &DS, &DB, a);
    const std::string n = std::string("batch_norm ") + (variant == 1 ? "(test mode) " : "") + xs.str();
    compare(ctx, n + " Y", y, Y), compare(ctx, n + " MeanOut", mo, MO), compare(ctx, n + " VarianceOut", vo, VO);
    compare(ctx, n + " SavedMean", sm, SM), compare(ctx, n + " SavedVariance", sv, SV);
    compare(ctx, n + " grad X", dx, DX), compare(ctx, n + " grad Scale", ds, DS), compare(ctx, n + " grad Bias", db, DB);
  }
}

// ---- gelu, layer_norm, lookup_table_v2
void run_transformer_cases(fluidc::cu::ContextScope& ctx) {
  for (bool approximate : {false, true}) {
    covered.insert({"gelu", "gelu_grad"});
    k::GeluAttrs a;
    a.approximate = approximate;
    Tensor x = rnd({5, 7}, -4, 4), g = rnd({5, 7}), out, dx;
    k::gelu(x, out, a);
    k::gelu_grad(x, g, &dx, a);
    DTensor &X = dev(x), &G = dev(g), &O = dev_out(), &DX = dev_out();
    kc::gelu(X, O, a);
    kc::gelu_grad(X, G, &DX, a);
    const std::string n = approximate ? "gelu (tanh form)" : "gelu (erf form)";
    compare(ctx, n, out, O), compare(ctx, n + " grad", dx, DX);
  }
  // 300 columns: more than one pass of a block's 256 threads.
  for (bool affine : {true, false}) {
    covered.insert({"layer_norm", "layer_norm_grad"});
    k::LayerNormAttrs a;
    a.begin_norm_axis = 2;
    Tensor x = rnd({3, 4, 300}, -2, 3), sc = rnd({300}), bi = rnd({300}), g = rnd({3, 4, 300}), y, mean, var, dx, ds,
           db;
    k::layer_norm(x, affine ? &sc : nullptr, affine ? &bi : nullptr, y, &mean, &var, a);
    k::layer_norm_grad(x, affine ? &sc : nullptr, affine ? &bi : nullptr, mean, var, g, &dx, affine ? &ds : nullptr,
                       &db, a);
    DTensor &X = dev(x), &SC = dev(sc), &BI = dev(bi), &G = dev(g), &Y = dev_out(), &M = dev_out(), &V = dev_out(),
            &DX = dev_out(), &DS = dev_out(), &DB = dev_out();
    kc::layer_norm(X, affine ? &SC : nullptr, affine ? &BI : nullptr, Y, &M, &V, a);
    kc::layer_norm_grad(X, affine ? &SC : nullptr, affine ? &BI : nullptr, M, V, G, &DX, affine ? &DS : nullptr, &DB,
                        a);
    const std::string n = affine ? "layer_norm" : "layer_norm (no scale, no bias)";
    compare(ctx, n + " Y", y, Y), compare(ctx, n + " Mean", mean, M), compare(ctx, n + " Variance", var, V);
    compare(ctx, n + " grad X", dx, DX), compare(ctx, n + " grad Bias", db, DB);
    if (affine) compare(ctx, n + " grad Scale", ds, DS);
  }
  for (bool sparse : {false, true}) {
    covered.insert({"lookup_table_v2", "lookup_table_v2_grad"});
    k::LookupTableV2Attrs a;
    a.padding_idx = 2, a.is_sparse = sparse;
    Tensor ids = labels({4, 6}, 9), w = rnd({9, 5}), out, dw;
    ids.data<int64_t>()[3] = 2;  // the padding id: zeros, and a gradient only with is_sparse
    ids.data<int64_t>()[7] = ids.data<int64_t>()[8];  // a repeated id: its rows' gradients add up
    k::lookup_table_v2(ids, w, out, a);
    Tensor g = rnd(out.shape());
    k::lookup_table_v2_grad(ids, w, g, &dw, a);
    DTensor &IDS = dev(ids), &W = dev(w), &G = dev(g), &O = dev_out(), &DW = dev_out();
    kc::lookup_table_v2(IDS, W, O, a);
    kc::lookup_table_v2_grad(IDS, W, G, &DW, a);
    const std::string n = sparse ? "lookup_table_v2 (is_sparse)" : "lookup_table_v2";
    compare(ctx, n, out, O), compare(ctx, n + " grad", dw, DW);
  }
}

void run_cases(fluidc::cu::ContextScope& ctx) {
  // ---- GEMMs
  {
    covered.insert({"mul", "mul_grad"});
    k::MulAttrs a;
    Tensor x = rnd({4, 6}), y = rnd({6, 5}), g = rnd({4, 5}), out, dx, dy;
    k::mul(x, y, out, a);
    k::mul_grad(x, y, g, &dx, &dy, a);
    DTensor &X = dev(x), &Y = dev(y), &G = dev(g), &O = dev_out(), &DX = dev_out(), &DY = dev_out();
    kc::mul(X, Y, O, a);
    kc::mul_grad(X, Y, G, &DX, &DY, a);
    compare(ctx, "mul", out, O), compare(ctx, "mul_grad X", dx, DX), compare(ctx, "mul_grad Y", dy, DY);
  }
  struct MM {
    Shape x, y;
    bool tx, ty;
  };
  for (const MM& c : {MM{{4, 6}, {6, 5}, false, false}, MM{{6, 4}, {6, 5}, true, false}, MM{{4, 6}, {5, 6}, false, true},
                      MM{{6, 4}, {5, 6}, true, true}, MM{{3, 4, 6}, {6, 5}, false, false},
                      MM{{2, 4, 6}, {2, 6, 5}, false, false}, MM{{2, 6, 4}, {2, 5, 6}, true, true},
                      MM{{4, 6}, {2, 6, 5}, false, false}, MM{{6}, {6, 5}, false, false}}) {
    covered.insert({"matmul_v2", "matmul_v2_grad"});
    k::MatmulV2Attrs a;
    a.trans_x = c.tx, a.trans_y = c.ty;
    Tensor x = rnd(c.x), y = rnd(c.y), out, dx, dy;
    k::matmul_v2(x, y, out, a);
    Tensor g = rnd(out.shape());
    k::matmul_v2_grad(x, y, g, &dx, &dy, a);
    DTensor &X = dev(x), &Y = dev(y), &G = dev(g), &O = dev_out(), &DX = dev_out(), &DY = dev_out();
    kc::matmul_v2(X, Y, O, a);
    kc::matmul_v2_grad(X, Y, G, &DX, &DY, a);
    const std::string n = "matmul_v2 " + c.x.str() + (c.tx ? "^T" : "") + " @ " + c.y.str() + (c.ty ? "^T" : "");
    compare(ctx, n, out, O), compare(ctx, n + " grad X", dx, DX), compare(ctx, n + " grad Y", dy, DY);
  }
  for (const MM& c : {MM{{4, 6}, {6, 5}, false, true}, MM{{3, 4, 6}, {3, 6, 5}, false, false},
                      MM{{3, 4, 6}, {6, 5}, true, false}, MM{{6}, {6}, false, false}}) {
    covered.insert({"matmul", "matmul_grad"});
    k::MatmulAttrs a;
    a.transpose_X = c.tx, a.transpose_Y = c.ty, a.alpha = 0.5f;
    // The cases give the shapes of op(X) and op(Y); a transposed operand is stored the other way round.
    Shape xs = c.x, ys = c.y;
    if (c.tx && xs.rank >= 2) std::swap(xs.d[xs.rank - 1], xs.d[xs.rank - 2]);
    if (c.ty && ys.rank >= 2) std::swap(ys.d[ys.rank - 1], ys.d[ys.rank - 2]);
    Tensor x = rnd(xs), y = rnd(ys), out, dx, dy;
    k::matmul(x, y, out, a);
    Tensor g = rnd(out.shape());
    k::matmul_grad(x, y, g, &dx, &dy, a);
    DTensor &X = dev(x), &Y = dev(y), &G = dev(g), &O = dev_out(), &DX = dev_out(), &DY = dev_out();
    kc::matmul(X, Y, O, a);
    kc::matmul_grad(X, Y, G, &DX, &DY, a);
    const std::string n = "matmul (v1, alpha 0.5) " + xs.str() + (c.tx ? "^T" : "") + " @ " + ys.str() + (c.ty ? "^T" : "");
    compare(ctx, n, out, O), compare(ctx, n + " grad X", dx, DX), compare(ctx, n + " grad Y", dy, DY);
  }
  // ---- elementwise, with Paddle's broadcasting
  struct EW {
    Shape x, y;
    int axis;
  };
  using Fwd = void (*)(const Tensor&, const Tensor&, Tensor&, const k::ElementwiseAttrs&);
  using FwdC = void (*)(const DTensor&, const DTensor&, DTensor&, const k::ElementwiseAttrs&);
  using Bwd = void (*)(const Tensor&, const Tensor&, const Tensor&, Tensor*, Tensor*, const k::ElementwiseAttrs&);
  using BwdC = void (*)(const DTensor&, const DTensor&, const DTensor&, DTensor*, DTensor*, const k::ElementwiseAttrs&);
  struct Op {
    const char* name;
    Fwd f;
    FwdC fc;
    Bwd b;
    BwdC bc;
  };
  for (const Op& op : {Op{"elementwise_add", k::elementwise_add, kc::elementwise_add, k::elementwise_add_grad,
                          kc::elementwise_add_grad},
                       Op{"elementwise_sub", k::elementwise_sub, kc::elementwise_sub, k::elementwise_sub_grad,
                          kc::elementwise_sub_grad},
                       Op{"elementwise_mul", k::elementwise_mul, kc::elementwise_mul, k::elementwise_mul_grad,
                          kc::elementwise_mul_grad},
                       Op{"elementwise_div", k::elementwise_div, kc::elementwise_div, nullptr, nullptr}})
    for (const EW& c : {EW{{4, 5}, {4, 5}, -1}, EW{{4, 5}, {5}, -1}, EW{{2, 3, 4}, {3}, 1}, EW{{2, 3, 4}, {2, 1, 4}, -1}}) {
      covered.insert(op.name);
      k::ElementwiseAttrs a;
      a.axis = c.axis;
      Tensor x = rnd(c.x), y = rnd(c.y, 0.5f, 2.f), out, dx, dy;
      op.f(x, y, out, a);
      Tensor g = rnd(out.shape());
      DTensor &X = dev(x), &Y = dev(y), &G = dev(g), &O = dev_out(), &DX = dev_out(), &DY = dev_out();
      op.fc(X, Y, O, a);
      const std::string n = std::string(op.name) + " " + c.x.str() + " " + c.y.str();
      compare(ctx, n, out, O);
      if (op.b) {
        covered.insert(std::string(op.name) + "_grad");
        op.b(x, y, g, &dx, &dy, a);
        op.bc(X, Y, G, &DX, &DY, a);
      } else {
        covered.insert("elementwise_div_grad");
        k::elementwise_div_grad(x, y, out, g, &dx, &dy, a);
        kc::elementwise_div_grad(X, Y, O, G, &DX, &DY, a);
      }
      compare(ctx, n + " grad X", dx, DX), compare(ctx, n + " grad Y", dy, DY);
    }
  // ---- activations
  using U = void (*)(const Tensor&, Tensor&);
  using UC = void (*)(const DTensor&, DTensor&);
  using UG = void (*)(const Tensor&, const Tensor&, Tensor*);
  using UGC = void (*)(const DTensor&, const DTensor&, DTensor*);
  struct Act {
    const char* name;
    U f;
    UC fc;
    UG g;
    UGC gc;
    bool grad_from_x;
    float lo = -3.f, hi = 3.f;  // sqrt and log: positive inputs
  };
  for (const Act& act : {Act{"relu", k::relu, kc::relu, k::relu_grad, kc::relu_grad, false},
                         Act{"sigmoid", k::sigmoid, kc::sigmoid, k::sigmoid_grad, kc::sigmoid_grad, false},
                         Act{"tanh", k::tanh, kc::tanh, k::tanh_grad, kc::tanh_grad, false},
                         Act{"square", k::square, kc::square, k::square_grad, kc::square_grad, true},
                         Act{"sqrt", k::sqrt, kc::sqrt, k::sqrt_grad, kc::sqrt_grad, false, 0.1f, 4.f},
                         Act{"exp", k::exp, kc::exp, k::exp_grad, kc::exp_grad, false},
                         Act{"log", k::log, kc::log, k::log_grad, kc::log_grad, true, 0.1f, 4.f},
                         Act{"abs", k::abs, kc::abs, k::abs_grad, kc::abs_grad, true}}) {
    covered.insert({act.name, std::string(act.name) + "_grad"});
    Tensor x = rnd({5, 7}, act.lo, act.hi), out, dx, g = rnd({5, 7});
    act.f(x, out);
    act.g(act.grad_from_x ? x : out, g, &dx);
    DTensor &X = dev(x), &G = dev(g), &O = dev_out(), &DX = dev_out();
    act.fc(X, O);
    act.gc(act.grad_from_x ? X : O, G, &DX);
    compare(ctx, act.name, out, O), compare(ctx, std::string(act.name) + "_grad", dx, DX);
  }
  for (bool after : {true, false}) {
    covered.insert("scale");
    k::ScaleAttrs a;
    a.scale = 1.5f, a.bias = -0.25f, a.bias_after_scale = after;
    Tensor x = rnd({3, 4}), out;
    k::scale(x, nullptr, out, a);
    DTensor &X = dev(x), &O = dev_out();
    kc::scale(X, nullptr, O, a);
    compare(ctx, after ? "scale (bias after)" : "scale (bias before)", out, O);
  }
  {
    covered.insert({"fill_constant", "assign", "sum"});
    k::FillConstantAttrs a;
    a.shape = {3, 2};
    a.value = 0.75f;
    Tensor out;
    k::fill_constant(nullptr, nullptr, nullptr, 0, out, a);
    DTensor& O = dev_out();
    kc::fill_constant(nullptr, nullptr, nullptr, 0, O, a);
    compare(ctx, "fill_constant float32", out, O);
    a.dtype = static_cast<int>(DType::kInt64), a.value = 3;
    Tensor out64;
    k::fill_constant(nullptr, nullptr, nullptr, 0, out64, a);
    DTensor& O64 = dev_out();
    kc::fill_constant(nullptr, nullptr, nullptr, 0, O64, a);
    compare(ctx, "fill_constant int64", out64, O64);
    Tensor x = rnd({4, 3}), y = rnd({4, 3}), z = rnd({4, 3}), as, s;
    k::assign(x, as);
    DTensor &X = dev(x), &Y = dev(y), &Z = dev(z), &AS = dev_out(), &S = dev_out();
    kc::assign(X, AS);
    compare(ctx, "assign", as, AS);
    const Tensor* const in[] = {&x, &y, &z};
    const DTensor* const inc[] = {&X, &Y, &Z};
    k::sum(in, 3, s);
    kc::sum(inc, 3, S);
    compare(ctx, "sum of 3", s, S);
  }
  {
    covered.insert({"cast", "fill_any_like", "fill_zeros_like"});
    Tensor x = rnd({3, 5}, -40, 40);
    x.data<float>()[0] = 0.f;
    DTensor& X = dev(x);
    for (DType to : {DType::kInt64, DType::kInt32, DType::kFP64, DType::kBool, DType::kFP32}) {
      k::CastAttrs a;
      a.in_dtype = static_cast<int>(DType::kFP32), a.out_dtype = static_cast<int>(to);
      Tensor out;
      k::cast(x, out, a);
      DTensor& O = dev_out();
      kc::cast(X, O, a);
      compare(ctx, std::string("cast float32 -> ") + fluidc::rt::dtype_name(to), out, O);
    }
    Tensor i64 = labels({4, 3}, 1000), back;
    k::CastAttrs a;
    a.in_dtype = static_cast<int>(DType::kInt64), a.out_dtype = static_cast<int>(DType::kFP32);
    k::cast(i64, back, a);
    DTensor &I = dev(i64), &B = dev_out();
    kc::cast(I, B, a);
    compare(ctx, "cast int64 -> float32", back, B);
    k::FillAnyLikeAttrs fa;
    fa.value = 2.5f;
    Tensor like, zeros;
    k::fill_any_like(x, like, fa);
    k::fill_zeros_like(i64, zeros);
    DTensor &L = dev_out(), &Z = dev_out();
    kc::fill_any_like(X, L, fa);
    kc::fill_zeros_like(I, Z);
    compare(ctx, "fill_any_like", like, L), compare(ctx, "fill_zeros_like (int64)", zeros, Z);
  }
  // ---- data movement
  {
    covered.insert({"reshape2", "reshape2_grad", "flatten_contiguous_range", "flatten_contiguous_range_grad"});
    k::Reshape2Attrs ra;
    ra.shape = {0, -1};
    Tensor x = rnd({2, 3, 4}), out, xs, dx;
    k::reshape2(x, out, &xs, ra);
    Tensor g = rnd(out.shape());
    k::reshape2_grad(xs, g, &dx);
    DTensor &X = dev(x), &G = dev(g), &O = dev_out(), &XS = dev_out(), &DX = dev_out();
    kc::reshape2(X, nullptr, nullptr, 0, O, &XS, ra);
    kc::reshape2_grad(XS, G, &DX);
    compare(ctx, "reshape2", out, O), compare(ctx, "reshape2_grad", dx, DX);
    XS.download_async();
    ctx.sync();
    if (XS.shape() != xs.shape()) {
      std::printf("FAIL reshape2 XShape: %s vs %s\n", XS.shape().str().c_str(), xs.shape().str().c_str());
      ++failures;
    }
    k::FlattenAttrs fa;
    fa.start_axis = 1, fa.stop_axis = 2;
    Tensor fo, fxs, fdx;
    k::flatten_contiguous_range(x, fo, &fxs, fa);
    k::flatten_contiguous_range_grad(fxs, g, &fdx);
    DTensor &FO = dev_out(), &FXS = dev_out(), &FDX = dev_out();
    kc::flatten_contiguous_range(X, FO, &FXS, fa);
    kc::flatten_contiguous_range_grad(FXS, G, &FDX);
    compare(ctx, "flatten_contiguous_range", fo, FO), compare(ctx, "flatten_contiguous_range_grad", fdx, FDX);
  }
  // ---- reductions, softmax, cross entropy
  for (bool mean : {false, true})
    for (int variant = 0; variant < 3; ++variant) {
      covered.insert({"reduce_sum", "reduce_sum_grad", "reduce_mean", "reduce_mean_grad"});
      k::ReduceAttrs a;
      if (variant == 0) a.dim = {1};
      if (variant == 1) a.dim = {0, 2}, a.keep_dim = true;
      if (variant == 2) a.reduce_all = true;
      Tensor x = rnd({3, 4, 5}), out, dx;
      (mean ? k::reduce_mean : k::reduce_sum)(x, out, a);
      Tensor g = rnd(out.shape());
      (mean ? k::reduce_mean_grad : k::reduce_sum_grad)(x, g, &dx, a);
      DTensor &X = dev(x), &G = dev(g), &O = dev_out(), &DX = dev_out();
      (mean ? kc::reduce_mean : kc::reduce_sum)(X, O, a);
      (mean ? kc::reduce_mean_grad : kc::reduce_sum_grad)(X, G, &DX, a);
      const std::string n = std::string(mean ? "reduce_mean" : "reduce_sum") + " variant " + std::to_string(variant);
      compare(ctx, n, out, O), compare(ctx, n + " grad", dx, DX);
    }
  {
    covered.insert({"mean", "mean_grad"});
    Tensor x = rnd({6, 7}), out, dx;
    k::mean(x, out);
    Tensor g = rnd(out.shape());
    k::mean_grad(x, g, &dx);
    DTensor &X = dev(x), &G = dev(g), &O = dev_out(), &DX = dev_out();
    kc::mean(X, O);
    kc::mean_grad(X, G, &DX);
    compare(ctx, "mean", out, O), compare(ctx, "mean_grad", dx, DX);
  }
  for (int axis : {-1, 0, 1}) {
    covered.insert({"softmax", "softmax_grad"});
    k::SoftmaxAttrs a;
    a.axis = axis;
    Tensor x = rnd({3, 5, 4}, -4, 4), out, dx, g = rnd({3, 5, 4});
    k::softmax(x, out, a);
    k::softmax_grad(out, g, &dx, a);
    DTensor &X = dev(x), &G = dev(g), &O = dev_out(), &DX = dev_out();
    kc::softmax(X, O, a);
    kc::softmax_grad(O, G, &DX, a);
    compare(ctx, "softmax axis " + std::to_string(axis), out, O);
    compare(ctx, "softmax_grad axis " + std::to_string(axis), dx, DX);
  }
  // use_softmax=false: Logits are probabilities already (rows of a softmax, so the logs are finite).
  for (auto [soft, use_softmax] : {std::pair{false, true}, std::pair{true, true}, std::pair{false, false},
                                   std::pair{true, false}}) {
    covered.insert({"softmax_with_cross_entropy", "softmax_with_cross_entropy_grad"});
    k::SoftmaxWithCrossEntropyAttrs a;
    a.soft_label = soft, a.use_softmax = use_softmax;
    Tensor logits = rnd({6, 10}, -5, 5), sm, loss, dx;
    if (!use_softmax) {
      k::SoftmaxAttrs norm;
      Tensor p;
      k::softmax(logits, p, norm);
      logits.copy_from(p);
    }
    Tensor label = soft ? Tensor() : labels({6, 1}, 10, a.ignore_index);
    if (soft) {
      label = rnd({6, 10}, 0, 1);
      k::SoftmaxAttrs norm;
      Tensor p;
      k::softmax(label, p, norm);
      label.copy_from(p);
    }
    k::softmax_with_cross_entropy(logits, label, sm, loss, a);
    Tensor g = rnd(loss.shape());
    k::softmax_with_cross_entropy_grad(label, sm, g, &dx, a);
    DTensor &L = dev(logits), &LB = dev(label), &G = dev(g), &SM = dev_out(), &LS = dev_out(), &DX = dev_out();
    kc::softmax_with_cross_entropy(L, LB, SM, LS, a);
    kc::softmax_with_cross_entropy_grad(LB, SM, G, &DX, a);
    const std::string n = std::string(soft ? "softmax_with_cross_entropy (soft" : "softmax_with_cross_entropy (hard, one ignored") +
                          (use_softmax ? ")" : ", use_softmax=false)");
    compare(ctx, n + " softmax", sm, SM), compare(ctx, n + " loss", loss, LS), compare(ctx, n + " grad", dx, DX);
  }
  {
    covered.insert({"cross_entropy2", "cross_entropy_grad2"});
    k::CrossEntropy2Attrs a;
    k::SoftmaxAttrs sa;
    Tensor logits = rnd({5, 7}, -3, 3), p, y, xs, m, dx;
    k::softmax(logits, p, sa);
    Tensor label = labels({5, 1}, 7, a.ignore_index);
    k::cross_entropy2(p, label, y, xs, m, a);
    Tensor g = rnd(y.shape());
    k::cross_entropy_grad2(label, m, xs, g, &dx, a);
    DTensor &P = dev(p), &LB = dev(label), &G = dev(g), &Y = dev_out(), &XS = dev_out(), &M = dev_out(), &DX = dev_out();
    kc::cross_entropy2(P, LB, Y, XS, M, a);
    kc::cross_entropy_grad2(LB, M, XS, G, &DX, a);
    compare(ctx, "cross_entropy2 Y (one ignored)", y, Y), compare(ctx, "cross_entropy2 MatchX", m, M);
    compare(ctx, "cross_entropy_grad2", dx, DX);
  }
  // A group that throws (a cuDNN or CUDA error) is one failure; the other groups still run.
  for (auto [name, group] : {std::pair{"layout", &run_layout_cases}, std::pair{"transformer", &run_transformer_cases},
                             std::pair{"pooling and batch norm", &run_pool_norm_cases},
                             std::pair{"convolution", &run_conv_cases}}) {
    try {
      group(ctx);
    } catch (const std::exception& ex) {
      std::printf("FAIL %s cases: %s\n", name, ex.what());
      ++failures;
    }
  }
  // ---- optimizers
  {
    covered.insert({"sgd", "momentum", "adam"});
    Tensor p = rnd({7, 3}), g = rnd({7, 3}), lr = rnd({1}, 0.01f, 0.1f), po;
    k::sgd(p, lr, g, po);
    DTensor &P = dev(p), &G = dev(g), &LR = dev(lr), &PO = dev_out();
    kc::sgd(P, LR, G, PO);
    compare(ctx, "sgd", po, PO);
    for (int variant = 0; variant < 3; ++variant) {
      k::MomentumAttrs a;
      a.mu = 0.9f;
      a.use_nesterov = variant == 1;
      if (variant == 2) a.regularization_method = "l2_decay", a.regularization_coeff = 0.01f;
      Tensor v = rnd({7, 3}), po2, vo;
      k::momentum(p, g, v, lr, po2, vo, a);
      DTensor &V = dev(v), &PO2 = dev_out(), &VO = dev_out();
      kc::momentum(P, G, V, LR, PO2, VO, a);
      const std::string n = "momentum variant " + std::to_string(variant);
      compare(ctx, n + " param", po2, PO2), compare(ctx, n + " velocity", vo, VO);
    }
    k::AdamAttrs a;
    Tensor m1 = rnd({7, 3}), m2 = rnd({7, 3}, 0, 1), b1p = rnd({1}, 0.5f, 0.9f), b2p = rnd({1}, 0.9f, 0.99f);
    Tensor po3, m1o, m2o, b1o, b2o;
    k::adam(p, g, lr, m1, m2, b1p, b2p, nullptr, nullptr, nullptr, po3, m1o, m2o, &b1o, &b2o, a);
    DTensor &M1 = dev(m1), &M2 = dev(m2), &B1 = dev(b1p), &B2 = dev(b2p);
    DTensor &PO3 = dev_out(), &M1O = dev_out(), &M2O = dev_out(), &B1O = dev_out(), &B2O = dev_out();
    kc::adam(P, G, LR, M1, M2, B1, B2, nullptr, nullptr, nullptr, PO3, M1O, M2O, &B1O, &B2O, a);
    compare(ctx, "adam param", po3, PO3), compare(ctx, "adam moment1", m1o, M1O);
    compare(ctx, "adam moment2", m2o, M2O), compare(ctx, "adam beta1_pow", b1o, B1O);
    compare(ctx, "adam beta2_pow", b2o, B2O);
  }
}

}  // namespace

int main() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::printf("cuda_kernels: no CUDA device (%s): skipped\n", e != cudaSuccess ? cudaGetErrorString(e) : "none");
    return 77;
  }
  try {
    fluidc::cu::ContextScope ctx;
    run_cases(ctx);
  } catch (const std::exception& ex) {
    std::printf("FAIL: %s\n", ex.what());
    return 1;
  }
  for (std::string_view op : kc::kOpTypes)
    if (!covered.count(std::string(op))) {
      std::printf("FAIL: %s is in kernels/cuda/op_list.h but has no case here\n", std::string(op).c_str());
      ++failures;
    }
  std::printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
