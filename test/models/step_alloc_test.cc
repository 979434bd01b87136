// test/models/step_alloc_test.cc - with the memory plan, a step after the first allocates nothing on the heap.
//
// malloc and its relatives are interposed in this executable and counted
// while steps run. Trainers (an MLP with Adam, and a recurrent net whose
// while loop is replayed by while_grad) and an inference MLP run a first
// step, then more at the same batch, then at a smaller batch (the per-batch
// arena re-points its views without growing) and again at the first.
// Tensor storage and the arenas are the only aligned_alloc callers; every
// count, aligned or not, must be zero for every program (rnn_while's slice
// reads its run-time start/end tensors into a stack buffer for this).
#include <malloc.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "runtime/model.h"
#include "runtime/tensor.h"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
}

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocs{0}, g_aligned{0};
void note(bool aligned = false) {
  if (!g_counting.load(std::memory_order_relaxed)) return;
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (aligned) g_aligned.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

extern "C" {
void* malloc(size_t n) { note(); return __libc_malloc(n); }
void* calloc(size_t n, size_t s) { note(); return __libc_calloc(n, s); }
void* realloc(void* p, size_t n) { note(); return __libc_realloc(p, n); }
void* aligned_alloc(size_t a, size_t n) { note(true); return __libc_memalign(a, n); }
void* memalign(size_t a, size_t n) { note(true); return __libc_memalign(a, n); }
int posix_memalign(void** out, size_t a, size_t n) {
  note(true);
  *out = __libc_memalign(a, n);
  return *out ? 0 : 12;  // ENOMEM
}
}

namespace test_models {
namespace mlp { const fluidc::rt::ModelInfo& model_info(); }
namespace rnn { const fluidc::rt::ModelInfo& model_info(); }
namespace adam { const fluidc::rt::ModelInfo& model_info(); }
}  // namespace test_models

namespace {

using fluidc::rt::DType;
using fluidc::rt::Model;
using fluidc::rt::Shape;
using fluidc::rt::Tensor;

void fill(Tensor& t, const fluidc::rt::VarBinding& b) {
  for (int64_t k = 0; k < t.numel(); ++k) {
    if (b.dtype == DType::kFP32) t.data<float>()[k] = static_cast<float>((k * 7 % 13) - 6) / 8.0f;
    else if (b.dtype == DType::kInt64) t.data<int64_t>()[k] = k % 2;
    else if (b.dtype == DType::kFP64) t.data<double>()[k] = static_cast<double>((k * 7 % 13) - 6) / 8.0;
  }
}

// A program without a startup program: its persistables (weights) get
// deterministic values at their declared shapes.
void set_persistables(Model& m) {
  const auto& info = m.info();
  for (int i = 0; i < info.num_persistables; ++i) {
    const auto& b = info.persistables[i];
    Tensor& t = m.tensor(b);
    t.resize(Shape::from(b.dims, b.rank), b.dtype);
    fill(t, b);
  }
}

// Every feed at `batch` rows (a -1 dim, or a trainer's dim 0), small
// deterministic values; integer feeds (labels) get class 0 or 1.
void set_feeds(Model& m, int64_t batch) {
  const auto& info = m.info();
  for (int i = 0; i < info.num_feeds; ++i) {
    const auto& b = info.feeds[i];
    Shape s;
    s.rank = b.rank;
    for (int d = 0; d < b.rank; ++d) s.d[d] = b.dims[d] < 0 || (d == 0 && info.is_trainer) ? batch : b.dims[d];
    Tensor& t = m.tensor(b);
    t.resize(s, b.dtype);
    fill(t, b);
  }
}

struct Counts {
  long all = 0, storage = 0;  // every allocation; aligned ones (tensor storage, arenas)
};

// Allocations during `steps` runs.
Counts count_steps(Model& m, int steps) {
  g_allocs = 0;
  g_aligned = 0;
  g_counting = true;
  for (int i = 0; i < steps; ++i) m.run();
  g_counting = false;
  return {g_allocs.load(), g_aligned.load()};
}

int check(const char* name, const fluidc::rt::ModelInfo& info) {
  std::unique_ptr<Model> m(info.create());
  if (info.has_startup) m->startup();
  else set_persistables(*m);
  set_feeds(*m, 8);
  m->run();  // the first step sizes everything
  const Counts same = count_steps(*m, 3);
  set_feeds(*m, 5);
  m->run();  // a smaller batch: owned tensors shrink in place, the per-batch views re-point
  const Counts smaller = count_steps(*m, 3);
  set_feeds(*m, 8);
  const Counts back = count_steps(*m, 3);
  std::printf("%s: heap allocations (tensor storage) in 3 steps at batch 8: %ld (%ld), at batch 5: %ld (%ld), "
              "back at batch 8: %ld (%ld)\n",
              name, same.all, same.storage, smaller.all, smaller.storage, back.all, back.storage);
  // The storage counts are part of the totals; they are printed to tell which kind a failure is.
  return same.all == 0 && smaller.all == 0 && back.all == 0 ? 0 : 1;
}

}  // namespace

int main() {
  int rc = 0;
  rc |= check("mlp (inference)", test_models::mlp::model_info());
  rc |= check("mlp_adam (trainer)", test_models::adam::model_info());
  rc |= check("rnn_while (trainer, while + while_grad)", test_models::rnn::model_info());
  return rc;
}
