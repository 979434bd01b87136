// runtime/cuda/host_ops.cc - the copies around an op that runs on the host in a CUDA binary.
#include "runtime/cuda/host_ops.h"

#include <cuda_runtime.h>

#include "runtime/error.h"

namespace fluidc::cu {

bool float32_or_unset(const DTensor& t) { return !t.dinit() || t.ddtype() == rt::DType::kFP32; }

void download_one(DTensor& t) { t.download_async(); }

void host_wait() {
  Context& ctx = current();
  // CudaModel::run captures only a step that did no host work, so this is a
  // broken invariant, not a user error.
  if (ctx.capturing) throw rt::Error("internal: an op ran on the host during CUDA graph capture");
  ctx.host_work = true;
  ++stats().host_ops;
  check(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize (before an op on the host)");
}

void upload_one(DTensor& t) { t.upload(); }

}  // namespace fluidc::cu
