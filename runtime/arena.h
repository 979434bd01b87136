// runtime/arena.h - the memory plan's arena: one aligned block that planned tensors view (Tensor::view).
#pragma once

#include <cstddef>
#include <cstdint>

namespace fluidc::rt {

class Tensor;

/// 64-byte aligned host memory that only grows. Growing moves the bytes,
/// so the owner re-points every view after reserve() returns true.
class Arena {
 public:
  Arena() = default;
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  /// Makes at least `bytes` available; true when the block moved (its
  /// contents are then unspecified).
  bool reserve(size_t bytes);
  unsigned char* data() { return data_; }
  size_t capacity() const { return capacity_; }

 private:
  unsigned char* data_ = nullptr;
  size_t capacity_ = 0;
};

/// The per-batch arena's scale: dim 0 shared by the given feeds, or -1 when
/// one is unset, has rank 0, or they disagree (the generated code then
/// leaves the per-batch variables with owned storage for that run).
int64_t shared_batch(const Tensor* const* feeds, size_t n);

}  // namespace fluidc::rt
