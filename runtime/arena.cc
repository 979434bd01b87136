// runtime/arena.cc - the memory plan's arena and the batch dimension that scales its per-batch part.
#include "runtime/arena.h"

#include <cstdlib>
#include <new>

#include "runtime/tensor.h"

namespace fluidc::rt {

Arena::~Arena() { std::free(data_); }

bool Arena::reserve(size_t bytes) {
  if (bytes <= capacity_ && data_) return false;
  const size_t cap = (bytes + 63) / 64 * 64 + 64;  // never 0: aligned_alloc(64, 0) may return null
  void* p = std::aligned_alloc(64, cap);
  if (!p) throw std::bad_alloc();
  std::free(data_);
  data_ = static_cast<unsigned char*>(p);
  capacity_ = cap;
  return true;
}

int64_t shared_batch(const Tensor* const* feeds, size_t n) {
  int64_t batch = -1;
  for (size_t i = 0; i < n; ++i) {
    const Tensor& t = *feeds[i];
    if (!t.initialized() || t.rank() == 0 || t.dim(0) <= 0) return -1;
    if (batch >= 0 && t.dim(0) != batch) return -1;
    batch = t.dim(0);
  }
  return batch;
}

}  // namespace fluidc::rt
