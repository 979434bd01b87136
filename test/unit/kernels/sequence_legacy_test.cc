// test/unit/kernels/sequence_legacy_test.cc - the Fluid 1.x sequence ops on ragged LoD batches: hand-computed values, output LoD, errors, gradient checks.
#include <catch2/catch.hpp>

#include "kernels/sequence_legacy.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

std::vector<double> dv(std::initializer_list<double> v) { return v; }

void with_lod(Tensor& t, rt::Lod lod) { t.mutable_lod() = std::move(lod); }

// An fp64 tensor of `s` with random values and LoD `lod`.
Tensor ragged(const Shape& s, rt::Lod lod, uint32_t seed) {
  std::mt19937 rng(seed);
  Tensor t = random(s, DType::kFP64, rng);
  with_lod(t, std::move(lod));
  return t;
}

// `dout` with a LoD: what the emitter's share_lod gives a gradient of a LoD output.
Tensor with_lod_of(const Tensor& dout, const rt::Lod& lod) {
  Tensor d;
  d.copy_from(dout);
  d.mutable_lod() = lod;
  return d;
}

}  // namespace

TEST_CASE("sequence_pad pads each sequence with PadValue and sequence_unpad undoes it", "[sequence_legacy]") {
  Tensor x = f32(Shape{3, 2}, {1, 2, 3, 4, 5, 6}), pv = f32(Shape{1}, {9}), out, len;
  with_lod(x, {{0, 1, 1, 3}});
  kernels::SequencePadAttrs a;
  kernels::sequence_pad(x, pv, out, len, a);
  CHECK(out.shape() == Shape{3, 2, 2});
  CHECK(values(out) == dv({1, 2, 9, 9, 9, 9, 9, 9, 3, 4, 5, 6}));
  CHECK(values(len) == dv({1, 0, 2}));
  CHECK(out.lod() == nullptr);
  a.padded_length = 3;
  Tensor step = f32(Shape{2}, {7, 8});
  kernels::sequence_pad(x, step, out, len, a);
  CHECK(out.shape() == Shape{3, 3, 2});
  CHECK(values(out) == dv({1, 2, 7, 8, 7, 8, 7, 8, 7, 8, 7, 8, 3, 4, 5, 6, 7, 8}));

  Tensor back;
  kernels::sequence_unpad(out, len, back);
  CHECK(values(back) == values(x));
  REQUIRE(back.lod());
  CHECK(*back.lod() == *x.lod());

  a.padded_length = 1;
  CHECK_THROWS_WITH(kernels::sequence_pad(x, pv, out, len, a), Catch::Contains("shorter than the longest"));
  a.padded_length = -1;
  CHECK_THROWS_WITH(kernels::sequence_pad(x, f32(Shape{3}, {1, 2, 3}), out, len, a),
                    Catch::Contains("one value or one step"));
  Tensor two_levels = f32(Shape{3, 2}, {1, 2, 3, 4, 5, 6});
  with_lod(two_levels, {{0, 2, 3}, {0, 1, 1, 3}});
  CHECK_THROWS_WITH(kernels::sequence_pad(two_levels, pv, out, len, a), Catch::Contains("one LoD level"));
  CHECK_THROWS_WITH(kernels::sequence_unpad(out, i64(Shape{3}, {1, 4, 0}), back), Catch::Contains("outside [0, 3]"));
  CHECK_THROWS_WITH(kernels::sequence_unpad(out, i32(Shape{3}, {1, 1, 0}), back), Catch::Contains("must be int64"));
}

TEST_CASE("sequence_slice takes a window of each sequence; sequence_reshape rescales lengths", "[sequence_legacy]") {
  Tensor x = f32(Shape{5, 1}, {0, 1, 2, 3, 4}), out;
  with_lod(x, {{0, 1, 5, 5}});
  kernels::sequence_slice(x, i64(Shape{3, 1}, {0, 1, 0}), i64(Shape{3, 1}, {1, 2, 0}), out);
  CHECK(values(out) == dv({0, 2, 3}));
  CHECK(*out.lod() == rt::Lod{{0, 1, 3, 3}});
  CHECK_THROWS_WITH(kernels::sequence_slice(x, i64(Shape{3, 1}, {0, 3, 0}), i64(Shape{3, 1}, {1, 2, 0}), out),
                    Catch::Contains("run past its 4 rows"));
  CHECK_THROWS_WITH(kernels::sequence_slice(x, i64(Shape{3, 1}, {0, -1, 0}), i64(Shape{3, 1}, {1, 2, 0}), out),
                    Catch::Contains("must not be negative"));

  Tensor y = f32(Shape{4, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), r;
  with_lod(y, {{0, 2, 2, 4}});
  kernels::SequenceReshapeAttrs ra;
  ra.new_dim = 4;
  kernels::sequence_reshape(y, r, ra);
  CHECK(r.shape() == Shape{2, 4});
  CHECK(values(r) == dv({1, 2, 3, 4, 5, 6, 7, 8}));
  CHECK(*r.lod() == rt::Lod{{0, 1, 1, 2}});
  ra.new_dim = 3;
  CHECK_THROWS_WITH(kernels::sequence_reshape(y, r, ra), Catch::Contains("not a multiple of new_dim 3"));
}

TEST_CASE("lod_reset sets target_lod, Y's LoD or Y's values, replacing or appending", "[sequence_legacy]") {
  Tensor x = f32(Shape{3, 1}, {1, 2, 3}), out;
  with_lod(x, {{0, 1, 3}});
  kernels::LodResetAttrs a;
  a.target_lod = {0, 2, 3};
  kernels::lod_reset(x, nullptr, out, a);
  CHECK(values(out) == dv({1, 2, 3}));
  CHECK(*out.lod() == rt::Lod{{0, 2, 3}});
  a.append = true;
  a.target_lod = {0, 1, 3};
  CHECK_THROWS_WITH(kernels::lod_reset(x, nullptr, out, a), Catch::Contains("level 1 has 2 entries"));
  Tensor yv = i32(Shape{4}, {0, 1, 1, 3});
  kernels::lod_reset(x, &yv, out, a);
  CHECK(*out.lod() == rt::Lod{{0, 1, 3}, {0, 1, 1, 3}});
  Tensor ylod = f32(Shape{3}, {0, 0, 0});
  with_lod(ylod, {{0, 3}});
  kernels::lod_reset(x, &ylod, out, a);  // Y's LoD wins; append is ignored, as in Paddle
  CHECK(*out.lod() == rt::Lod{{0, 3}});
  a.target_lod = {0, 2, 1, 3};
  a.append = false;
  CHECK_THROWS_WITH(kernels::lod_reset(x, nullptr, out, a), Catch::Contains("never decrease"));
  a.target_lod = {0, 2};
  CHECK_THROWS_WITH(kernels::lod_reset(x, nullptr, out, a), Catch::Contains("3 rows"));
  kernels::lod_reset(x, nullptr, x, kernels::LodResetAttrs{{0, 3}, false});  // in place
  CHECK(*x.lod() == rt::Lod{{0, 3}});
}

TEST_CASE("sequence_erase drops tokens per sequence; sequence_enumerate windows ids", "[sequence_legacy]") {
  Tensor x = i64(Shape{6, 1}, {2, 1, 5, 2, 3, 5}), out;
  with_lod(x, {{0, 2, 3}, {0, 1, 5, 6}});
  kernels::SequenceEraseAttrs ea;
  ea.tokens = {5, 2};
  kernels::sequence_erase(x, out, ea);
  CHECK(values(out) == dv({1, 3}));
  CHECK(*out.lod() == rt::Lod{{0, 2, 3}, {0, 0, 2, 2}});
  kernels::sequence_erase(x, x, ea);  // in place
  CHECK(values(x) == dv({1, 3}));

  Tensor ids = i32(Shape{4, 1}, {7, 8, 9, 6}), win;
  with_lod(ids, {{0, 3, 3, 4}});
  kernels::SequenceEnumerateAttrs na;
  na.win_size = 2;
  na.pad_value = -1;
  kernels::sequence_enumerate(ids, win, na);
  CHECK(values(win) == dv({7, 8, 8, 9, 9, -1, 6, -1}));
  CHECK(*win.lod() == *ids.lod());
  na.win_size = 1;
  CHECK_THROWS_WITH(kernels::sequence_enumerate(ids, win, na), Catch::Contains("at least 2"));
  CHECK_THROWS_WITH(kernels::sequence_erase(f32(Shape{1, 1}, {1}), out, ea), Catch::Contains("LoD"));
}

TEST_CASE("sequence_scatter adds each sequence's updates into its row", "[sequence_legacy]") {
  Tensor x = f32(Shape{2, 3}, {0, 0, 0, 1, 1, 1}), ids = i64(Shape{3, 1}, {2, 0, 0}), upd = f32(Shape{3, 1}, {5, 6, 7});
  with_lod(ids, {{0, 1, 3}});
  with_lod(upd, {{0, 1, 3}});
  Tensor out;
  kernels::sequence_scatter(x, ids, upd, out);
  CHECK(values(out) == dv({0, 0, 5, 14, 1, 1}));
  Tensor bad = i64(Shape{3, 1}, {3, 0, 0});
  with_lod(bad, {{0, 1, 3}});
  CHECK_THROWS_WITH(kernels::sequence_scatter(x, bad, upd, out), Catch::Contains("out of range [0, 3)"));
  Tensor three = i64(Shape{3, 1}, {0, 0, 0});
  with_lod(three, {{0, 1, 2, 3}});
  CHECK_THROWS_WITH(kernels::sequence_scatter(x, three, upd, out), Catch::Contains("X only 2 rows"));
}

TEST_CASE("sequence_legacy gradients match finite differences on ragged batches", "[sequence_legacy][gradcheck]") {
  const rt::Lod ragged_lod{{0, 1, 6, 6}};
  {
    Tensor x = ragged(Shape{6, 2}, ragged_lod, 1), pv = f64(Shape{1}, {0.5}), len;
    kernels::SequencePadAttrs a;
    a.padded_length = 7;
    CHECK_GRADCHECK_OP("sequence_pad", {&x}, [&](Tensor& out) { kernels::sequence_pad(x, pv, out, len, a); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) { kernels::sequence_pad_grad(x, dout, g[0], a); });
  }
  {
    std::mt19937 rng(2);
    Tensor x = random(Shape{3, 4, 2}, DType::kFP64, rng), len = i64(Shape{3}, {1, 4, 0});
    CHECK_GRADCHECK_OP("sequence_unpad", {&x}, [&](Tensor& out) { kernels::sequence_unpad(x, len, out); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::sequence_unpad_grad(x, with_lod_of(dout, {{0, 1, 5, 5}}), g[0]);
                       });
  }
  {
    Tensor x = ragged(Shape{6, 2}, ragged_lod, 3), off = i64(Shape{3, 1}, {0, 1, 0}), len = i64(Shape{3, 1}, {1, 3, 0});
    CHECK_GRADCHECK_OP("sequence_slice", {&x}, [&](Tensor& out) { kernels::sequence_slice(x, off, len, out); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::sequence_slice_grad(x, off, len, dout, g[0]);
                       });
  }
  {
    Tensor x = ragged(Shape{6, 2}, ragged_lod, 4);
    kernels::SequenceReshapeAttrs a;
    a.new_dim = 1;
    CHECK_GRADCHECK_OP("sequence_reshape", {&x}, [&](Tensor& out) { kernels::sequence_reshape(x, out, a); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::sequence_reshape_grad(x, dout, g[0], a);
                       });
  }
  {
    Tensor x = ragged(Shape{6, 2}, ragged_lod, 5);
    kernels::LodResetAttrs a;
    a.target_lod = {0, 3, 6};
    CHECK_GRADCHECK_OP("lod_reset", {&x}, [&](Tensor& out) { kernels::lod_reset(x, nullptr, out, a); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) { kernels::lod_reset_grad(x, dout, g[0], a); });
  }
  {
    std::mt19937 rng(6);
    Tensor x = random(Shape{3, 4}, DType::kFP64, rng), ids = i64(Shape{5, 1}, {0, 1, 1, 3, 2});
    Tensor upd = ragged(Shape{5, 1}, {{0, 1, 5, 5}}, 7);
    with_lod(ids, {{0, 1, 5, 5}});
    CHECK_GRADCHECK_OP("sequence_scatter", {&x, &upd},
                       [&](Tensor& out) { kernels::sequence_scatter(x, ids, upd, out); },
                       [&](const Tensor& dout, std::vector<Tensor*>& g) {
                         kernels::sequence_scatter_grad(ids, upd, dout, g[0], g[1]);
                       });
  }
}
