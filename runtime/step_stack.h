// runtime/step_stack.h - per-iteration snapshots of a while loop, kept for its backward pass.
#pragma once

#include <cstddef>
#include <vector>

#include "runtime/tensor.h"

namespace fluidc::rt {

/// What Paddle keeps in a while op's StepScopes: for every iteration, the
/// loop variables as they were when it began and the body's own variables
/// as it left them. while_grad walks the steps in reverse, restoring each.
/// Storage is reused from one training step to the next.
class StepStack {
 public:
  /// Forgets the recorded iterations (keeps their storage).
  void clear() { count_ = 0; }
  /// A record of `width` tensors for the next iteration.
  std::vector<Tensor>& push(size_t width) {
    if (count_ == steps_.size()) steps_.emplace_back();
    std::vector<Tensor>& rec = steps_[count_++];
    if (rec.size() < width) rec.resize(width);
    return rec;
  }
  std::vector<Tensor>& at(size_t i) { return steps_[i]; }
  size_t size() const { return count_; }

  /// dst = src when src holds a value (a variable the iteration did not
  /// compute is not recorded).
  static void save(Tensor& dst, const Tensor& src) {
    if (src.initialized()) dst.copy_from(src);
  }

 private:
  std::vector<std::vector<Tensor>> steps_;
  size_t count_ = 0;
};

}  // namespace fluidc::rt
