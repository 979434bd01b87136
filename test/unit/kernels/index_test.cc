// test/unit/kernels/index_test.cc - the index family: hand-computed values, bounds errors, gradient checks.
#include <catch2/catch.hpp>

#include "kernels/index.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

std::vector<double> dv(std::initializer_list<double> v) { return v; }

// fp32 and fp64 inputs of a shape with values 0.1 apart, shuffled: no ties,
// and far enough apart that a finite-difference step never reorders them.
Tensor spaced(const Shape& s, DType dt, uint32_t seed) {
  Tensor t;
  t.resize(s, dt);
  std::vector<double> v(static_cast<size_t>(s.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.1 * static_cast<double>(i) - 0.5;
  std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  for (int64_t i = 0; i < t.numel(); ++i) set(t, i, v[static_cast<size_t>(i)]);
  return t;
}

}  // namespace

TEST_CASE("lookup_table_v2 copies rows, zeroes the padding id and rejects ids outside the table", "[index]") {
  Tensor w = f32(Shape{3, 2}, {1, 2, 3, 4, 5, 6}), out;
  Tensor ids = i64(Shape{2, 2}, {2, 0, 1, 2});
  kernels::LookupTableV2Attrs a;
  a.padding_idx = 1;
  kernels::lookup_table_v2(ids, w, out, a);
  CHECK(out.shape() == Shape{2, 2, 2});
  CHECK(values(out) == dv({5, 6, 1, 2, 0, 0, 5, 6}));
  Tensor dout = f32(Shape{2, 2, 2}, {1, 1, 2, 2, 3, 3, 4, 4}), dw;
  kernels::lookup_table_v2_grad(ids, w, dout, &dw, a);
  CHECK(values(dw) == dv({2, 2, 0, 0, 5, 5}));  // id 2 twice summed, padding row none
  Tensor bad = i32(Shape{2}, {0, 3});
  CHECK_THROWS_WITH(kernels::lookup_table_v2(bad, w, out, a), Catch::Contains("Ids value 3"));
  Tensor neg = i64(Shape{1}, {-1});
  a.padding_idx = -1;  // -1 means no padding id: a -1 id is out of range, not padding
  CHECK_THROWS_AS(kernels::lookup_table_v2(neg, w, out, a), rt::Error);
  CHECK_THROWS_AS(kernels::lookup_table_v2_grad(bad, w, dout, &dw, a), rt::Error);
}

TEST_CASE("gather selects along axis, from the attribute or the Axis tensor", "[index]") {
  Tensor x = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6}), out;
  Tensor idx = i64(Shape{2}, {2, 0});
  kernels::GatherAttrs a;
  CHECK_THROWS_AS(kernels::gather(x, idx, nullptr, out, a), rt::Error);  // id 2 along axis 0 (2 rows)
  a.axis = 1;
  kernels::gather(x, idx, nullptr, out, a);
  CHECK(out.shape() == Shape{2, 2});
  CHECK(values(out) == dv({3, 1, 6, 4}));
  Tensor axis0 = i32(Shape{1}, {0});
  Tensor idx1 = i32(Shape{3}, {1, 1, 0});
  kernels::gather(x, idx1, &axis0, out, a);
  CHECK(out.shape() == Shape{3, 3});
  CHECK(values(out) == dv({4, 5, 6, 4, 5, 6, 1, 2, 3}));
  Tensor scalar = i64(Shape{}, {1});
  kernels::gather(x, scalar, nullptr, out, a);  // a 0-D index drops the axis
  CHECK(out.shape() == Shape{2});
  CHECK(values(out) == dv({2, 5}));
  Tensor far = i64(Shape{1}, {3});
  CHECK_THROWS_WITH(kernels::gather(x, far, nullptr, out, a), Catch::Contains("gather: Index value 3"));
  Tensor dout = f32(Shape{3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), dx;
  kernels::gather_grad(x, idx1, &axis0, dout, &dx, a);
  CHECK(values(dx) == dv({7, 8, 9, 5, 7, 9}));
}

TEST_CASE("gather with axis 0 really gathers rows", "[index]") {
  Tensor x = f32(Shape{3, 2}, {1, 2, 3, 4, 5, 6}), out;
  Tensor idx = i64(Shape{2, 1}, {2, 0});  // [N, 1] as older programs give it
  kernels::gather(x, idx, nullptr, out, {});
  CHECK(values(out) == dv({5, 6, 1, 2}));
}

TEST_CASE("index_select along dim, negative dim, bounds", "[index]") {
  Tensor x = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6}), out;
  Tensor idx = i64(Shape{4}, {0, 2, 2, 1});
  kernels::IndexSelectAttrs a;
  a.dim = -1;
  kernels::index_select(x, idx, out, a);
  CHECK(out.shape() == Shape{2, 4});
  CHECK(values(out) == dv({1, 3, 3, 2, 4, 6, 6, 5}));
  Tensor neg = i64(Shape{1}, {-1});
  CHECK_THROWS_WITH(kernels::index_select(x, neg, out, a), Catch::Contains("index_select: Index value -1"));
}

TEST_CASE("gather_nd addresses leading dims by tuples and checks every coordinate", "[index]") {
  Tensor x = f32(Shape{2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}), out;
  Tensor idx = i64(Shape{2, 2}, {1, 2, 0, 1});
  kernels::gather_nd(x, idx, out);
  CHECK(out.shape() == Shape{2, 2});
  CHECK(values(out) == dv({10, 11, 2, 3}));
  Tensor idx3 = i64(Shape{1, 3}, {1, 0, 1});
  kernels::gather_nd(x, idx3, out);
  CHECK(out.shape() == Shape{1});
  CHECK(values(out) == dv({7}));
  // 2 is inside the largest dim (3) but not inside dim 0 (2).
  Tensor bad = i64(Shape{1, 2}, {2, 0});
  CHECK_THROWS_WITH(kernels::gather_nd(x, bad, out), Catch::Contains("Index value 2"));
}

TEST_CASE("scatter overwrites or sums rows; its gradient zeroes them in X", "[index]") {
  Tensor x = f32(Shape{3, 2}, {1, 1, 2, 2, 3, 3}), out;
  Tensor ids = i64(Shape{3}, {2, 0, 2});
  Tensor upd = f32(Shape{3, 2}, {10, 11, 20, 21, 30, 31});
  kernels::ScatterAttrs a;
  kernels::scatter(x, ids, upd, out, a);
  CHECK(values(out) == dv({20, 21, 2, 2, 30, 31}));  // the last update of row 2 wins
  a.overwrite = false;
  kernels::scatter(x, ids, upd, out, a);
  CHECK(values(out) == dv({20, 21, 2, 2, 40, 42}));  // X's row 2 is replaced by the sum
  Tensor dout = f32(Shape{3, 2}, {1, 2, 3, 4, 5, 6}), dx, du;
  kernels::scatter_grad(ids, upd, dout, &dx, &du, a);
  CHECK(values(dx) == dv({0, 0, 3, 4, 0, 0}));
  CHECK(values(du) == dv({5, 6, 1, 2, 5, 6}));
  Tensor bad = i64(Shape{1}, {3});
  Tensor upd1 = f32(Shape{1, 2}, {0, 0});
  CHECK_THROWS_WITH(kernels::scatter(x, bad, upd1, out, a), Catch::Contains("scatter: Ids value 3"));
  Tensor wrong = f32(Shape{3, 3}, std::vector<float>(9, 0));
  CHECK_THROWS_AS(kernels::scatter(x, ids, wrong, out, a), rt::Error);
}

TEST_CASE("one_hot_v2 sets one position per id; out-of-range ids fail unless allowed", "[index]") {
  Tensor x = i64(Shape{3}, {2, 0, 3}), out;
  kernels::OneHotV2Attrs a;
  a.depth = 4;
  kernels::one_hot_v2(x, nullptr, out, a);
  CHECK(out.shape() == Shape{3, 4});
  CHECK(out.dtype() == rt::DType::kFP32);
  CHECK(values(out) == dv({0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1}));
  Tensor depth = i32(Shape{1}, {3});
  CHECK_THROWS_WITH(kernels::one_hot_v2(x, &depth, out, a), Catch::Contains("X value 3"));
  a.allow_out_of_range = true;
  kernels::one_hot_v2(x, &depth, out, a);
  CHECK(values(out) == dv({0, 0, 1, 1, 0, 0, 0, 0, 0}));
}

TEST_CASE("arg_max / arg_min: axis, keepdims, flatten, dtype, first of ties", "[index]") {
  Tensor x = f32(Shape{2, 3}, {1, 5, 5, 7, 0, 7}), out;
  kernels::ArgMinMaxAttrs a;
  a.axis = 1;
  kernels::arg_max(x, out, a);
  CHECK(out.shape() == Shape{2});
  CHECK(out.dtype() == rt::DType::kInt64);
  CHECK(values(out) == dv({1, 0}));
  a.axis = 0;
  a.keepdims = true;
  a.dtype = 2;
  kernels::arg_min(x, out, a);
  CHECK(out.shape() == Shape{1, 3});
  CHECK(out.dtype() == rt::DType::kInt32);
  CHECK(values(out) == dv({0, 1, 0}));
  a.flatten = true;
  a.keepdims = false;
  kernels::arg_max(x, out, a);
  CHECK(out.rank() == 0);
  CHECK(values(out) == dv({3}));
  a.flatten = false;
  a.axis = 2;
  CHECK_THROWS_AS(kernels::arg_max(x, out, a), rt::Error);
}

TEST_CASE("top_k_v2: largest / smallest along an axis, K tensor, ties to the lower index", "[index]") {
  Tensor x = f32(Shape{2, 4}, {3, 1, 4, 1, 5, 9, 2, 6}), out, ind;
  kernels::TopKV2Attrs a;
  a.k = 2;
  kernels::top_k_v2(x, nullptr, out, ind, a);
  CHECK(values(out) == dv({4, 3, 9, 6}));
  CHECK(values(ind) == dv({2, 0, 1, 3}));
  a.largest = false;
  kernels::top_k_v2(x, nullptr, out, ind, a);
  CHECK(values(out) == dv({1, 1, 2, 5}));
  CHECK(values(ind) == dv({1, 3, 2, 0}));
  Tensor k1 = i64(Shape{1}, {1});
  a.axis = 0;
  a.largest = true;
  kernels::top_k_v2(x, &k1, out, ind, a);
  CHECK(out.shape() == Shape{1, 4});
  CHECK(values(out) == dv({5, 9, 4, 6}));
  CHECK(values(ind) == dv({1, 1, 0, 1}));
  a.k = 3;
  CHECK_THROWS_AS(kernels::top_k_v2(x, nullptr, out, ind, a), rt::Error);
  Tensor dout = f32(Shape{1, 4}, {1, 2, 3, 4}), dx;
  Tensor bad = i64(Shape{1, 4}, {0, 2, 0, 0});
  CHECK_THROWS_WITH(kernels::top_k_v2_grad(x, bad, nullptr, dout, &dx, a), Catch::Contains("Indices value 2"));
}

TEST_CASE("accuracy counts rows whose top-k holds the label", "[index]") {
  Tensor out = f32(Shape{3, 2}, {0, 0, 0, 0, 0, 0});
  Tensor ind = i64(Shape{3, 2}, {1, 0, 2, 3, 4, 1});
  Tensor label = i64(Shape{3, 1}, {0, 1, 4});
  Tensor acc, correct, total;
  kernels::accuracy(out, ind, label, acc, correct, total);
  CHECK(acc.data<float>()[0] == Approx(2.0 / 3.0));
  CHECK(correct.data<int32_t>()[0] == 2);
  CHECK(total.data<int32_t>()[0] == 3);
}

TEST_CASE("where picks by condition; range; cumsum variants", "[index]") {
  Tensor c = make<bool>(Shape{4}, {true, false, false, true});
  Tensor x = f32(Shape{4}, {1, 2, 3, 4}), y = f32(Shape{4}, {-1, -2, -3, -4}), out;
  kernels::where(c, x, y, out);
  CHECK(values(out) == dv({1, -2, -3, 4}));
  kernels::where(c, x, y, c);  // Out over Condition: wider elements must not overwrite unread bools
  CHECK(values(c) == dv({1, -2, -3, 4}));

  kernels::range(i64(Shape{1}, {2}), i64(Shape{1}, {9}), i64(Shape{1}, {3}), out);
  CHECK(out.dtype() == rt::DType::kInt64);
  CHECK(values(out) == dv({2, 5, 8}));
  kernels::range(f32(Shape{1}, {1}), f32(Shape{1}, {0}), f32(Shape{1}, {-0.25f}), out);
  CHECK(values(out) == dv({1, 0.75, 0.5, 0.25}));
  CHECK_THROWS_AS(kernels::range(f32(Shape{1}, {0}), f32(Shape{1}, {1}), f32(Shape{1}, {0}), out), rt::Error);

  Tensor m = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  kernels::CumsumAttrs a;
  kernels::cumsum(m, out, a);
  CHECK(values(out) == dv({1, 3, 6, 4, 9, 15}));
  a.axis = 0;
  a.exclusive = true;
  kernels::cumsum(m, out, a);
  CHECK(values(out) == dv({0, 0, 0, 1, 2, 3}));
  a.exclusive = false;
  a.reverse = true;
  a.flatten = true;
  kernels::cumsum(m, out, a);
  CHECK(out.shape() == Shape{6});
  CHECK(values(out) == dv({21, 20, 18, 15, 11, 6}));
  a.flatten = false;
  a.axis = 1;
  a.exclusive = true;
  kernels::cumsum(m, m, a);  // in place
  CHECK(values(m) == dv({5, 3, 0, 11, 6, 0}));
}

TEST_CASE("index family gradients match finite differences", "[index][gradcheck]") {
  for (DType dt : {DType::kFP32, DType::kFP64}) {
    std::mt19937 rng(7);
    const auto opt = GradCheckOptions::for_dtype(dt);
    {
      Tensor w = random(Shape{5, 3}, dt, rng);
      Tensor ids = i64(Shape{2, 3}, {4, 1, 4, 0, 2, 1});
      kernels::LookupTableV2Attrs a;
      a.padding_idx = 2;
      CHECK_GRADCHECK_OP("lookup_table_v2", {&w}, [&](Tensor& o) { kernels::lookup_table_v2(ids, w, o, a); },
                         [&](const Tensor& d, std::vector<Tensor*>& g) {
                           kernels::lookup_table_v2_grad(ids, w, d, g[0], a);
                         },
                         opt);
    }
    {
      Tensor x = random(Shape{3, 4, 2}, dt, rng);
      Tensor idx = i32(Shape{5}, {3, 0, 3, 1, 3});
      kernels::GatherAttrs a;
      a.axis = 1;
      CHECK_GRADCHECK_OP("gather", {&x}, [&](Tensor& o) { kernels::gather(x, idx, nullptr, o, a); },
                         [&](const Tensor& d, std::vector<Tensor*>& g) {
                           kernels::gather_grad(x, idx, nullptr, d, g[0], a);
                         },
                         opt);
      kernels::IndexSelectAttrs s;
      s.dim = 2;
      Tensor idx2 = i64(Shape{3}, {1, 1, 0});
      CHECK_GRADCHECK_OP("index_select", {&x}, [&](Tensor& o) { kernels::index_select(x, idx2, o, s); },
                         [&](const Tensor& d, std::vector<Tensor*>& g) {
                           kernels::index_select_grad(x, idx2, d, g[0], s);
                         },
                         opt);
      Tensor nd = i64(Shape{3, 2}, {2, 3, 0, 0, 2, 3});
      CHECK_GRADCHECK_OP("gather_nd", {&x}, [&](Tensor& o) { kernels::gather_nd(x, nd, o); },
                         [&](const Tensor& d, std::vector<Tensor*>& g) { kernels::gather_nd_grad(x, nd, d, g[0]); },
                         opt);
      kernels::CumsumAttrs c;
      c.axis = 1;
      c.exclusive = true;
      c.reverse = true;
      CHECK_GRADCHECK_OP("cumsum", {&x}, [&](Tensor& o) { kernels::cumsum(x, o, c); },
                         [&](const Tensor& d, std::vector<Tensor*>& g) { kernels::cumsum_grad(x, d, g[0], c); },
                         opt);
      c = {};
      c.flatten = true;
      CHECK_GRADCHECK_OP("cumsum", {&x}, [&](Tensor& o) { kernels::cumsum(x, o, c); },
                         [&](const Tensor& d, std::vector<Tensor*>& g) { kernels::cumsum_grad(x, d, g[0], c); },
                         opt);
    }
    for (bool overwrite : {true, false}) {
      Tensor x = random(Shape{4, 3}, dt, rng);
      // Overwrite: unique ids (a repeated row's earlier updates would have no effect at all).
      Tensor ids = overwrite ? i64(Shape{2}, {3, 1}) : i64(Shape{3}, {3, 1, 3});
      Tensor upd = random(Shape{ids.numel(), 3}, dt, rng);
      kernels::ScatterAttrs a;
      a.overwrite = overwrite;
      CHECK_GRADCHECK_OP("scatter", {&x, &upd}, [&](Tensor& o) { kernels::scatter(x, ids, upd, o, a); },
                         [&](const Tensor& d, std::vector<Tensor*>& g) {
                           kernels::scatter_grad(ids, upd, d, g[0], g[1], a);
                         },
                         opt);
    }
    {
      Tensor x = spaced(Shape{3, 5}, dt, 3);
      kernels::TopKV2Attrs a;
      a.k = 2;
      a.axis = 0;
      a.largest = false;
      Tensor ind;
      CHECK_GRADCHECK_OP("top_k_v2", {&x}, [&](Tensor& o) { kernels::top_k_v2(x, nullptr, o, ind, a); },
                         [&](const Tensor& d, std::vector<Tensor*>& g) {
                           kernels::top_k_v2_grad(x, ind, nullptr, d, g[0], a);
                         },
                         opt);
      kernels::TopKV2Attrs v1;  // Fluid 1.x's top_k: only k; the last axis, largest first
      v1.k = 2;
      CHECK_GRADCHECK_OP("top_k", {&x}, [&](Tensor& o) { kernels::top_k(x, nullptr, o, ind, v1); },
                         [&](const Tensor& d, std::vector<Tensor*>& g) {
                           kernels::top_k_grad(x, ind, nullptr, d, g[0], v1);
                         },
                         opt);
    }
    {
      Tensor c = make<bool>(Shape{2, 3}, {true, false, true, false, false, true});
      Tensor x = random(Shape{2, 3}, dt, rng), y = random(Shape{2, 3}, dt, rng);
      CHECK_GRADCHECK_OP("where", {&x, &y}, [&](Tensor& o) { kernels::where(c, x, y, o); },
                         [&](const Tensor& d, std::vector<Tensor*>& g) {
                           kernels::where_grad(c, x, y, d, g[0], g[1]);
                         },
                         opt);
    }
  }
}
