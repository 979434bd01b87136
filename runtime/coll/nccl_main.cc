// runtime/coll/nccl_main.cc - main() of CUDA binaries with collective ops: the CUDA flags, then run_coll_main with a GPU and NCCL per rank.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/coll/coll.h"
#include "runtime/coll/nccl_comm.h"
#include "runtime/coll/nccl_ops.h"
#include "runtime/cuda/cuda_model.h"

namespace fluidc::coll {
namespace {

// After the MPI job is up and every rank runs the same program: the
// device, then the communicator (it needs the device current).
void start() {
  nccl::choose_device();
  nccl::init_comm();
}

constexpr DeviceHooks kNcclHooks{.start = start, .finish = nccl::finalize_comm, .abort = nccl::abort_comm};

bool wants_info(const std::vector<char*>& args) {
  for (size_t i = 1; i < args.size(); ++i)
    if (!std::strcmp(args[i], "--help") || !std::strcmp(args[i], "-h") || !std::strcmp(args[i], "--version"))
      return true;
  return false;
}

}  // namespace

int run_nccl_main(int argc, char** argv, const rt::ModelInfo& info) {
  std::vector<char*> rest;
  if (const int rc = cu::take_cuda_flags(argc, argv, rest)) return rc;
  const bool info_only = wants_info(rest);
  if (cu::options().device_given && !info_only) {
    // Each rank takes its own device (nccl_comm.h); one --device for every rank would put them on one.
    std::fprintf(stderr, "%s: error: --device: a collective binary's ranks choose their devices (local rank modulo "
                 "the host's device count; docs/distributed.md); set CUDA_VISIBLE_DEVICES per host instead\n",
                 argv[0]);
    return 2;
  }
  // Without a GPU, before joining the MPI job: each rank exits 77 (skipped) alike.
  if (!info_only)
    if (const int rc = cu::check_cuda_device(argv[0])) return rc;
  rest.push_back(nullptr);
  const int rc = run_coll_main(static_cast<int>(rest.size()) - 1, rest.data(), info, &kNcclHooks);
  if (info_only) {
    for (char* a : rest)
      if (a && (!std::strcmp(a, "--help") || !std::strcmp(a, "-h"))) {
        cu::print_cuda_help();
        std::printf("  (--device is refused here: each rank takes local rank modulo the device count)\n");
        break;
      }
  } else if (cu::options().stats) {
    cu::print_cuda_stats();
  }
  return rc;
}

}  // namespace fluidc::coll
