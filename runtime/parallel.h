// runtime/parallel.h - the kernels' worker threads: how many, and a parallel_for over a few chunks.
//
// The GEMMs split their work by columns or rows of the result (kernels/cpu/
// sgemm.cc), the optimizers' updates by ranges of the parameters (parallel_
// ranges in kernels/cpu/kernel_util.h); other elementwise loops are short
// and stay on the calling thread. Workers are started on the first parallel_for that wants
// them and spin briefly before sleeping, so back-to-back GEMMs of a training
// step do not pay a wake-up each.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace fluidc::rt {

/// A non-owning reference to a callable taking a chunk index: what
/// parallel_for takes instead of std::function, which would heap-allocate
/// for the GEMMs' many-capture lambdas on every call of a training step.
class ChunkFn {
 public:
  ChunkFn() = default;  ///< refers to nothing; must not be called
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, ChunkFn>>>
  ChunkFn(F&& f)  // NOLINT: implicit, like std::function
      : obj_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, int64_t i) { (*static_cast<std::remove_reference_t<F>*>(o))(i); }) {}
  void operator()(int64_t i) const { call_(obj_, i); }

 private:
  void* obj_ = nullptr;
  void (*call_)(void*, int64_t) = nullptr;
};

/// Threads the kernels may use, the caller included. Default: the CPUs this
/// process may run on (sched_getaffinity), or $FLUIDC_NUM_THREADS when set;
/// the binaries' --threads flag overrides both.
int num_threads();
/// n >= 1. Takes effect for the next parallel_for.
void set_num_threads(int n);

/// Calls fn(i) for every i in [0, chunks) on up to num_threads() threads
/// (the caller is one of them; at most 256) and returns when all calls have
/// returned. Thread t starts on the t-th contiguous share of the chunks and
/// then helps with what is left of the others'.
/// An exception from fn is rethrown here (the first one; the other chunks
/// still run). Not reentrant: fn must not call parallel_for. Safe to call
/// from several threads at once (model instances on their own threads):
/// one caller at a time gets the workers, the others run their chunks
/// themselves.
void parallel_for(int64_t chunks, ChunkFn fn);

/// Cuts [0, total) into at most `parts` slices whose sizes are whole
/// multiples of `unit` (the last may be shorter) and calls
/// fn(slice, begin, end) for each through parallel_for. `slice` numbers
/// them from 0, the same way for the same arguments.
template <class F>
void parallel_slices(int64_t total, int64_t parts, int64_t unit, F&& fn) {
  const int64_t per = ((total + parts - 1) / parts + unit - 1) / unit * unit;
  parallel_for((total + per - 1) / per, [&](int64_t t) {
    const int64_t begin = t * per;
    fn(t, begin, total - begin < per ? total : begin + per);
  });
}

}  // namespace fluidc::rt
