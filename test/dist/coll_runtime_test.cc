// test/dist/coll_runtime_test.cc - runtime/coll in one process (an MPI singleton): what the collective ops refuse, in-place and copying forms.
// The multi-rank behaviour (sums, broadcasts, faults) is run_collective.py's, under mpirun.
#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "runtime/coll/coll.h"
#include "runtime/coll/comm.h"
#include "runtime/error.h"

using namespace fluidc;

namespace {

rt::Tensor floats(std::initializer_list<float> v) {
  rt::Tensor t;
  t.resize(rt::Shape{static_cast<int64_t>(v.size())}, rt::DType::kFP32);
  float* p = static_cast<float*>(t.raw());
  for (float x : v) *p++ = x;
  return t;
}

float at(const rt::Tensor& t, int i) { return static_cast<const float*>(t.raw())[i]; }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const rt::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// One test case, in order: before the communicator exists, then a 1-rank job (MPI singleton).
TEST_CASE("collective ops: refusals and the 1-rank job") {
  rt::Tensor x = floats({1.5f, -2.0f});
  CHECK_THAT(error_of([&] { coll::allreduce_sum(x, x, 0, 0); }),
             Catch::Contains("collective ops run only in the binary's own main, under mpirun"));

  coll::init_comm(coll::CommConfig{});
  REQUIRE(coll::comm_up());
  REQUIRE(coll::comm_rank() == 0);
  REQUIRE(coll::comm_size() == 1);
  // Alone, a rank always runs the same program as every rank.
  CHECK_NOTHROW(coll::check_same_program("p.pdmodel", "0123456789abcdef0123456789abcdef"));

  // One rank: the sum is the value itself, in place or into another tensor.
  coll::allreduce_sum(x, x, 0, 0);
  CHECK(at(x, 0) == 1.5f);
  CHECK(at(x, 1) == -2.0f);
  rt::Tensor out;
  coll::allreduce_sum(x, out, 1, 1);
  REQUIRE(out.shape() == x.shape());
  CHECK(at(out, 1) == -2.0f);

  // A program split for 2 ranks in a 1-rank job: its loss is scaled by 1/2, so it is refused.
  CHECK_THAT(error_of([&] { coll::allreduce_sum(x, x, 0, 2); }),
             Catch::Contains("this program was split for 2 ranks") && Catch::Contains("the job has 1"));

  rt::Tensor half;
  half.resize(rt::Shape{4}, rt::DType::kFP16);
  CHECK_THAT(error_of([&] { coll::allreduce_sum(half, half, 0, 0); }),
             Catch::Contains("dtype float16 is not supported on CPU (fp32, fp64, int32 and int64 are)"));
  rt::Tensor flags;
  flags.resize(rt::Shape{4}, rt::DType::kBool);
  CHECK_THAT(error_of([&] { coll::allreduce_sum(flags, flags, 0, 0); }), Catch::Contains("dtype bool is not supported"));
  rt::Tensor empty;
  CHECK_THAT(error_of([&] { coll::allreduce_sum(empty, empty, 0, 0); }), Catch::Contains("X holds no value"));

  // Broadcast from rank 0 (this one): a copy when Out is not X; a root outside the job is refused.
  rt::Tensor b;
  coll::broadcast(x, b, 0, 0);
  REQUIRE(b.shape() == x.shape());
  CHECK(at(b, 0) == 1.5f);
  CHECK_THAT(error_of([&] { coll::broadcast(x, x, 1, 0); }), Catch::Contains("root 1 is not a rank of this job"));
  CHECK_THAT(error_of([&] { coll::broadcast(empty, empty, 0, 0); }),
             Catch::Contains("X holds no value on the root rank"));

  coll::end_of_run_barrier();
  coll::finalize_comm();
  CHECK_FALSE(coll::comm_up());
}
