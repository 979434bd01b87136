// test/unit/runtime/tensor_view_test.cc - tensors that view memory they do not own, and their device tag.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "runtime/error.h"
#include "runtime/tensor.h"

using fluidc::rt::Device;
using fluidc::rt::DType;
using fluidc::rt::Error;
using fluidc::rt::Shape;
using fluidc::rt::Tensor;

TEST_CASE("a view uses the memory it is given and never reallocates", "[tensor][view]") {
  alignas(64) float arena[16] = {};
  Tensor t;
  t.view(arena, sizeof arena);
  REQUIRE(t.is_view());
  REQUIRE(t.device() == Device::kCPU);
  REQUIRE(t.capacity() == sizeof arena);
  REQUIRE_FALSE(t.initialized());  // a view holds no value until something is written
  t.resize(Shape{2, 8}, DType::kFP32);  // exactly the capacity
  REQUIRE(t.raw() == arena);
  t.data<float>()[15] = 3.5f;
  REQUIRE(arena[15] == 3.5f);
  t.resize(Shape{3}, DType::kFP64);  // smaller: same bytes, another dtype
  REQUIRE(t.raw() == arena);
}

TEST_CASE("resizing a view past its capacity is a clear error, and the view is unchanged", "[tensor][view]") {
  alignas(64) float arena[8] = {};
  Tensor t;
  t.view(arena, sizeof arena);
  t.resize(Shape{2, 4}, DType::kFP32);
  try {
    t.resize(Shape{3, 4}, DType::kFP32);
    FAIL("resize past the view's capacity did not throw");
  } catch (const Error& e) {
    const std::string msg = e.what();
    REQUIRE(msg.find("32 bytes") != std::string::npos);
    REQUIRE(msg.find("float32[3, 4]") != std::string::npos);
  }
  REQUIRE(t.raw() == arena);
  REQUIRE(t.shape() == Shape{2, 4});
  // copy_from into a view is bounded the same way.
  Tensor big;
  big.resize(Shape{9}, DType::kFP32);
  REQUIRE_THROWS_AS(t.copy_from(big), Error);
  REQUIRE(t.raw() == arena);
}

TEST_CASE("a view is not freed by the tensor, and moving keeps it a view", "[tensor][view]") {
  // The arena is heap memory here so that a wrong free() would be caught by
  // the allocator (or sanitizers) rather than silently touching the stack.
  std::vector<double> arena(4, 1.0);
  {
    Tensor t;
    t.resize(Shape{100}, DType::kFP32);  // owned storage, released by view()
    t.view(arena.data(), arena.size() * sizeof(double));
    t.resize(Shape{4}, DType::kFP64);
    Tensor moved = std::move(t);
    REQUIRE(moved.is_view());
    REQUIRE(moved.raw() == arena.data());
    REQUIRE_FALSE(t.is_view());  // the moved-from tensor is an empty owner again
    t.resize(Shape{2}, DType::kFP32);  // and may allocate as before
    REQUIRE(t.raw() != arena.data());
    moved.data<double>()[0] = 7.0;
  }
  REQUIRE(arena[0] == 7.0);
}

TEST_CASE("owned tensors still grow on resize and are on the CPU", "[tensor]") {
  Tensor t;
  REQUIRE_FALSE(t.is_view());
  REQUIRE(t.device() == Device::kCPU);
  t.resize(Shape{2}, DType::kFP32);
  t.resize(Shape{1000}, DType::kFP32);
  REQUIRE(t.capacity() >= 4000);
}

TEST_CASE("device memory is only viewed, never touched from the host", "[tensor][device]") {
  alignas(64) unsigned char fake_device[64];
  std::memset(fake_device, 0xab, sizeof fake_device);
  Tensor d;
  d.view(fake_device, sizeof fake_device, Device::kCUDA);
  REQUIRE(d.device() == Device::kCUDA);
  d.resize(Shape{16}, DType::kFP32);  // shapes are host metadata: fine
  REQUIRE_THROWS_AS(d.zero(), Error);
  Tensor h;
  h.resize(Shape{16}, DType::kFP32);
  REQUIRE_THROWS_AS(h.copy_from(d), Error);
  REQUIRE_THROWS_AS(d.copy_from(h), Error);
  REQUIRE(fake_device[0] == 0xab);
  REQUIRE(std::string(fluidc::rt::device_name(Device::kCUDA)) == "cuda");
}

TEST_CASE("a shape whose byte count wraps is a clear error, not a small allocation", "[tensor]") {
  Tensor t;
  t.resize(Shape{4}, DType::kFP32);
  // 2^31 * 2^31 * 4 elements wrap int64; 2^61 floats wrap the byte count; 2^60 floats are past 2^48 bytes.
  for (const Shape& s : {Shape{int64_t{1} << 31, int64_t{1} << 31, 4}, Shape{int64_t{1} << 61}, Shape{int64_t{1} << 60}}) {
    try {
      t.resize(s, DType::kFP32);
      FAIL("resize to " << s.str() << " did not throw");
    } catch (const Error& e) {
      REQUIRE(std::string(e.what()).find("too large to allocate") != std::string::npos);
    }
    REQUIRE(t.shape() == Shape{4});  // unchanged
  }
}
