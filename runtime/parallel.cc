// runtime/parallel.cc - a fixed pool of spinning-then-sleeping workers behind parallel_for, each taking its own share.
#include "runtime/parallel.h"

#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace fluidc::rt {
namespace {

int default_threads() {
  if (const char* env = std::getenv("FLUIDC_NUM_THREADS")) {
    const int n = std::atoi(env);
    if (n >= 1) return n;
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

std::atomic<int> g_threads{0};  // 0: not decided yet

/// One job at a time. A worker joins a job under the mutex (snapshotting it
/// and counting itself busy); the caller only resets the job's fields under
/// the mutex once no worker is busy, so no worker ever sees a half-written
/// job or takes a chunk of the next job with the previous job's function.
class Pool {
 public:
  static Pool& get() {
    static Pool* pool = new Pool;  // never destroyed: workers may still spin at exit
    return *pool;
  }

  void run(int64_t chunks, ChunkFn fn, int threads) {
    // One caller at a time owns the workers (they hold one job). Another
    // thread's model instance calling meanwhile runs its chunks itself:
    // correct, and no slower than waiting for the workers to be free.
    std::unique_lock<std::mutex> owner(owner_mu_, std::try_to_lock);
    if (!owner.owns_lock()) {
      for (int64_t i = 0; i < chunks; ++i) fn(i);
      return;
    }
    grow(threads - 1);
    {
      std::lock_guard<std::mutex> lock(mu_);
      while (busy_.load(std::memory_order_acquire) > 0) cpu_relax();  // stragglers of the last job
      job_ = Job{fn, chunks, threads};
      for (int t = 0; t < threads; ++t) {
        ranges_[t].next.store(chunks * t / threads, std::memory_order_relaxed);
        ranges_[t].end = chunks * (t + 1) / threads;
      }
      done_.store(0, std::memory_order_relaxed);
      error_ = nullptr;
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    work(job_, 0);
    while (done_.load(std::memory_order_acquire) < chunks) cpu_relax();
    if (error_) std::rethrow_exception(error_);
  }

  static constexpr int kMaxThreads = 256;

 private:
  struct Job {
    ChunkFn fn;
    int64_t chunks = 0;
    int participants = 0;  // the caller (0) and the workers with a smaller id + 1
  };

  /// One participant's contiguous share of a job's chunks. Claimed one at a
  /// time from the front, by its owner first and then by the others once
  /// their own shares are done; each in its own cache line, so that the
  /// claims of the two threads do not bounce one line between the cores.
  struct alignas(64) Range {
    std::atomic<int64_t> next{0};
    int64_t end = 0;
  };

  static void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }

  void grow(int workers) {
    while (static_cast<int>(workers_.size()) < workers) {
      const int id = static_cast<int>(workers_.size());
      workers_.emplace_back([this, id] { loop(id); });
      workers_.back().detach();
    }
  }

  // Takes chunks of `job`: those of its own share first, then what is left
  // of the others'. Contiguous shares keep a thread on the same part of the
  // tensors from one op to the next (its own cache), and spare a shared
  // counter that every chunk of every thread would write.
  void work(const Job& job, int self) {
    int64_t did = 0;
    for (int k = 0; k < job.participants; ++k) {
      Range& r = ranges_[(self + k) % job.participants];
      for (int64_t i; (i = r.next.fetch_add(1, std::memory_order_relaxed)) < r.end; ++did) {
        try {
          job.fn(i);
        } catch (...) {
          std::lock_guard<std::mutex> lock(error_mu_);
          if (!error_) error_ = std::current_exception();
        }
      }
    }
    done_.fetch_add(did, std::memory_order_release);
  }

  void loop(int id) {
    uint64_t seen = 0;
    for (;;) {
      // Spin a little for the next job (a training step's GEMMs come close
      // together; 2000 pauses are 10-100 us, by CPU), then sleep until notified.
      for (int spin = 0; spin < 2000 && generation_.load(std::memory_order_acquire) == seen; ++spin) cpu_relax();
      Job job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
        seen = generation_.load(std::memory_order_relaxed);
        if (id + 1 >= job_.participants) continue;
        job = job_;
        busy_.fetch_add(1, std::memory_order_acq_rel);
      }
      work(job, id + 1);
      busy_.fetch_sub(1, std::memory_order_acq_rel);
    }
  }

  std::vector<std::thread> workers_;
  std::mutex owner_mu_, mu_, error_mu_;
  std::condition_variable wake_;
  alignas(64) std::atomic<uint64_t> generation_{0};  // what idle workers spin on: its own line
  alignas(64) std::atomic<int64_t> done_{0};          // what the caller spins on: its own line
  alignas(64) Range ranges_[kMaxThreads];
  Job job_;
  std::atomic<int> busy_{0};
  std::exception_ptr error_;
};

}  // namespace

int num_threads() {
  int n = g_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    n = default_threads();
    g_threads.store(n, std::memory_order_relaxed);
  }
  return n;
}

void set_num_threads(int n) { g_threads.store(n < 1 ? 1 : n, std::memory_order_relaxed); }

void parallel_for(int64_t chunks, ChunkFn fn) {
  const int threads = static_cast<int>(std::min<int64_t>({num_threads(), chunks, Pool::kMaxThreads}));
  if (threads <= 1) {
    for (int64_t i = 0; i < chunks; ++i) fn(i);
    return;
  }
  Pool::get().run(chunks, fn, threads);
}

}  // namespace fluidc::rt
