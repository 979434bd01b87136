// test/unit/kernels/steady_state_test.cc - kernels allocate nothing when called again with the same shapes.
//
// Counts every operator new and every aligned_alloc (Tensor storage, routed
// here with the linker's --wrap, see CMakeLists.txt) while a kernel runs for
// the second and third time, including the aliased forms that go through
// scratch buffers.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "kernels/activation.h"
#include "kernels/elementwise.h"
#include "kernels/fill.h"
#include "kernels/loss.h"
#include "kernels/matmul.h"
#include "kernels/optimizer.h"
#include "kernels/reduce.h"
#include "runtime/parallel.h"
#include "test/unit/kernels/kernel_test_util.h"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocs{0};
void note() {
  if (g_counting.load(std::memory_order_relaxed)) g_allocs.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

extern "C" void* __real_aligned_alloc(size_t alignment, size_t size);
extern "C" void* __wrap_aligned_alloc(size_t alignment, size_t size) {
  note();
  return __real_aligned_alloc(alignment, size);
}

// Every form of operator new is replaced, the nothrow ones included: one left
// to the C++ runtime (or to ASan's, which checks that new pairs with delete)
// would hand out memory our operator delete then frees with free(), a
// mismatch ASan reports (Catch2 allocates with the nothrow form). All of
// them allocate with malloc or aligned_alloc, so free() suits every delete.
// GCC cannot see that and warns at the inlined frees.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace {
void* counted_alloc(size_t n, size_t align) noexcept {
  note();
  if (align <= alignof(std::max_align_t)) return std::malloc(n ? n : 1);
  return __real_aligned_alloc(align, (n + align - 1) / align * align);
}
void* counted_alloc_or_throw(size_t n, size_t align) {
  if (void* p = counted_alloc(n, align)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(size_t n) { return counted_alloc_or_throw(n, 0); }
void* operator new[](size_t n) { return counted_alloc_or_throw(n, 0); }
void* operator new(size_t n, std::align_val_t a) { return counted_alloc_or_throw(n, static_cast<size_t>(a)); }
void* operator new[](size_t n, std::align_val_t a) { return counted_alloc_or_throw(n, static_cast<size_t>(a)); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n, 0); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n, 0); }
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(n, static_cast<size_t>(a));
}
void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_alloc(n, static_cast<size_t>(a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

using namespace fluidc;
using namespace fluidc::test;

namespace {

/// Runs `f` once to warm up, then twice more while counting allocations.
template <class F>
long allocations_after_warmup(F&& f) {
  f();
  g_allocs = 0;
  g_counting = true;
  f();
  f();
  g_counting = false;
  return g_allocs.load();
}

}  // namespace

TEST_CASE("the allocation counter sees Tensor storage", "[steady]") {
  long n = allocations_after_warmup([] {
    Tensor t;
    t.resize(Shape{4}, DType::kFP32);
  });
  CHECK(n == 2);
}

// The pointer escapes, so the compiler may not elide a new/delete pair.
template <class T>
T* escape(T* p) {
  asm volatile("" : : "g"(p) : "memory");
  return p;
}

// Run under ASan (tools/run_sanitizers.sh) this also checks that each form
// pairs with its delete; in any build, that each one is counted.
TEST_CASE("the allocation counter sees every form of operator new", "[steady]") {
  struct alignas(64) Wide {
    char bytes[64];
  };
  bool aligned = true;
  long n = allocations_after_warmup([&] {
    delete escape(new int(1));
    delete[] escape(new int[3]);
    delete escape(new (std::nothrow) int(2));
    delete[] escape(new (std::nothrow) int[3]);
    Wide* w = escape(new Wide);
    aligned = aligned && reinterpret_cast<uintptr_t>(w) % 64 == 0;
    delete w;
    delete[] escape(new Wide[2]);
    w = escape(new (std::nothrow) Wide);
    aligned = aligned && reinterpret_cast<uintptr_t>(w) % 64 == 0;
    delete w;
    delete[] escape(new (std::nothrow) Wide[2]);
  });
  CHECK(n == 2 * 8);
  CHECK(aligned);
}

TEST_CASE("kernels do not allocate in steady state", "[steady]") {
  std::mt19937 rng(1);
  Tensor x = random(Shape{8, 16}, DType::kFP32, rng);
  Tensor y = random(Shape{16}, DType::kFP32, rng, 0.5, 1.5);
  Tensor w = random(Shape{16, 4}, DType::kFP32, rng);
  Tensor out, out2, dx, dy;

  CHECK(allocations_after_warmup([&] { kernels::elementwise_add(x, y, out, {}); }) == 0);
  CHECK(allocations_after_warmup([&] {
          Tensor& o = out;
          o.copy_from(y);
          kernels::elementwise_mul(o, x, o, {});  // aliased and broadcast: scratch path
        }) == 0);
  CHECK(allocations_after_warmup([&] {
          kernels::elementwise_div(x, y, out, {});
          kernels::elementwise_div_grad(x, y, out, x, &dx, &dy, {});
        }) == 0);
  CHECK(allocations_after_warmup([&] {
          kernels::softmax(x, out, {});
          kernels::softmax_grad(out, x, &dx, {});
          kernels::relu(x, out);
          kernels::relu_grad(out, x, &dx);
        }) == 0);
  CHECK(allocations_after_warmup([&] {
          kernels::matmul_v2(x, w, out, {});
          kernels::matmul_v2_grad(x, w, out, &dx, &dy, {});
          kernels::mul(x, w, out, {});
        }) == 0);
  CHECK(allocations_after_warmup([&] {
          out.copy_from(x);
          kernels::matmul_v2(out, w, out, {});  // aliased: scratch path
        }) == 0);

  Tensor label = i64(Shape{8, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(allocations_after_warmup([&] {
          kernels::softmax_with_cross_entropy(x, label, out, out2, {});
          kernels::softmax_with_cross_entropy_grad(label, out, out2, &dx, {});
        }) == 0);

  kernels::ReduceAttrs ra;
  ra.dim = {1};
  const Tensor* xs[] = {&x, &x, &x};
  CHECK(allocations_after_warmup([&] {
          kernels::reduce_sum(x, out, ra);
          kernels::reduce_mean_grad(x, out, &dx, ra);
          kernels::mean(x, out);
          kernels::sum(xs, 3, out);
        }) == 0);

  kernels::FillConstantAttrs fa;
  fa.shape = {8, 16};
  fa.str_value = "1.5";
  kernels::CastAttrs ca;
  ca.out_dtype = static_cast<int>(DType::kFP64);
  CHECK(allocations_after_warmup([&] {
          kernels::fill_constant(out, fa);
          kernels::cast(x, out2, ca);
          kernels::assign(x, out);
        }) == 0);

  Tensor p, m1, m2, lr = f32(Shape{1}, {0.01f}), b1 = f32(Shape{1}, {0.9f}), b2 = f32(Shape{1}, {0.999f});
  p.copy_from(x);
  m1.copy_from(x);
  m2.copy_from(x);
  CHECK(allocations_after_warmup([&] {
          kernels::adam(p, x, lr, m1, m2, b1, b2, nullptr, nullptr, nullptr, p, m1, m2, &b1, &b2, {});
          kernels::sgd(p, lr, x, p);
        }) == 0);
}

TEST_CASE("threaded GEMMs, GEMVs and optimizer updates do not allocate in steady state", "[steady][threads]") {
  rt::set_num_threads(2);  // big enough for every one of these to be split over the pool
  std::mt19937 rng(2);
  Tensor x = random(Shape{128, 256}, DType::kFP32, rng);
  Tensor w = random(Shape{256, 128}, DType::kFP32, rng);
  Tensor row = random(Shape{1, 1024}, DType::kFP32, rng);
  Tensor big = random(Shape{1024, 512}, DType::kFP32, rng);
  Tensor p = random(Shape{300000}, DType::kFP32, rng), g = random(Shape{300000}, DType::kFP32, rng);
  Tensor lr = f32(Shape{1}, {0.1f});
  Tensor out, dx, dw, p_out;
  CHECK(allocations_after_warmup([&] {
          kernels::matmul_v2(x, w, out, {});
          kernels::matmul_v2_grad(x, w, out, &dx, &dw, {});
          kernels::matmul_v2(row, big, out, {});
          kernels::sgd(p, lr, g, p_out);
        }) == 0);
  rt::set_num_threads(1);
}
