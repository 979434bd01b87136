// kernels/cpu/linspace.cc - linspace: evenly spaced values between two run-time ends.
#include "kernels/cpu/attr_tensors.h"
#include "kernels/index_misc.h"

namespace fluidc::kernels {

using namespace detail;

void linspace(const Tensor& start, const Tensor& stop, const Tensor& num, Tensor& out, const LinspaceAttrs& attrs) {
  const char* op = "linspace";
  if (!rt::dtype_is_valid(attrs.dtype)) rt::fail(fmt::format("{}: dtype {} is not a dtype code", op, attrs.dtype));
  const double a = scalar_of(op, "Start", start), b = scalar_of(op, "Stop", stop);
  const int64_t n = int_at(op, "Num", num, 0);
  if (num.numel() != 1) rt::fail(fmt::format("{}: Num has {} values, needs 1", op, num.numel()));
  if (n < 1) rt::fail(fmt::format("{}: Num is {}; it must be at least 1", op, n));
  const DType dt = static_cast<DType>(attrs.dtype);
  visit_numeric(op, "Out", dt, [&](auto tag) {
    using T = decltype(tag);
    // The ends in Out's dtype first, their difference too, then a double
    // step: Paddle's order of operations, so integer ends truncate alike.
    const T lo = static_cast<T>(a), hi = static_cast<T>(b);
    out.resize(Shape{n}, dt);
    T* po = out.data<T>();
    if (n == 1) {
      po[0] = lo;
      return;
    }
    const double step = static_cast<double>(static_cast<T>(hi - lo)) / static_cast<double>(n - 1);
    const int64_t half = n / 2;
    for (int64_t i = 0; i < n; ++i)
      po[i] = i < half ? static_cast<T>(lo + step * static_cast<double>(i))
                       : static_cast<T>(hi - step * static_cast<double>(n - 1 - i));
  });
}

}  // namespace fluidc::kernels
