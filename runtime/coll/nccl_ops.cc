// runtime/coll/nccl_ops.cc - c_allreduce_sum and c_broadcast of the CUDA target: NCCL on the device tensors, on the step's stream.
//
// The collectives run on the step's one stream (cu::current()), behind the
// kernels that wrote their inputs and ahead of those that read their
// outputs: the stream orders them, which is all c_sync_calc_stream and
// c_sync_comm_stream ask for (they emit no code). Each collective is then
// waited for on the host (nccl::wait: the timeout), so a step with one is
// never captured into a CUDA graph (a replayed graph would wait unbounded).
#include <fmt/format.h>

#include <cstdint>

#include "runtime/coll/nccl_comm.h"
#include "runtime/coll/nccl_ops.h"
#include "runtime/error.h"

namespace fluidc::coll {
namespace {

// The NCCL type of a dtype c_allreduce_sum adds; false for those it refuses.
bool sum_type(rt::DType t, ncclDataType_t& out) {
  switch (t) {
    case rt::DType::kFP32: out = ncclFloat32; return true;
    case rt::DType::kFP64: out = ncclFloat64; return true;
    case rt::DType::kInt32: out = ncclInt32; return true;
    case rt::DType::kInt64: out = ncclInt64; return true;
    default: return false;
  }
}

// The device storage of `t` to write (DTensor shows its device view read-only; dptr<T> would check the dtype).
void* device_ptr(cu::DTensor& t) { return const_cast<void*>(t.dev().raw()); }

// out takes x's device value unless it is x (the pass writes the ops in place).
void copy_into(const cu::DTensor& x, cu::DTensor& out, cudaStream_t s) {
  if (&x == &out) return;
  out.dresize(x.dshape(), x.ddtype());
  if (x.dev().nbytes())
    cu::check(cudaMemcpyAsync(device_ptr(out), x.dev().raw(), x.dev().nbytes(), cudaMemcpyDeviceToDevice, s),
              "cudaMemcpyAsync (device to device)");
}

// The step waited on the host: never captured into a graph (see the banner).
cudaStream_t collective_stream() {
  cu::Context& ctx = cu::current();
  ctx.host_work = true;
  return ctx.stream;
}

}  // namespace

void nccl_allreduce_sum(const cu::DTensor& x, cu::DTensor& out, int ring_id, int nranks) {
  check_job_size("c_allreduce_sum", nranks);
  if (!x.dinit()) rt::fail("c_allreduce_sum: X holds no value on the device");
  ncclDataType_t type;
  if (!sum_type(x.ddtype(), type))
    rt::fail(fmt::format("c_allreduce_sum: dtype {} is not supported on CUDA (fp32, fp64, int32 and int64 are)",
                         rt::dtype_name(x.ddtype())));
  cudaStream_t s = collective_stream();
  copy_into(x, out, s);
  const CallInfo call{"c_allreduce_sum", ring_id, out.dnumel()};
  {
    Bounded bound(call);  // the enqueue may block while NCCL connects to its peers (first use)
    void* p = device_ptr(out);
    nccl::check(ncclAllReduce(p, p, static_cast<size_t>(out.dnumel()), type, ncclSum, nccl::comm(), s),
                "ncclAllReduce (c_allreduce_sum)");
  }
  nccl::wait(s, call);
  first_allreduce_done();
}

void nccl_broadcast(const cu::DTensor& x, cu::DTensor& out, int root, int ring_id) {
  const CallInfo call{"c_broadcast", ring_id, root};
  if (comm_up() && comm_rank() == root && !x.dinit())
    rt::fail("c_broadcast: X holds no value on the device of the root rank");
  // The header (dtype and shape) on the host over MPI, as the CPU op sends it.
  const TensorHeader sent = broadcast_header(root, ring_id, x.dinit(), x.ddtype(), x.dshape());
  cudaStream_t s = collective_stream();
  if (comm_rank() == root) copy_into(x, out, s);
  else out.dresize(sent.shape, sent.dtype);
  {
    Bounded bound(call);
    void* p = device_ptr(out);
    nccl::check(ncclBroadcast(p, p, out.dev().nbytes(), ncclUint8, root, nccl::comm(), s), "ncclBroadcast (c_broadcast)");
  }
  nccl::wait(s, call);
}

}  // namespace fluidc::coll
