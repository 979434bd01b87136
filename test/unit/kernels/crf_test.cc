// test/unit/kernels/crf_test.cc - linear_chain_crf, crf_decoding and viterbi_decode against brute-force enumeration of every tag path, LoD and padded forms, errors, gradient checks.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "kernels/crf.h"
#include "runtime/error.h"
#include "test/unit/kernels/gradcheck.h"

using namespace fluidc;
using namespace fluidc::test;

namespace {

void with_lod(Tensor& t, std::vector<uint64_t> offsets) { t.mutable_lod() = rt::Lod{std::move(offsets)}; }

// Score of tag path y over rows [b, b + n) of x [rows, d] under w [d + 2, d].
double path_score(const Tensor& x, const Tensor& w, int64_t d, int64_t b, const std::vector<int64_t>& y) {
  const int64_t n = static_cast<int64_t>(y.size());
  double s = get(w, y[0]) + get(w, d + y[n - 1]);
  for (int64_t k = 0; k < n; ++k) {
    s += get(x, (b + k) * d + y[k]);
    if (k > 0) s += get(w, (2 + y[k - 1]) * d + y[k]);
  }
  return s;
}

// Calls f(path) for every tag path of length n over d tags.
void each_path(int64_t n, int64_t d, const std::function<void(const std::vector<int64_t>&)>& f) {
  std::vector<int64_t> y(static_cast<size_t>(n), 0);
  while (true) {
    f(y);
    int64_t k = n - 1;
    while (k >= 0 && ++y[static_cast<size_t>(k)] == d) y[static_cast<size_t>(k--)] = 0;
    if (k < 0) return;
  }
}

}  // namespace

TEST_CASE("linear_chain_crf gives each sequence log Z - score(label), as enumerating every path does", "[crf]") {
  // Sequences of lengths 1, 3, 0, 2 over 3 tags.
  const int64_t d = 3;
  std::mt19937 rng(7);
  Tensor x = random(Shape{6, d}, DType::kFP64, rng, -2, 2), w = random(Shape{d + 2, d}, DType::kFP64, rng);
  with_lod(x, {0, 1, 4, 4, 6});
  Tensor label = i64(Shape{6, 1}, {2, 0, 1, 1, 2, 0});
  Tensor alpha, ex, wx, ll;
  kernels::linear_chain_crf(x, w, label, nullptr, alpha, ex, wx, ll);
  REQUIRE(ll.shape() == Shape{4, 1});
  CHECK(ll.lod() == nullptr);
  CHECK(alpha.lod() == nullptr);
  const std::vector<std::pair<int64_t, int64_t>> seqs{{0, 1}, {1, 3}, {4, 0}, {4, 2}};
  for (size_t s = 0; s < seqs.size(); ++s) {
    const int64_t b = seqs[s].first, n = seqs[s].second;
    if (n == 0) {
      CHECK(get(ll, static_cast<int64_t>(s)) == 0);
      continue;
    }
    double z = 0;
    each_path(n, d, [&](const std::vector<int64_t>& y) { z += std::exp(path_score(x, w, d, b, y)); });
    std::vector<int64_t> y;
    for (int64_t k = 0; k < n; ++k) y.push_back(static_cast<int64_t>(get(label, b + k)));
    CHECK(get(ll, static_cast<int64_t>(s)) == Approx(std::log(z) - path_score(x, w, d, b, y)).epsilon(1e-12));
  }
  // Alpha rows are distributions; the exps are what they say.
  for (int64_t r = 0; r < 6; ++r) CHECK(get(alpha, r * d) + get(alpha, r * d + 1) + get(alpha, r * d + 2) == Approx(1));
  CHECK(get(wx, 4) == Approx(std::exp(get(w, 4))));
  CHECK(std::max({get(ex, 3), get(ex, 4), get(ex, 5)}) == 1.0);

  // The padded form (Length) gives the same numbers; rows past each end have zero Alpha.
  Tensor xp, len = i64(Shape{4}, {1, 3, 0, 2});
  xp.resize(Shape{4, 3, d}, DType::kFP64);
  std::vector<int64_t> padded_labels(12, 0);
  for (int64_t i = 0; i < xp.numel(); ++i) set(xp, i, 5.0);  // padding: must not count
  for (size_t s = 0; s < seqs.size(); ++s)
    for (int64_t k = 0; k < seqs[s].second; ++k) {
      const int64_t r = static_cast<int64_t>(s) * 3 + k;
      for (int64_t i = 0; i < d; ++i) set(xp, r * d + i, get(x, (seqs[s].first + k) * d + i));
      padded_labels[static_cast<size_t>(r)] = static_cast<int64_t>(get(label, seqs[s].first + k));
    }
  Tensor lp = i64(Shape{4, 3}, padded_labels);
  Tensor alpha_p, ex_p, wx_p, ll_p;
  kernels::linear_chain_crf(xp, w, lp, &len, alpha_p, ex_p, wx_p, ll_p);
  CHECK(ll_p.shape() == Shape{4, 1});
  for (int64_t s = 0; s < 4; ++s) CHECK(get(ll_p, s) == Approx(get(ll, s)).epsilon(1e-12));
  CHECK(get(alpha_p, (0 * 3 + 1) * d) == 0);  // sequence 0 has one row

  Tensor bad_label = i64(Shape{6, 1}, {2, 0, 3, 1, 2, 0});
  CHECK_THROWS_WITH(kernels::linear_chain_crf(x, w, bad_label, nullptr, alpha, ex, wx, ll),
                    Catch::Contains("Label value 3 (entry 2) is out of range [0, 3)"));
  Tensor bad_w = random(Shape{d + 1, d}, DType::kFP64, rng);
  CHECK_THROWS_WITH(kernels::linear_chain_crf(x, bad_w, label, nullptr, alpha, ex, wx, ll),
                    Catch::Contains("Transition must be [tags + 2, tags] = [5, 3]"));
  Tensor dense = random(Shape{6, d}, DType::kFP64, rng);
  CHECK_THROWS_WITH(kernels::linear_chain_crf(dense, w, label, nullptr, alpha, ex, wx, ll),
                    Catch::Contains("Emission must be a LoD tensor"));
  Tensor long_len = i64(Shape{4}, {1, 4, 0, 2});
  CHECK_THROWS_WITH(kernels::linear_chain_crf(xp, w, lp, &long_len, alpha, ex, wx, ll),
                    Catch::Contains("Length value 4 (entry 1) is out of range [0, 4)"));
}

TEST_CASE("linear_chain_crf_grad matches finite differences, LoD and padded", "[crf][gradcheck]") {
  const int64_t d = 3;
  std::mt19937 rng(11);
  for (bool padded : {false, true}) {
    INFO("padded: " << padded);
    Tensor x = padded ? random(Shape{3, 4, d}, DType::kFP64, rng) : random(Shape{8, d}, DType::kFP64, rng);
    Tensor w = random(Shape{d + 2, d}, DType::kFP64, rng);
    Tensor label = padded ? i64(Shape{3, 4}, {0, 2, 1, 1, 2, 0, 0, 0, 1, 1, 2, 0})
                          : i64(Shape{8, 1}, {0, 2, 1, 1, 2, 2, 1, 0});
    Tensor len = i64(Shape{3}, {4, 0, 3});
    if (!padded) with_lod(x, {0, 1, 1, 6, 8});
    const Tensor* lp = padded ? &len : nullptr;
    Tensor alpha, ex, wx;
    CHECK_GRADCHECK_OP(
        "linear_chain_crf", {&x, &w},
        [&](Tensor& out) { kernels::linear_chain_crf(x, w, label, lp, alpha, ex, wx, out); },
        [&](const Tensor& dout, std::vector<Tensor*>& g) {
          kernels::linear_chain_crf_grad(x, w, label, lp, &alpha, &ex, &wx, dout, g[0], g[1]);
        });
  }
}

TEST_CASE("viterbi_decode finds the best path (as enumeration does), with and without the start/stop tags", "[crf]") {
  const int64_t n = 4, steps = 3;
  std::mt19937 rng(9);
  Tensor x = random(Shape{3, steps, n}, DType::kFP64, rng, -2, 2), w = random(Shape{n, n}, DType::kFP64, rng);
  Tensor len = i64(Shape{3}, {3, 1, 2});
  for (const bool tags : {false, true}) {
    Tensor scores, path;
    kernels::viterbi_decode(x, w, len, scores, path, kernels::ViterbiDecodeAttrs{tags});
    REQUIRE(path.shape() == Shape{3, 3});
    for (int64_t b = 0; b < 3; ++b) {
      const int64_t l = get(len, b);
      double best = -1e30;
      std::vector<int64_t> arg;
      each_path(l, n, [&](const std::vector<int64_t>& y) {
        double s = tags ? get(w, (n - 1) * n + y[0]) + get(w, (n - 2) * n + y[l - 1]) : 0;
        for (int64_t k = 0; k < l; ++k) {
          s += get(x, (b * steps + k) * n + y[k]);
          if (k > 0) s += get(w, y[k - 1] * n + y[k]);
        }
        if (s > best) best = s, arg = y;
      });
      CHECK(get(scores, b) == Approx(best).epsilon(1e-12));
      for (int64_t k = 0; k < steps; ++k) CHECK(get(path, b * steps + k) == (k < l ? arg[static_cast<size_t>(k)] : 0));
    }
  }
  // Only as wide as the longest sequence.
  Tensor short_len = i64(Shape{3}, {1, 2, 1}), scores, path;
  kernels::viterbi_decode(x, w, short_len, scores, path, {});
  CHECK(path.shape() == Shape{3, 2});
  // A length past the padded steps, or negative, is refused (it would read beyond Input).
  Tensor long_len = i64(Shape{3}, {4, 1, 1}), neg_len = i64(Shape{3}, {1, -1, 1});
  CHECK_THROWS_WITH(kernels::viterbi_decode(x, w, long_len, scores, path, {}),
                    Catch::Contains("Length value 4 (entry 0) is out of range [0, 4)"));
  CHECK_THROWS_WITH(kernels::viterbi_decode(x, w, neg_len, scores, path, {}),
                    Catch::Contains("Length value -1 (entry 1)"));
  Tensor bad_w = random(Shape{n + 2, n}, DType::kFP64, rng);
  CHECK_THROWS_WITH(kernels::viterbi_decode(x, bad_w, len, scores, path, {}),
                    Catch::Contains("Transition must be [tags, tags]"));
}

TEST_CASE("crf_decoding finds the best path (as enumeration does), marks labels, keeps the LoD", "[crf]") {
  const int64_t d = 3;
  std::mt19937 rng(5);
  Tensor x = random(Shape{7, d}, DType::kFP32, rng, -2, 2), w = random(Shape{d + 2, d}, DType::kFP32, rng);
  with_lod(x, {0, 4, 4, 5, 7});
  Tensor path;
  kernels::crf_decoding(x, w, nullptr, nullptr, path);
  REQUIRE(path.shape() == Shape{7, 1});
  REQUIRE(path.lod() != nullptr);
  CHECK(*path.lod() == *x.lod());
  const std::vector<std::pair<int64_t, int64_t>> seqs{{0, 4}, {4, 0}, {4, 1}, {5, 2}};
  for (const auto& seq : seqs) {
    const int64_t b = seq.first, n = seq.second;
    if (n == 0) continue;
    double best = -1e30;
    std::vector<int64_t> arg;
    each_path(n, d, [&](const std::vector<int64_t>& y) {
      const double s = path_score(x, w, d, b, y);
      if (s > best) best = s, arg = y;
    });
    for (int64_t k = 0; k < n; ++k) CHECK(get(path, b + k) == arg[static_cast<size_t>(k)]);
  }
  // With Label: 1 where the decoded tag is the label.
  Tensor label = i64(Shape{7, 1}, {0, 0, 0, 0, 0, 0, 0}), hits;
  kernels::crf_decoding(x, w, &label, nullptr, hits);
  for (int64_t r = 0; r < 7; ++r) CHECK(get(hits, r) == (get(path, r) == 0 ? 1 : 0));
  // A tie goes to the lowest tag: all-zero scores decode to tag 0 everywhere.
  Tensor zx = f32(Shape{2, 2}, {0, 0, 0, 0}), zw = f32(Shape{4, 2}, {0, 0, 0, 0, 0, 0, 0, 0}), zp;
  with_lod(zx, {0, 2});
  kernels::crf_decoding(zx, zw, nullptr, nullptr, zp);
  CHECK(values(zp) == std::vector<double>{0, 0});
  // Padded: [B, S], zeros past each end, no LoD.
  Tensor xp = random(Shape{2, 3, d}, DType::kFP32, rng), len = i64(Shape{2}, {1, 3}), pp;
  kernels::crf_decoding(xp, w, nullptr, &len, pp);
  CHECK(pp.shape() == Shape{2, 3});
  CHECK(pp.lod() == nullptr);
  CHECK(get(pp, 1) == 0);
  CHECK(get(pp, 2) == 0);
}

TEST_CASE("chunk_eval counts IOB chunks as Paddle does, leaving out excluded types", "[crf]") {
  // 2 chunk types, IOB: 0 B-0, 1 I-0, 2 B-1, 3 I-1, 4 outside. Sequences of 5 and 3 rows.
  Tensor label = i64(Shape{8, 1}, {0, 1, 4, 2, 3, 2, 4, 0}), inference = i64(Shape{8, 1}, {0, 1, 4, 2, 4, 2, 4, 1});
  with_lod(inference, {0, 5, 8});
  Tensor p, r, f, ni, nl, nc;
  kernels::ChunkEvalAttrs a;
  a.num_chunk_types = 2;
  kernels::chunk_eval(inference, label, nullptr, p, r, f, ni, nl, nc, a);
  // Label chunks (0-1, 0) (3-4, 1) | (0, 1) (2, 0); inference (0-1, 0) (3, 1) | (0, 1) (2, 0): I-0 after O begins one.
  CHECK(values(ni) == std::vector<double>{4});
  CHECK(values(nl) == std::vector<double>{4});
  CHECK(values(nc) == std::vector<double>{3});
  CHECK(get(p, 0) == Approx(0.75));
  CHECK(get(f, 0) == Approx(0.75));
  a.excluded_chunk_types = {1};
  kernels::chunk_eval(inference, label, nullptr, p, r, f, ni, nl, nc, a);
  CHECK(values(nc) == std::vector<double>{2});
  CHECK(values(nl) == std::vector<double>{2});
  a.chunk_scheme = "BIO";
  CHECK_THROWS_WITH(kernels::chunk_eval(inference, label, nullptr, p, r, f, ni, nl, nc, a),
                    Catch::Contains("chunk_scheme must be IOB, IOE, IOBES or plain, got 'BIO'"));
  a.chunk_scheme = "IOB";
  Tensor big = i64(Shape{8, 1}, {0, 1, 5, 2, 3, 2, 4, 0});
  CHECK_THROWS_WITH(kernels::chunk_eval(inference, big, nullptr, p, r, f, ni, nl, nc, a),
                    Catch::Contains("Label value 5 (entry 2) is out of range [0, 5)"));
}
