// test/unit/runtime/lod_test.cc - LoD offsets: the checks, .npy offsets in and out, whole-sequence batching.
#include <catch2/catch.hpp>

#include "runtime/error.h"
#include "runtime/lod.h"
#include "runtime/npy.h"
#include "test_util.h"

using namespace fluidc::rt;
using namespace fluidc::rt::test;
using Catch::Matchers::Contains;

namespace {

Tensor rows(int64_t n) {
  Tensor t;
  t.resize(Shape{n, 1}, DType::kInt64);
  for (int64_t i = 0; i < n; ++i) t.data<int64_t>()[i] = i;
  return t;
}

std::string error_of(const Lod& lod, int64_t n) {
  try {
    check_lod(lod, n, "'x'");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void save_offsets(const std::string& path, std::vector<int64_t> v) {
  Tensor t;
  t.resize(Shape{static_cast<int64_t>(v.size())}, DType::kInt64);
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  write_npy(path, t);
}

}  // namespace

TEST_CASE("check_lod accepts monotone offsets from 0 to the row count, empty sequences included", "[lod]") {
  CHECK(error_of({{0, 1, 6, 6}}, 6).empty());
  CHECK(error_of({{0, 2, 3}, {0, 1, 1, 6}}, 6).empty());
  CHECK_THAT(error_of({{1, 6}}, 6), Contains("'x': LoD level 0 starts at 1, not 0"));
  CHECK_THAT(error_of({{0, 4, 3, 6}}, 6), Contains("decreases at index 2 (4 then 3)"));
  CHECK_THAT(error_of({{0, 5}}, 6), Contains("ends at 5, but the tensor has 6 rows"));
  CHECK_THAT(error_of({{0, 1, 3}, {0, 6}}, 6), Contains("LoD level 0 ends at 3, but level 1 has 1 entries"));
  CHECK_THAT(error_of({{}}, 0), Contains("is empty"));
}

TEST_CASE("LoD offsets .npy files in and out", "[lod]") {
  TempDir dir;
  Tensor x = rows(6);
  save_offsets(dir.file("l0.npy"), {0, 1, 6, 6});
  read_lod_npy({dir.file("l0.npy")}, x, "'x'");
  REQUIRE(x.lod());
  CHECK(*x.lod() == Lod{{0, 1, 6, 6}});
  write_lod_npy(dir.file("out"), x);
  Tensor back;
  read_npy(dir.file("out.lod0.npy"), back);
  CHECK(back.dtype() == DType::kInt64);
  CHECK(back.shape() == Shape{4});
  CHECK(back.data<int64_t>()[2] == 6);
  save_offsets(dir.file("neg.npy"), {0, -1, 6});
  CHECK_THROWS_WITH(read_lod_npy({dir.file("neg.npy")}, x, "'x'"), Contains("negative LoD offset -1 at index 1"));
  save_offsets(dir.file("short.npy"), {0, 3});
  CHECK_THROWS_WITH(read_lod_npy({dir.file("short.npy")}, x, "'x'"), Contains("ends at 3, but the tensor has 6 rows"));
  Tensor dense = rows(2);
  write_lod_npy(dir.file("dense"), dense);  // nothing for a dense tensor
  CHECK_FALSE(std::filesystem::exists(dir.file("dense.lod0.npy")));
}

TEST_CASE("gather_sequences batches whole sequences and renumbers every level", "[lod]") {
  Tensor x = rows(6);
  x.mutable_lod() = Lod{{0, 1, 6, 6}};
  Tensor b;
  gather_sequences(x, {2, 1, 0}, 0, 2, b);  // the empty sequence, then the 5-row one
  CHECK(b.shape() == Shape{5, 1});
  CHECK(*b.lod() == Lod{{0, 0, 5}});
  CHECK(b.data<int64_t>()[0] == 1);
  gather_sequences(x, {2, 1, 0}, 2, 1, b);
  CHECK(b.shape() == Shape{1, 1});
  CHECK(*b.lod() == Lod{{0, 1}});
  CHECK(b.data<int64_t>()[0] == 0);

  Tensor y = rows(6);  // two levels: 2 paragraphs of sentences [1, 0] and [5]
  y.mutable_lod() = Lod{{0, 2, 3}, {0, 1, 1, 6}};
  CHECK(top_level_count(y) == 2);
  gather_sequences(y, {1, 0}, 0, 2, b);
  CHECK(*b.lod() == Lod{{0, 1, 3}, {0, 5, 6, 6}});
  CHECK(b.data<int64_t>()[0] == 1);
  CHECK(b.data<int64_t>()[5] == 0);
}

TEST_CASE("a Tensor's LoD moves with it and share_lod copies or clears it", "[lod]") {
  Tensor a = rows(2), b = rows(2);
  a.mutable_lod() = Lod{{0, 2}};
  b.share_lod(a);
  CHECK(*b.lod() == Lod{{0, 2}});
  Tensor dense;
  b.share_lod(dense);
  CHECK(b.lod() == nullptr);
  Tensor c(std::move(a));
  CHECK(*c.lod() == Lod{{0, 2}});
  CHECK(a.lod() == nullptr);
}
