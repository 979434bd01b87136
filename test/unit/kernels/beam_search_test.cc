// test/unit/kernels/beam_search_test.cc - beam_search, beam_search_decode and gather_tree: hand-computed steps, output LoD, cases Paddle cannot run, errors.
#include <catch2/catch.hpp>

#include "kernels/beam_search.h"
#include "kernels/control.h"
#include "runtime/error.h"
#include "test/unit/kernels/kernel_test_util.h"

using namespace fluidc;
using namespace fluidc::test;
using fluidc::rt::TensorArray;

namespace {

std::vector<double> dv(std::initializer_list<double> v) { return v; }

Tensor with_lod(Tensor t, rt::Lod lod) {
  t.mutable_lod() = std::move(lod);
  return t;
}

kernels::BeamSearchAttrs beam(int size, bool accumulated = true) {
  kernels::BeamSearchAttrs a;
  a.beam_size = size;
  a.end_id = 0;
  a.is_accumulated = accumulated;
  return a;
}

}  // namespace

TEST_CASE("beam_search keeps each source's best candidates grouped by prefix", "[beam_search]") {
  // Source 0: prefixes 0 (id 5) and 1 (ended); source 1: prefix 2. Two candidates each.
  const rt::Lod lod{{0, 2, 3}, {0, 1, 2, 3}};
  Tensor pre_ids = with_lod(i64(Shape{3, 1}, {5, 0, 7}), lod), pre = with_lod(f32(Shape{3, 1}, {-1, -0.5f, -2}), lod);
  Tensor ids = with_lod(i64(Shape{3, 2}, {11, 12, 21, 22, 31, 32}), lod);
  Tensor sc = with_lod(f32(Shape{3, 2}, {-0.75f, -3, -9, -9, -2.5f, -2.25f}), lod);
  Tensor sel, sel_sc, parent;
  kernels::beam_search(pre_ids, pre, &ids, sc, sel, sel_sc, &parent, beam(2));
  CHECK(values(sel) == dv({11, 0, 32, 31}));  // the ended prefix offers (end, -0.5) only
  CHECK(values(sel_sc) == dv({-0.75, -0.5, -2.25, -2.5}));
  CHECK(values(parent) == dv({0, 1, 2, 2}));
  CHECK(parent.dtype() == DType::kInt32);
  REQUIRE(sel.lod());
  CHECK(*sel.lod() == rt::Lod{{0, 2, 3}, {0, 1, 2, 4}});
  CHECK(*sel_sc.lod() == *sel.lod());

  // parent_idx absent, and outputs sharing the inputs' variables (written after every read).
  kernels::beam_search(pre_ids, pre, &ids, sc, pre_ids, pre, nullptr, beam(2));
  CHECK(values(pre_ids) == dv({11, 0, 32, 31}));
  CHECK(values(pre) == dv({-0.75, -0.5, -2.25, -2.5}));
}

TEST_CASE("beam_search adds log(p) to pre_scores when scores are probabilities", "[beam_search]") {
  const rt::Lod lod{{0, 1}, {0, 1}};
  Tensor pre_ids = with_lod(i64(Shape{1, 1}, {3}), lod), pre = with_lod(f32(Shape{1, 1}, {-1}), lod);
  Tensor p = with_lod(f32(Shape{1, 3}, {0.25f, 0.5f, 0.25f}), lod), sel, sel_sc, parent;
  kernels::beam_search(pre_ids, pre, nullptr, p, sel, sel_sc, &parent, beam(2, false));
  // Column numbers; columns 0 and 2 tie for a full beam's last place, which goes to the later (Paddle's rule).
  CHECK(values(sel) == dv({1, 2}));
  CHECK(get(sel_sc, 0) == Approx(-1 + std::log(0.5)));
  CHECK(get(sel_sc, 1) == Approx(-1 + std::log(0.25)));
}

TEST_CASE("beam_search refuses inputs it cannot read", "[beam_search]") {
  const rt::Lod lod{{0, 1}, {0, 1}};
  Tensor pre_ids = with_lod(i64(Shape{1, 1}, {3}), lod), pre = with_lod(f32(Shape{1, 1}, {-1}), lod);
  Tensor sc = with_lod(f32(Shape{1, 2}, {-1, -2}), lod), sel, sel_sc;
  CHECK_THROWS_WITH(kernels::beam_search(pre_ids, pre, nullptr, f32(Shape{1, 2}, {-1, -2}), sel, sel_sc, nullptr, beam(2)),
                    Catch::Contains("must carry LoD level 0"));
  CHECK_THROWS_WITH(kernels::beam_search(pre_ids, pre, nullptr, sc, sel, sel_sc, nullptr, beam(0)),
                    Catch::Contains("beam_size must be at least 1"));
  Tensor sc64 = with_lod(f64(Shape{1, 2}, {-1, -2}), lod);
  CHECK_THROWS_WITH(kernels::beam_search(pre_ids, pre, nullptr, sc64, sel, sel_sc, nullptr, beam(2)),
                    Catch::Contains("scores must be float32"));
  CHECK_THROWS_WITH(kernels::beam_search(i64(Shape{2, 1}, {1, 2}), pre, nullptr, sc, sel, sel_sc, nullptr, beam(2)),
                    Catch::Contains("pre_ids must be [1, 1]"));
  Tensor ids = i32(Shape{1, 2}, {1, 2});
  CHECK_THROWS_WITH(kernels::beam_search(pre_ids, pre, &ids, sc, sel, sel_sc, nullptr, beam(2)),
                    Catch::Contains("ids must be int64"));
  Tensor bad = with_lod(f32(Shape{1, 2}, {-1, -2}), {{0, 1}, {0, 5}});
  CHECK_THROWS_AS(kernels::beam_search(pre_ids, pre, nullptr, bad, sel, sel_sc, nullptr, beam(2)), rt::Error);
}

TEST_CASE("write_to_array and read_from_array keep an element's LoD", "[beam_search]") {
  TensorArray arr;
  Tensor x = with_lod(f32(Shape{2, 1}, {1, 2}), {{0, 1, 2}, {0, 1, 2}}), back;
  kernels::write_to_array(x, i64(Shape{1}, {1}), arr);
  REQUIRE(arr[1].lod());
  CHECK(*arr[1].lod() == *x.lod());
  kernels::read_from_array(arr, i64(Shape{1}, {1}), back);
  REQUIRE(back.lod());
  CHECK(*back.lod() == *x.lod());
  kernels::write_to_array(f32(Shape{1}, {3}), i64(Shape{1}, {1}), arr);  // a dense element drops it
  CHECK(arr[1].lod() == nullptr);
}

TEST_CASE("beam_search_decode writes a source's sentences even when fewer than beam_size", "[beam_search]") {
  // Paddle 2.6.2 crashes here (its sort reads an empty sentence); fluidc writes the one sentence there is.
  kernels::BeamSearchDecodeAttrs a;
  a.beam_size = 2;
  TensorArray ids, scores;
  ids.push_back(with_lod(i64(Shape{1}, {4}), {{0, 1}, {0, 1}}));
  scores.push_back(with_lod(f32(Shape{1}, {-1}), {{0, 1}, {0, 1}}));
  ids.push_back(with_lod(i64(Shape{1}, {0}), {{0, 1}, {0, 1}}));
  scores.push_back(with_lod(f32(Shape{1}, {-2}), {{0, 1}, {0, 1}}));
  Tensor out, out_sc;
  kernels::beam_search_decode(ids, scores, out, out_sc, a);
  CHECK(values(out) == dv({4, 0}));
  CHECK(values(out_sc) == dv({-1, -2}));
  CHECK(*out.lod() == rt::Lod{{0, 1}, {0, 2}});

  a.beam_size = 1;  // two candidates in one source: more than beam_size
  ids[1] = with_lod(i64(Shape{2}, {0, 5}), {{0, 1}, {0, 2}});
  scores[1] = with_lod(f32(Shape{2}, {-2, -3}), {{0, 1}, {0, 2}});
  CHECK_THROWS_WITH(kernels::beam_search_decode(ids, scores, out, out_sc, a), Catch::Contains("more than beam_size"));
  a.beam_size = 2;
  scores.pop_back();
  CHECK_THROWS_WITH(kernels::beam_search_decode(ids, scores, out, out_sc, a), Catch::Contains("Scores has 1"));
  scores.push_back(f32(Shape{2}, {-2, -3}));
  ids[1] = i64(Shape{2}, {0, 5});
  CHECK_THROWS_WITH(kernels::beam_search_decode(ids, scores, out, out_sc, a), Catch::Contains("two LoD levels"));
  ids[1] = with_lod(i64(Shape{2}, {0, 5}), {{0, 1, 1}, {0, 2}});
  CHECK_THROWS_WITH(kernels::beam_search_decode(ids, scores, out, out_sc, a), Catch::Contains("step 0 has 1"));
  CHECK_THROWS_WITH(kernels::beam_search_decode(TensorArray{}, TensorArray{}, out, out_sc, a), Catch::Contains("empty"));
}

TEST_CASE("gather_tree follows each final beam's parents back and refuses a parent outside the beam", "[beam_search]") {
  // 3 steps, 1 batch row, 2 beams. Beam 0 ends at id 5, its parent beam 1 (id 4 at step 1), whose parent is
  // beam 0 (id 1); beam 1 ends at id 6, from beam 0 (id 3), from beam 1 (id 2).
  Tensor ids = i64(Shape{3, 1, 2}, {1, 2, 3, 4, 5, 6}), parents = i64(Shape{3, 1, 2}, {0, 0, 1, 0, 1, 0}), out;
  kernels::gather_tree(ids, parents, out);
  CHECK(values(out) == dv({1, 2, 4, 3, 5, 6}));
  Tensor bad = i64(Shape{3, 1, 2}, {0, 0, 2, 0, 1, 0});
  CHECK_THROWS_WITH(kernels::gather_tree(ids, bad, out), Catch::Contains("Parents value 2 (step 1, batch 0, beam 1)"));
  Tensor neg = i64(Shape{3, 1, 2}, {0, 0, 0, 0, -1, 0});
  CHECK_THROWS_WITH(kernels::gather_tree(ids, neg, out), Catch::Contains("Parents value -1"));
  Tensor flat = i64(Shape{6}, {1, 2, 3, 4, 5, 6});
  CHECK_THROWS_WITH(kernels::gather_tree(flat, flat, out), Catch::Contains("Ids must be [steps, batch, beam]"));
}
