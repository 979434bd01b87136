// test/unit/kernels/sequence_test.cc - the sequence family on ragged LoD batches: hand-computed values, LoD rules, errors, gradient checks.
#include <catch2/catch.hpp>

#include "kernels/sequence.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

std::vector<double> dv(std::initializer_list<double> v) { return v; }

// Sets one LoD level on `t` from offsets.
void with_lod(Tensor& t, std::vector<uint64_t> offsets) { t.mutable_lod() = rt::Lod{std::move(offsets)}; }

// fp64 values 0.1 apart, shuffled: no ties a finite-difference step could reorder (MAX pooling).
Tensor spaced(const Shape& s, uint32_t seed) {
  Tensor t;
  t.resize(s, DType::kFP64);
  std::vector<double> v(static_cast<size_t>(s.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.1 * static_cast<double>(i) - 0.7;
  std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  for (int64_t i = 0; i < t.numel(); ++i) set(t, i, v[static_cast<size_t>(i)]);
  return t;
}

}  // namespace

TEST_CASE("sequence_pool pools each sequence, pads empty ones and records MaxIndex", "[sequence]") {
  // Sequences of lengths 1, 3, 0 over rows of width 2.
  Tensor x = f32(Shape{4, 2}, {1, -1, 2, 5, 4, 3, 0, 7}), out, idx;
  with_lod(x, {0, 1, 4, 4});
  kernels::SequencePoolAttrs a;
  a.pad_value = 9;
  a.pooltype = "SUM";
  kernels::sequence_pool(x, out, nullptr, a);
  CHECK(out.shape() == Shape{3, 2});
  CHECK(values(out) == dv({1, -1, 6, 15, 9, 9}));
  CHECK(out.lod() == nullptr);  // one level: pooled away
  a.pooltype = "AVERAGE";
  kernels::sequence_pool(x, out, nullptr, a);
  CHECK(values(out) == dv({1, -1, 2, 5, 9, 9}));
  a.pooltype = "MAX";
  kernels::sequence_pool(x, out, &idx, a);
  CHECK(values(out) == dv({1, -1, 4, 7, 9, 9}));
  CHECK(values(idx) == dv({0, 0, 2, 3, -1, -1}));
  a.pooltype = "LAST";
  kernels::sequence_pool(x, out, nullptr, a);
  CHECK(values(out) == dv({1, -1, 0, 7, 9, 9}));
  a.pooltype = "FIRST";
  kernels::sequence_pool(x, out, nullptr, a);
  CHECK(values(out) == dv({1, -1, 2, 5, 9, 9}));
  a.pooltype = "MEDIAN";
  CHECK_THROWS_WITH(kernels::sequence_pool(x, out, nullptr, a), Catch::Contains("unknown pooltype 'MEDIAN'"));
}

TEST_CASE("sequence_pool keeps the outer LoD levels and needs a LoD input", "[sequence]") {
  Tensor x = f32(Shape{3, 1}, {1, 2, 3}), out;
  x.mutable_lod() = rt::Lod{{0, 2, 3}, {0, 1, 1, 3}};
  kernels::SequencePoolAttrs a;
  a.pooltype = "SUM";
  kernels::sequence_pool(x, out, nullptr, a);
  CHECK(values(out) == dv({1, 0, 5}));
  REQUIRE(out.lod());
  CHECK(*out.lod() == rt::Lod{{0, 2, 3}});
  Tensor dense = f32(Shape{2, 1}, {1, 2});
  CHECK_THROWS_WITH(kernels::sequence_pool(dense, out, nullptr, a), Catch::Contains("must be a LoD tensor"));
}

TEST_CASE("sequence_softmax, reverse, expand_as and concat move rows within sequences", "[sequence]") {
  Tensor x = f64(Shape{4, 1}, {0, 0, std::log(3.0), 5}), out;
  with_lod(x, {0, 3, 3, 4});
  kernels::sequence_softmax(x, out);
  CHECK(values(out)[0] == Approx(0.2));
  CHECK(values(out)[2] == Approx(0.6));
  CHECK(values(out)[3] == Approx(1.0));
  CHECK(*out.lod() == *x.lod());

  Tensor r = f32(Shape{4, 1}, {1, 2, 3, 4}), ry;
  with_lod(r, {0, 3, 3, 4});
  kernels::sequence_reverse(r, ry);
  CHECK(values(ry) == dv({3, 2, 1, 4}));

  Tensor e = f32(Shape{3, 1}, {7, 8, 9}), eo;
  kernels::sequence_expand_as(e, r, eo);
  CHECK(values(eo) == dv({7, 7, 7, 9}));
  CHECK(*eo.lod() == *r.lod());

  Tensor b = f32(Shape{2, 1}, {5, 6}), co;
  with_lod(b, {0, 0, 1, 2});
  const Tensor* xs[] = {&r, &b};
  kernels::sequence_concat(xs, 2, co);
  CHECK(values(co) == dv({1, 2, 3, 5, 4, 6}));
  CHECK(*co.lod() == rt::Lod{{0, 3, 4, 6}});
  Tensor c = f32(Shape{1, 1}, {1});
  with_lod(c, {0, 1});
  const Tensor* bad[] = {&r, &c};
  CHECK_THROWS_WITH(kernels::sequence_concat(bad, 2, co), Catch::Contains("sequences"));
}

TEST_CASE("sequence_expand repeats rows or whole sequences by Y's LoD at ref_level", "[sequence]") {
  Tensor y = f32(Shape{5, 1}, {0, 0, 0, 0, 0}), out;
  y.mutable_lod() = rt::Lod{{0, 1, 3}, {0, 2, 2, 5}};
  Tensor x = f32(Shape{3, 1}, {1, 2, 3});
  kernels::sequence_expand(x, y, out, kernels::SequenceExpandAttrs{});  // last level: repeats 2, 0, 3
  CHECK(values(out) == dv({1, 1, 3, 3, 3}));
  CHECK(out.lod() == nullptr);
  Tensor xs = f32(Shape{4, 1}, {1, 2, 3, 4});
  with_lod(xs, {0, 2, 3, 4});
  kernels::sequence_expand(xs, y, out, kernels::SequenceExpandAttrs{});
  CHECK(values(out) == dv({1, 2, 1, 2, 4, 4, 4}));
  CHECK(*out.lod() == rt::Lod{{0, 2, 4, 5, 6, 7}});
  kernels::SequenceExpandAttrs level0;
  level0.ref_level = 0;  // repeats 1, 2 of X's 2 rows
  Tensor x2 = f32(Shape{2, 1}, {5, 6});
  kernels::sequence_expand(x2, y, out, level0);
  CHECK(values(out) == dv({5, 6, 6}));
  level0.ref_level = 2;
  CHECK_THROWS_WITH(kernels::sequence_expand(x2, y, out, level0), Catch::Contains("outside Y's 2 LoD levels"));
  Tensor x4 = f32(Shape{4, 1}, {1, 2, 3, 4});
  CHECK_THROWS_WITH(kernels::sequence_expand(x4, y, out, kernels::SequenceExpandAttrs{}),
                    Catch::Contains("X has 4 rows but Y's level 1 has 3 sequences"));
}

TEST_CASE("sequence_conv windows stay inside their sequence", "[sequence]") {
  // Width 1, window of 3 centred on the row (start -1), filter = [1, 10, 100]: Out = prev + 10*row + 100*next.
  Tensor x = f32(Shape{4, 1}, {1, 2, 3, 4}), f = f32(Shape{3, 1}, {1, 10, 100}), out;
  with_lod(x, {0, 3, 3, 4});
  kernels::SequenceConvAttrs a;
  a.contextLength = 3;
  a.contextStart = -1;
  kernels::sequence_conv(x, nullptr, f, out, a);
  CHECK(values(out) == dv({210, 321, 32, 40}));
  Tensor bad = f32(Shape{2, 1}, {1, 1});
  CHECK_THROWS_WITH(kernels::sequence_conv(x, nullptr, bad, out, a), Catch::Contains("contextLength"));
}

TEST_CASE("sequence_mask and lookup_table", "[sequence]") {
  Tensor n = i64(Shape{3}, {1, 3, 0}), y;
  kernels::SequenceMaskAttrs m;
  m.out_dtype = 5;
  kernels::sequence_mask(n, nullptr, y, m);
  CHECK(y.shape() == Shape{3, 3});
  CHECK(values(y) == dv({1, 0, 0, 1, 1, 1, 0, 0, 0}));
  m.maxlen = 2;
  kernels::sequence_mask(n, nullptr, y, m);
  CHECK(values(y) == dv({1, 0, 1, 1, 0, 0}));

  Tensor ids = i64(Shape{3, 1}, {2, 0, 2}), w = f32(Shape{3, 2}, {1, 2, 3, 4, 5, 6}), out;
  kernels::LookupTableAttrs la;
  la.padding_idx = 0;
  kernels::lookup_table(ids, w, out, la);
  CHECK(out.shape() == Shape{3, 2});
  CHECK(values(out) == dv({5, 6, 0, 0, 5, 6}));
  Tensor far = i64(Shape{1, 1}, {3});
  CHECK_THROWS_WITH(kernels::lookup_table(far, w, out, la), Catch::Contains("outside W's 3 rows"));
  Tensor flat = i64(Shape{3}, {0, 1, 2});
  CHECK_THROWS_WITH(kernels::lookup_table(flat, w, out, la), Catch::Contains("end in a dim of 1"));
}

TEST_CASE("sequence ops' gradients match finite differences on ragged batches", "[sequence][gradcheck]") {
  for (const char* type : {"SUM", "AVERAGE", "SQRT", "MAX", "LAST", "FIRST"}) {
    Tensor x = spaced(Shape{6, 2}, 3);
    with_lod(x, {0, 1, 6, 6});
    kernels::SequencePoolAttrs a;
    a.pooltype = type;
    INFO(type);
    CHECK_GRADCHECK_OP("sequence_pool", {&x}, [&](Tensor& out) { kernels::sequence_pool(x, out, nullptr, a); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         Tensor out, idx;
                         kernels::sequence_pool(x, out, &idx, a);
                         kernels::sequence_pool_grad(x, &idx, dout, g[0], a);
                       });
  }
  {
    Tensor x = spaced(Shape{6, 1}, 4);
    with_lod(x, {0, 1, 6, 6});
    CHECK_GRADCHECK_OP("sequence_softmax", {&x}, [&](Tensor& out) { kernels::sequence_softmax(x, out); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         Tensor out;
                         kernels::sequence_softmax(x, out);
                         kernels::sequence_softmax_grad(out, dout, x, g[0]);
                       });
  }
  {
    Tensor x = spaced(Shape{6, 2}, 5);
    with_lod(x, {0, 1, 6, 6});
    CHECK_GRADCHECK_OP("sequence_reverse", {&x}, [&](Tensor& out) { kernels::sequence_reverse(x, out); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         Tensor d;
                         d.copy_from(dout);
                         d.share_lod(x);  // the emitter's share_lod: Y@GRAD carries Y's (X's) LoD
                         kernels::sequence_reverse(d, *g[0]);
                       });
  }
  {
    Tensor x = spaced(Shape{3, 2}, 6), y = spaced(Shape{6, 1}, 7);
    with_lod(y, {0, 1, 6, 6});
    CHECK_GRADCHECK_OP("sequence_expand_as", {&x}, [&](Tensor& out) { kernels::sequence_expand_as(x, y, out); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::sequence_expand_as_grad(x, y, dout, g[0]);
                       });
  }
  for (bool x_lod : {false, true}) {
    Tensor x = spaced(Shape{3, 2}, 13), y = spaced(Shape{5, 1}, 14);
    with_lod(y, {0, 2, 2, 5});
    if (x_lod) with_lod(x, {0, 2, 2, 3});  // sequences of 2, 0 and 1 rows
    INFO("X with LoD: " << x_lod);
    CHECK_GRADCHECK_OP("sequence_expand", {&x},
                       [&](Tensor& out) { kernels::sequence_expand(x, y, out, kernels::SequenceExpandAttrs{}); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::sequence_expand_grad(x, y, dout, g[0], kernels::SequenceExpandAttrs{});
                       });
  }
  {
    Tensor a = spaced(Shape{6, 2}, 8), b = spaced(Shape{3, 2}, 9);
    with_lod(a, {0, 1, 6, 6});
    with_lod(b, {0, 2, 2, 3});
    const Tensor* xs[] = {&a, &b};
    CHECK_GRADCHECK_OP("sequence_concat", {&a, &b}, [&](Tensor& out) { kernels::sequence_concat(xs, 2, out); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         Tensor* gs[] = {g[0], g[1]};
                         kernels::sequence_concat_grad(xs, 2, dout, gs, 2);
                       });
  }
  {
    Tensor x = spaced(Shape{6, 2}, 10), f = spaced(Shape{6, 3}, 11);
    with_lod(x, {0, 1, 6, 6});
    kernels::SequenceConvAttrs a;
    a.contextLength = 3;
    a.contextStart = -1;
    CHECK_GRADCHECK_OP("sequence_conv", {&x, &f}, [&](Tensor& out) { kernels::sequence_conv(x, nullptr, f, out, a); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::sequence_conv_grad(x, nullptr, f, dout, g[0], nullptr, g[1], a);
                       });
  }
  {
    Tensor ids = i64(Shape{4, 1}, {2, 0, 2, 1}), w = spaced(Shape{3, 2}, 12);
    kernels::LookupTableAttrs la;
    la.padding_idx = 1;
    CHECK_GRADCHECK_OP("lookup_table", {&w}, [&](Tensor& out) { kernels::lookup_table(ids, w, out, la); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::lookup_table_grad(ids, w, dout, g[0], la);
                       });
  }
}

TEST_CASE("split_lod_tensor and merge_lod_tensor split a batch by a row mask and put it back", "[sequence]") {
  Tensor x = f32(Shape{4, 1}, {1, 2, 3, 4}), mask, t, f, out;
  mask.resize(Shape{4, 1}, DType::kBool);
  const bool m[] = {true, false, false, true};
  std::copy(m, m + 4, mask.data<bool>());
  kernels::split_lod_tensor(x, mask, t, f, kernels::LodSplitAttrs{});
  CHECK(values(t) == dv({1, 4}));
  CHECK(values(f) == dv({2, 3}));
  kernels::merge_lod_tensor(x, mask, t, f, out, kernels::LodSplitAttrs{});
  CHECK(values(out) == dv({1, 2, 3, 4}));
  // A branch no row takes is never read: its block did not run and it holds no value.
  std::fill(mask.data<bool>(), mask.data<bool>() + 4, false);
  Tensor never;
  kernels::merge_lod_tensor(x, mask, never, x, out, kernels::LodSplitAttrs{});
  CHECK(values(out) == dv({1, 2, 3, 4}));
  mask.data<bool>()[0] = true;
  CHECK_THROWS_WITH(kernels::merge_lod_tensor(x, mask, never, f, out, kernels::LodSplitAttrs{}),
                    Catch::Contains("InTrue must hold the 1 rows Mask gives it, got no value"));
  Tensor short_mask;
  short_mask.resize(Shape{3, 1}, DType::kBool);
  CHECK_THROWS_WITH(kernels::split_lod_tensor(x, short_mask, t, f, kernels::LodSplitAttrs{}),
                    Catch::Contains("one entry per row"));
  with_lod(x, {0, 4});
  CHECK_THROWS_WITH(kernels::split_lod_tensor(x, mask, t, f, kernels::LodSplitAttrs{}),
                    Catch::Contains("not supported by fluidc yet"));
}

TEST_CASE("lstm runs each sequence from its own start, both ways, and its gradient matches finite differences",
          "[sequence][gradcheck]") {
  // D = 1, no peepholes, identity activations: h = o * c, c = cand * i + c_prev * f with all gates = their input.
  Tensor x = f64(Shape{3, 4}, {2, 1, 0, 1, 3, 1, 1, 1, 5, 1, 0, 2}), w = f64(Shape{1, 4}, {0, 0, 0, 0}),
         b = f64(Shape{1, 4}, {0, 0, 0, 0}), h, c;
  with_lod(x, {0, 2, 2, 3});
  kernels::LstmAttrs plain;
  plain.use_peepholes = false;
  plain.gate_activation = plain.cell_activation = plain.candidate_activation = "identity";
  kernels::lstm(x, nullptr, nullptr, w, b, h, c, nullptr, nullptr, plain);
  CHECK(values(c) == dv({2, 5, 5}));  // row 1 carries row 0's cell (forget gate 1); row 2 starts afresh
  CHECK(values(h) == dv({2, 5, 10}));
  CHECK(*h.lod() == *x.lod());
  plain.is_reverse = true;
  kernels::lstm(x, nullptr, nullptr, w, b, h, c, nullptr, nullptr, plain);
  CHECK(values(c) == dv({2, 3, 5}));  // row 1 runs first now; row 0's forget gate (0) drops its cell
  CHECK(values(h) == dv({2, 3, 10}));
  plain.gate_activation = "softsign";
  CHECK_THROWS_WITH(kernels::lstm(x, nullptr, nullptr, w, b, h, c, nullptr, nullptr, plain),
                    Catch::Contains("unknown activation 'softsign'"));

  for (bool reverse : {false, true}) {
    Tensor in = spaced(Shape{5, 8}, 20), wt = spaced(Shape{2, 8}, 21), bias = spaced(Shape{1, 14}, 22),
           h0 = spaced(Shape{3, 2}, 23), c0 = spaced(Shape{3, 2}, 24);
    with_lod(in, {0, 2, 2, 5});
    kernels::LstmAttrs a;
    a.is_reverse = reverse;
    INFO("reverse: " << reverse);
    CHECK_GRADCHECK_OP(
        "lstm", {&in, &wt, &bias, &h0, &c0},
        [&](Tensor& out) {
          Tensor cell;
          kernels::lstm(in, &h0, &c0, wt, bias, out, cell, nullptr, nullptr, a);
        },
        [&](const Tensor& dout, std::vector<Tensor*>& g) {
          kernels::lstm_grad(in, &h0, &c0, wt, bias, nullptr, nullptr, nullptr, nullptr, dout, g[0], g[3], g[4], g[1],
                             g[2], a);
        });
  }
}

TEST_CASE("gru runs each sequence from its own start, both ways, in both modes, and its gradient matches finite "
          "differences",
          "[sequence][gradcheck]") {
  // D = 1, zero weights, identity activations: u and c are the row's Input, so with
  // origin_mode false h = (1 - u) * h_prev + u * c.
  Tensor x = f64(Shape{3, 3}, {0.5, 9, 2, 0.5, 9, 4, 1, 9, 3}), w = f64(Shape{1, 3}, {0, 0, 0}), h;
  with_lod(x, {0, 2, 2, 3});
  kernels::GruAttrs plain;
  plain.activation = plain.gate_activation = "identity";
  kernels::gru(x, nullptr, w, nullptr, h, nullptr, nullptr, nullptr, plain);
  CHECK(values(h) == dv({1, 2.5, 3}));  // row 1 mixes row 0's h (1) with its candidate (4); row 2 starts afresh
  CHECK(*h.lod() == *x.lod());
  plain.is_reverse = true;
  kernels::gru(x, nullptr, w, nullptr, h, nullptr, nullptr, nullptr, plain);
  CHECK(values(h) == dv({2, 2, 3}));  // row 1 runs first (h = 0.5 * 4) and row 0 mixes it with 2
  plain.origin_mode = true;  // h = u * h_prev + (1 - u) * c, from H0 (one row per sequence, the empty one's unused)
  Tensor h0 = f64(Shape{3, 1}, {10, 0, 20});
  kernels::gru(x, &h0, w, nullptr, h, nullptr, nullptr, nullptr, plain);
  CHECK(values(h) == dv({4.5, 7, 20}));  // row 1: 0.5*10 + 0.5*4; row 0: 0.5*7 + 0.5*2; row 2 (u = 1): H0's 20
  plain.activation = "softsign";
  CHECK_THROWS_WITH(kernels::gru(x, nullptr, w, nullptr, h, nullptr, nullptr, nullptr, plain),
                    Catch::Contains("unknown activation 'softsign'"));
  Tensor bad_w = f64(Shape{1, 4}, {0, 0, 0, 0});
  CHECK_THROWS_WITH(kernels::gru(x, nullptr, bad_w, nullptr, h, nullptr, nullptr, nullptr, kernels::GruAttrs{}),
                    Catch::Contains("Weight must be [D, 3D]"));

  for (bool reverse : {false, true})
    for (bool origin : {false, true}) {
      Tensor in = spaced(Shape{5, 6}, 30), wt = spaced(Shape{2, 6}, 31), bias = spaced(Shape{1, 6}, 32),
             init = spaced(Shape{3, 2}, 33);
      with_lod(in, {0, 2, 2, 5});
      kernels::GruAttrs a;
      a.is_reverse = reverse;
      a.origin_mode = origin;
      INFO("reverse: " << reverse << " origin_mode: " << origin);
      CHECK_GRADCHECK_OP(
          "gru", {&in, &wt, &bias, &init},
          [&](Tensor& out) { kernels::gru(in, &init, wt, &bias, out, nullptr, nullptr, nullptr, a); },
          [&](const Tensor& dout, std::vector<Tensor*>& g) {
            kernels::gru_grad(in, &init, wt, &bias, nullptr, nullptr, nullptr, nullptr, dout, g[0], g[3], g[1], g[2],
                              a);
          });
    }
}
