// runtime/coll/comm.cc - MPI set-up, c_allreduce_sum and c_broadcast, each blocking call bounded by a watchdog.
//
// All of Paddle's rings map onto MPI_COMM_WORLD: Paddle keeps one NCCL
// communicator per ring so GPU streams can overlap; here every collective is
// a blocking call issued in program order, the same order on every rank, so
// one communicator orders them all.
//
// MPI has no timeout on a collective. A dead rank is mpirun's to notice (it
// kills the job and names the rank, measured in docs/distributed.md); a rank
// that is stuck (stopped, looping) is this watchdog's: a collective still
// running after the bound prints which one and exits 1, and mpirun then
// ends the others.
#include "runtime/coll/comm.h"

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "runtime/coll/coll.h"
#include "runtime/error.h"

namespace fluidc::coll {
namespace {

struct State {
  bool up = false;
  int rank = 0, size = 1;
  CommConfig config;
  bool first_done = false;
};
State g;

// What a collective in flight is (CallInfo), for the watchdog's message
// (formatted only when it fires: arming costs no allocation).
using Call = CallInfo;

std::string describe(const Call& c) {
  if (c.ring_id < 0) return c.op;
  if (std::strcmp(c.op, "c_broadcast") == 0) return fmt::format("c_broadcast (ring {}, root {})", c.ring_id, c.count);
  return fmt::format("{} (ring {}, {} elements)", c.op, c.ring_id, c.count);
}

// Exits the process when an armed collective outlives its bound. It calls
// no MPI function (MPI is initialised MPI_THREAD_FUNNELED).
class Watchdog {
 public:
  void start() { thread_ = std::thread([this] { loop(); }); }
  void arm(const Call& call, int64_t ms) {
    std::lock_guard<std::mutex> lock(mu_);
    call_ = call;
    bound_ms_ = ms;
    deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    armed_ = true;
    ++generation_;
    cv_.notify_one();
  }
  void disarm() {
    std::lock_guard<std::mutex> lock(mu_);
    armed_ = false;
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      cv_.notify_one();
    }
    if (thread_.joinable()) thread_.join();
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      if (!armed_) {
        cv_.wait(lock);
        continue;
      }
      const uint64_t gen = generation_;
      if (cv_.wait_until(lock, deadline_, [&] { return stop_ || !armed_ || generation_ != gen; })) continue;
      print_stuck(call_, bound_ms_);
      _exit(1);  // not exit(): the main thread is inside MPI; mpirun ends the other ranks
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
  Call call_;
  int64_t bound_ms_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  bool armed_ = false, stop_ = false;
  uint64_t generation_ = 0;
};
Watchdog g_watchdog;

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  rt::fail(fmt::format("{} failed on rank {} of {}: {}", what, g.rank, g.size, std::string(msg, len)));
}

void need_comm(const char* op) {
  if (!g.up)
    rt::fail(fmt::format("{}: collective ops run only in the binary's own main, under mpirun (docs/distributed.md)", op));
}

// The MPI type of a dtype c_allreduce_sum adds; MPI_DATATYPE_NULL for those it refuses.
MPI_Datatype sum_type(rt::DType t) {
  switch (t) {
    case rt::DType::kFP32: return MPI_FLOAT;
    case rt::DType::kFP64: return MPI_DOUBLE;
    case rt::DType::kInt32: return MPI_INT32_T;
    case rt::DType::kInt64: return MPI_INT64_T;
    default: return MPI_DATATYPE_NULL;
  }
}

// out takes x's value unless it is x (the ops write in place as the pass writes them).
void copy_into(const rt::Tensor& x, rt::Tensor& out) {
  if (&x != &out) out.copy_from(x);
}

}  // namespace

// Arms the watchdog for one call. Up to the end of the first all-reduce (the
// program check, the startup's broadcasts, step 1) ranks may be apart by their
// start-up and data loading: the longer bound; every later call the shorter.
Bounded::Bounded(const CallInfo& call, int64_t bound_ms) {
  g_watchdog.arm(call, bound_ms >= 0 ? bound_ms : collective_bound_ms());
}
Bounded::~Bounded() { g_watchdog.disarm(); }

int64_t collective_bound_ms() { return g.first_done ? g.config.timeout_ms : g.config.first_timeout_ms; }
void first_allreduce_done() { g.first_done = true; }

void print_stuck(const CallInfo& call, int64_t bound_ms) {
  std::fprintf(stderr,
               "error: rank %d of %d: %s waited over %lld ms for the other ranks: one of them is dead or stuck "
               "(raise FLUIDC_DIST_TIMEOUT_MS / --dist-timeout-ms for slow steps)\n",
               g.rank, g.size, describe(call).c_str(), static_cast<long long>(bound_ms));
  std::fflush(stderr);
}

void check_job_size(const char* op, int nranks) {
  need_comm(op);
  if (nranks > 0 && nranks != g.size)
    rt::fail(fmt::format("this program was split for {} ranks (`fluidc opt --collective --nranks {}`) but the job has "
                         "{} (mpirun -np): its loss is scaled by 1/{}, so the gradients would be wrong",
                         nranks, nranks, g.size, nranks));
}

void init_comm(const CommConfig& c) {
  if (g.up) return;
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  // Errors come back as codes (reported, naming the call) instead of MPI's default abort.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g.size);
  g.config = c;
  g.up = true;
  g_watchdog.start();
}

bool comm_up() { return g.up; }
int comm_rank() { return g.rank; }
int comm_size() { return g.size; }

void end_of_run_barrier() {
  if (!g.up) return;
  // A rank that stops early (another --steps, a rank stuck after its last all-reduce) is caught by a bounded
  // barrier, not inside MPI_Finalize: Open MPI 4.1's mpirun races (hangs, or segfaults in
  // PMIx_server_finalize) when a rank that has begun MPI_Finalize exits non-zero while another rank dies.
  Bounded bound(Call{"the end-of-run barrier"});
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier (end of run)");
}

void finalize_comm() {
  if (!g.up) return;
  // Past the end-of-run barrier every rank is alive and done, so MPI_Finalize returns promptly; it keeps a bound.
  {
    Bounded bound(Call{"MPI_Finalize"});
    MPI_Finalize();
  }
  g_watchdog.stop();
  g.up = false;
}

void abort_comm(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  // Alone (a 1-rank job, or no mpirun) there is no one to take down: a plain exit, without MPI's banner.
  if (g.up && g.size == 1) finalize_comm();
  if (g.up) MPI_Abort(MPI_COMM_WORLD, code);
  _exit(code);
}

void check_same_program(const char* program, const char* sha256) {
  need_comm("the program check");
  // The first 16 hex digits of the program's sha256; min over ranks of it and of its complement
  // give the min and the max in one call.
  uint64_t h = std::strtoull(std::string(sha256).substr(0, 16).c_str(), nullptr, 16);
  uint64_t v[2] = {h, ~h};
  {
    Bounded bound(Call{"the check that every rank runs the same program"});
    check(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce (program check)");
  }
  if (v[0] != ~v[1])
    rt::fail(fmt::format("the ranks run different programs: this one is built from {} (sha256 {}...), another rank's "
                         "is not; give every rank the same binary (one `fluidc opt --collective --nranks N` split)",
                         program, std::string(sha256).substr(0, 16)));
}

void allreduce_sum(const rt::Tensor& x, rt::Tensor& out, int ring_id, int nranks) {
  check_job_size("c_allreduce_sum", nranks);
  if (!x.initialized()) rt::fail("c_allreduce_sum: X holds no value");
  const MPI_Datatype type = sum_type(x.dtype());
  if (type == MPI_DATATYPE_NULL)
    rt::fail(fmt::format("c_allreduce_sum: dtype {} is not supported on CPU (fp32, fp64, int32 and int64 are)",
                         rt::dtype_name(x.dtype())));
  copy_into(x, out);
  if (out.numel() > INT32_MAX) rt::fail("c_allreduce_sum: more than 2^31-1 elements in one tensor");
  Bounded bound(Call{"c_allreduce_sum", ring_id, out.numel()});
  check(MPI_Allreduce(MPI_IN_PLACE, out.raw(), static_cast<int>(out.numel()), type, MPI_SUM, MPI_COMM_WORLD),
        "MPI_Allreduce (c_allreduce_sum)");
  first_allreduce_done();
}

TensorHeader broadcast_header(int root, int ring_id, bool holds, rt::DType dtype, const rt::Shape& shape) {
  need_comm("c_broadcast");
  if (root < 0 || root >= g.size)
    rt::fail(fmt::format("c_broadcast: root {} is not a rank of this job (0..{})", root, g.size - 1));
  // dtype, rank, dims: every rank learns the root's type.
  constexpr int kMaxRank = rt::Shape::kMaxRank;
  int64_t head[2 + kMaxRank] = {};
  if (g.rank == root) {
    head[0] = static_cast<int64_t>(dtype);
    head[1] = shape.rank;
    for (int i = 0; i < shape.rank; ++i) head[2 + i] = shape[i];
  }
  {
    Bounded bound(Call{"c_broadcast", ring_id, root});
    check(MPI_Bcast(head, 2 + kMaxRank, MPI_INT64_T, root, MPI_COMM_WORLD), "MPI_Bcast (c_broadcast header)");
  }
  if (head[1] < 0 || head[1] > kMaxRank || !rt::dtype_is_valid(static_cast<int32_t>(head[0])))
    rt::fail("c_broadcast: the root sent a malformed header");
  TensorHeader sent{static_cast<rt::DType>(head[0]), rt::Shape::from(head + 2, static_cast<int>(head[1]))};
  if (g.rank != root && holds && (dtype != sent.dtype || shape != sent.shape))
    rt::fail(fmt::format("c_broadcast: rank {} holds {}{} but root {} sends {}{}", g.rank, rt::dtype_name(dtype),
                         shape.str(), root, rt::dtype_name(sent.dtype), sent.shape.str()));
  return sent;
}

void broadcast(const rt::Tensor& x, rt::Tensor& out, int root, int ring_id) {
  if (comm_up() && g.rank == root && !x.initialized()) rt::fail("c_broadcast: X holds no value on the root rank");
  const TensorHeader sent = broadcast_header(root, ring_id, x.initialized(), x.dtype(), x.shape());
  if (g.rank == root) copy_into(x, out);
  else out.resize(sent.shape, sent.dtype);
  if (out.nbytes() > INT32_MAX) rt::fail("c_broadcast: more than 2^31-1 bytes in one tensor");
  Bounded bound(Call{"c_broadcast", ring_id, root});
  check(MPI_Bcast(out.raw(), static_cast<int>(out.nbytes()), MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast (c_broadcast)");
}

}  // namespace fluidc::coll
