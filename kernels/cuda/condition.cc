// kernels/cuda/condition.cc - a DTensor condition copied to the host, then tested by the CPU rule.
#include "kernels/cuda/condition.h"

#include "kernels/control.h"
#include "runtime/cuda/host_ops.h"

namespace fluidc::kernels {

bool condition_holds(const cu::DTensor& cond, const char* op) {
  cu::DTensor& c = const_cast<cu::DTensor&>(cond);  // the host mirror is a cache of the device value
  cu::to_host(c);
  return condition_holds(static_cast<const rt::Tensor&>(cond), op);
}

}  // namespace fluidc::kernels
