// kernels/cpu/isclose.cc - isclose and allclose (paddle.isclose / allclose) with Paddle's tolerance rule.
#include <cmath>

#include "kernels/compare.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/isclose.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// A tolerance: the one-element tensor when the program passes one, else the attribute's number.
double tolerance(const char* op, const char* name, const Tensor* t, const char* attr_name, const std::string& attr) {
  if (t) {
    require_init(op, name, *t);
    if (t->numel() != 1) rt::fail(fmt::format("{}: {} must hold one value, got {}", op, name, t->shape().str()));
    double v = 0;
    visit_float(op, name, t->dtype(), [&](auto tag) { v = static_cast<double>(t->data<decltype(tag)>()[0]); });
    return v;
  }
  double v = 0;
  require_rule(op, shapes::parse_tolerance(attr_name, attr, v));
  return v;
}

// Calls keep(i, close) for each element. Paddle's test, in its order: a NaN on either side is close only
// when both are NaN and equal_nan; else equal values, or |a - b| <= atol + rtol |b| with the right side
// formed in double and rounded to T, or the two sides within 1e-15 of each other.
template <class Keep>
void each_close(const char* op, const Tensor& input, const Tensor& other, const Tensor* rtol, const Tensor* atol,
                const IscloseAttrs& attrs, Keep keep) {
  require_init(op, "Input", input);
  require_init(op, "Other", other);
  require_same_dtype(op, "Input", input, "Other", other);
  require_rule(op, shapes::isclose_check(input.shape(), other.shape()));
  const double rt = tolerance(op, "Rtol", rtol, "rtol", attrs.rtol), at = tolerance(op, "Atol", atol, "atol", attrs.atol);
  visit_float(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* a = input.data<T>();
    const T* b = other.data<T>();
    const int64_t n = input.numel();
    for (int64_t i = 0; i < n; ++i) {
      const T x = a[i], y = b[i];
      bool close;
      if (std::isnan(x) || std::isnan(y)) {
        close = attrs.equal_nan && std::isnan(x) && std::isnan(y);
      } else {
        const T left = x > y ? x - y : y - x;
        const T right = static_cast<T>(at + (y > 0 ? rt * y : -rt * y));
        const T diff = left > right ? left - right : right - left;
        close = x == y || left <= right || diff <= static_cast<T>(1e-15);
      }
      keep(i, close);
    }
  });
}

}  // namespace

void isclose(const Tensor& input, const Tensor& other, const Tensor* rtol, const Tensor* atol, Tensor& out,
             const IscloseAttrs& attrs) {
  // Out is bool: when it is one of the inputs, write aside first.
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&input, &other, rtol, atol}));
  Tensor& o = buf.get();
  if (input.initialized()) o.resize(input.shape(), DType::kBool);
  each_close("isclose", input, other, rtol, atol, attrs, [&](int64_t i, bool c) { o.data<bool>()[i] = c; });
  buf.finish();
}

void allclose(const Tensor& input, const Tensor& other, const Tensor* rtol, const Tensor* atol, Tensor& out,
              const IscloseAttrs& attrs) {
  bool all = true;
  each_close("allclose", input, other, rtol, atol, attrs, [&](int64_t, bool c) { all = all && c; });
  out.resize(Shape{}, DType::kBool);
  out.data<bool>()[0] = all;
}

}  // namespace fluidc::kernels
