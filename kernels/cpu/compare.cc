// kernels/cpu/compare.cc - comparison and logical kernels: one broadcasting driver, a functor per op.
#include "kernels/compare.h"

#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/kernel_util.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

struct Less { template <class T> static bool f(T a, T b) { return a < b; } };
struct LessEq { template <class T> static bool f(T a, T b) { return a <= b; } };
struct Greater { template <class T> static bool f(T a, T b) { return a > b; } };
struct GreaterEq { template <class T> static bool f(T a, T b) { return a >= b; } };
struct Eq { template <class T> static bool f(T a, T b) { return a == b; } };
struct NotEq { template <class T> static bool f(T a, T b) { return a != b; } };
struct And { template <class T> static bool f(T a, T b) { return a && b; } };
struct Or { template <class T> static bool f(T a, T b) { return a || b; } };
struct Xor { template <class T> static bool f(T a, T b) { return bool(a) != bool(b); } };

// Out (bool) = Fn(X, Y) over the broadcast of X and Y. Out may alias an
// input only when it has the output's shape and is itself bool.
template <class Fn>
void compare(const char* op, const Tensor& x, const Tensor& y, Tensor& out, int axis) {
  require_init(op, "X", x);
  require_init(op, "Y", y);
  require_same_dtype(op, "X", x, "Y", y);
  Shape xa, ya, os;
  align_binary(op, x.shape(), y.shape(), axis, xa, ya, os);
  const bool bad_alias = (&out == &x || &out == &y);
  OutBuf buf(&out, Slot::kOut0, bad_alias);
  Tensor& o = buf.get();
  o.resize(os, DType::kBool);
  visit_all(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    StridedSpace<3> s = binary_space(xa, ya, os);
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    bool* po = o.data<bool>();
    for_each_run(s, [&](const int64_t* off, int64_t n, const int64_t* st) {
      for (int64_t i = 0; i < n; ++i)
        po[off[2] + i * st[2]] = Fn::f(px[off[0] + i * st[0]], py[off[1] + i * st[1]]);
    });
  });
  buf.finish();
}

}  // namespace

void less_than(const Tensor& x, const Tensor& y, Tensor& out, const CompareAttrs& a) {
  compare<Less>("less_than", x, y, out, a.axis);
}
void less_equal(const Tensor& x, const Tensor& y, Tensor& out, const CompareAttrs& a) {
  compare<LessEq>("less_equal", x, y, out, a.axis);
}
void greater_than(const Tensor& x, const Tensor& y, Tensor& out, const CompareAttrs& a) {
  compare<Greater>("greater_than", x, y, out, a.axis);
}
void greater_equal(const Tensor& x, const Tensor& y, Tensor& out, const CompareAttrs& a) {
  compare<GreaterEq>("greater_equal", x, y, out, a.axis);
}
void equal(const Tensor& x, const Tensor& y, Tensor& out, const CompareAttrs& a) {
  compare<Eq>("equal", x, y, out, a.axis);
}
void not_equal(const Tensor& x, const Tensor& y, Tensor& out, const CompareAttrs& a) {
  compare<NotEq>("not_equal", x, y, out, a.axis);
}
void logical_and(const Tensor& x, const Tensor& y, Tensor& out) { compare<And>("logical_and", x, y, out, -1); }
void logical_or(const Tensor& x, const Tensor& y, Tensor& out) { compare<Or>("logical_or", x, y, out, -1); }
void logical_xor(const Tensor& x, const Tensor& y, Tensor& out) { compare<Xor>("logical_xor", x, y, out, -1); }

void logical_not(const Tensor& x, Tensor& out) {
  require_init("logical_not", "X", x);
  OutBuf buf(&out, Slot::kOut0, &out == &x);
  Tensor& o = buf.get();
  o.resize(x.shape(), DType::kBool);
  visit_all("logical_not", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    bool* po = o.data<bool>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i) po[i] = !px[i];
  });
  buf.finish();
}

}  // namespace fluidc::kernels
