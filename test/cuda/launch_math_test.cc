// test/cuda/launch_math_test.cc - the CUDA kernels' host-side arithmetic, on the CPU: launch geometry, broadcast strides, reduce walks.
#include <catch2/catch.hpp>

#include <string>

#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/op_list.h"

namespace dev = fluidc::kernels::cuda::dev;
namespace util = fluidc::kernels::cuda::util;
using fluidc::rt::Shape;

TEST_CASE("grid_for: 256 threads, enough blocks, at most 65536 (grid-stride beyond)", "[cuda]") {
  CHECK(dev::grid_for(0).blocks == 1);
  CHECK(dev::grid_for(1).blocks == 1);
  CHECK(dev::grid_for(256).blocks == 1);
  CHECK(dev::grid_for(257).blocks == 2);
  CHECK(dev::grid_for(int64_t{1} << 40).blocks == 65536);
  CHECK(dev::grid_for(1000).threads == 256);
}

TEST_CASE("broadcast strides: 0 along broadcast dims, row-major elsewhere", "[cuda]") {
  const dev::Strided s = util::strided(Shape{2, 3, 4}, Shape{2, 3, 4}, Shape{1, 3, 1});
  CHECK(s.rank == 3);
  CHECK((s.a[0] == 12 && s.a[1] == 4 && s.a[2] == 1));
  CHECK((s.b[0] == 0 && s.b[1] == 1 && s.b[2] == 0));
  // A size-1 Out dim is not a broadcast.
  const dev::Strided t = util::strided(Shape{1, 5}, Shape{1, 5}, Shape{1, 1});
  CHECK((t.a[0] == 5 && t.a[1] == 1 && t.b[1] == 0));
}

// The reduce walk on the host: the same offsets the device kernel visits.
static std::vector<float> host_reduce(const std::vector<float>& in, const dev::ReduceSpec& r) {
  auto offset = [](int64_t i, int rank, const int64_t* dims, const int64_t* str) {
    int64_t off = 0;
    for (int d = rank - 1; d >= 0; --d) off += (i % dims[d]) * str[d], i /= dims[d];
    return off;
  };
  std::vector<float> out(r.outputs);
  for (int64_t o = 0; o < r.outputs; ++o)
    for (int64_t j = 0; j < r.count; ++j)
      out[o] += in[offset(o, r.krank, r.kdims, r.kstr) + offset(j, r.rrank, r.rdims, r.rstr)];
  return out;
}

TEST_CASE("reduce_spec: kept dims walk the outputs, the others are summed", "[cuda]") {
  std::vector<float> in(24);
  for (int i = 0; i < 24; ++i) in[i] = static_cast<float>(i);
  SECTION("[2,3,4] -> [1,3,1]") {
    const dev::ReduceSpec r = util::reduce_spec(Shape{2, 3, 4}, Shape{1, 3, 1});
    CHECK(r.outputs == 3);
    CHECK(r.count == 8);
    // Row j of the middle dim: sum over i, k of 12 i + 4 j + k = 8*4j + 4*12 + 2*6 = 32 j + 60.
    CHECK(host_reduce(in, r) == std::vector<float>{60, 92, 124});
  }
  SECTION("[2,3,4] -> [2,3,4] is a copy") {
    const dev::ReduceSpec r = util::reduce_spec(Shape{2, 3, 4}, Shape{2, 3, 4});
    CHECK(r.count == 1);
    CHECK(host_reduce(in, r) == in);
  }
  SECTION("everything into one") {
    const dev::ReduceSpec r = util::reduce_spec(Shape{2, 3, 4}, Shape{1, 1, 1});
    CHECK(r.outputs == 1);
    CHECK(host_reduce(in, r) == std::vector<float>{276});
  }
}

TEST_CASE("the CUDA op list is sorted and has each gradient's forward op", "[cuda]") {
  std::string prev;
  for (std::string_view op : fluidc::kernels::cuda::kOpTypes) {
    CHECK(prev < std::string(op));
    prev = std::string(op);
    if (op.size() > 5 && op.substr(op.size() - 5) == "_grad")
      CHECK(fluidc::kernels::cuda::has_kernel(op.substr(0, op.size() - 5)));
  }
}
