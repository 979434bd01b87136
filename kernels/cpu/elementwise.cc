// kernels/cpu/elementwise.cc - elementwise add/sub/mul/div/max/min/...: one broadcast driver, one scalar functor per op.
#include "kernels/elementwise.h"

#include <cmath>

#include <type_traits>

#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/rows_f32.h"
#include "kernels/pointwise.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// Integer division by zero is undefined behaviour in C++; Paddle reports it
// as an error, and so do we. Floating division follows IEEE (inf/nan).
template <class T> T checked_div(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) rt::fail("elementwise_div: integer division by zero");
  }
  return a / b;
}

// ---- forward functors: Out = f(X, Y) --------------------------------------
// add, sub, mul and max share theirs with fused loops (kernels/pointwise.h).
struct DivFn { template <class T> static T f(T a, T b) { return checked_div(a, b); } };
// Paddle's mod takes the divisor's sign, like Python's %.
struct ModFn {
  template <class T> static T f(T a, T b) {
    T r;
    if constexpr (std::is_integral_v<T>) {
      if (b == 0) rt::fail("elementwise_mod: integer division by zero");
      r = a % b;
    } else {
      r = std::fmod(a, b);
    }
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
};

// Python's floor division: truncation, one lower when the signs differ and
// the division is inexact. Floats take floor(a / b).
struct FloorDivFn {
  template <class T> static T f(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      if (b == 0) rt::fail("elementwise_floordiv: integer division by zero");
      const T q = a / b;
      return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
    } else {
      return std::floor(a / b);
    }
  }
};
// Bitwise ops; on bool they are the logical ones.
struct AndFn { template <class T> static T f(T a, T b) { return static_cast<T>(a & b); } };
struct OrFn { template <class T> static T f(T a, T b) { return static_cast<T>(a | b); } };
struct XorFn { template <class T> static T f(T a, T b) { return static_cast<T>(a ^ b); } };

/// Calls f(T{}) for the dtypes the bitwise ops take.
template <class F> void visit_bits(const char* op, const char* role, DType t, F&& f) {
  switch (t) {
    case DType::kBool: f(bool{}); return;
    case DType::kUInt8: f(uint8_t{}); return;
    case DType::kInt8: f(int8_t{}); return;
    case DType::kInt16: f(int16_t{}); return;
    case DType::kInt32: f(int32_t{}); return;
    case DType::kInt64: f(int64_t{}); return;
    default: fail_dtype(op, role, t);
  }
}

/// The forward driver: aligns X and Y, then walks the output once. The inner
/// loops are specialised for the unit-stride and scalar-operand runs that
/// make up nearly all real programs, so the compiler can vectorise them.
/// kBits: the bitwise ops' dtypes instead of the numeric ones.
template <class Fn, bool kBits = false>
void binary(const char* op, const Tensor& x, const Tensor& y, Tensor& out, int axis) {
  require_init(op, "X", x);
  require_init(op, "Y", y);
  require_same_dtype(op, "X", x, "Y", y);
  Shape xa, ya, os;
  align_binary(op, x.shape(), y.shape(), axis, xa, ya, os);
  // Writing Out in place over an input of the same shape is safe (each
  // element is read before it is written); over an input of another shape
  // the resize would destroy it, so go through scratch.
  const bool bad_alias = (&out == &x && x.shape() != os) || (&out == &y && y.shape() != os);
  OutBuf buf(&out, Slot::kOut0, bad_alias);
  Tensor& o = buf.get();
  o.resize(os, x.dtype());
  auto body = [&](auto tag) {
    using T = decltype(tag);
    StridedSpace<3> s = binary_space(xa, ya, os);
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    T* po = o.data<T>();
    for_each_run(s, [&](const int64_t* off, int64_t n, const int64_t* st) {
      const T* a = px + off[0];
      const T* b = py + off[1];
      T* c = po + off[2];
      if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
        for (int64_t i = 0; i < n; ++i) c[i] = Fn::f(a[i], b[i]);
      } else if (st[0] == 1 && st[1] == 0 && st[2] == 1) {
        const T bv = *b;
        for (int64_t i = 0; i < n; ++i) c[i] = Fn::f(a[i], bv);
      } else if (st[0] == 0 && st[1] == 1 && st[2] == 1) {
        const T av = *a;
        for (int64_t i = 0; i < n; ++i) c[i] = Fn::f(av, b[i]);
      } else {
        for (int64_t i = 0; i < n; ++i) c[i * st[2]] = Fn::f(a[i * st[0]], b[i * st[1]]);
      }
    });
  };
  if constexpr (kBits) visit_bits(op, "X", x.dtype(), body);
  else visit_numeric(op, "X", x.dtype(), body);
  buf.finish();
}

// ---- gradient functors: (x, y, out, dout) -> dX or dY element ------------
struct AddGrad {
  template <class T> static T dx(T, T, T, T d) { return d; }
  template <class T> static T dy(T, T, T, T d) { return d; }
};
struct SubGrad {
  template <class T> static T dx(T, T, T, T d) { return d; }
  template <class T> static T dy(T, T, T, T d) { return -d; }
};
struct MulGrad {
  template <class T> static T dx(T, T y, T, T d) { return d * y; }
  template <class T> static T dy(T x, T, T, T d) { return d * x; }
};
// d(x^y)/dx = y x^(y-1), d(x^y)/dy = log(x) x^y; integers (no gradient in
// practice) stay in their type.
struct PowGrad {
  template <class T> static T dx(T x, T y, T, T d) {
    return static_cast<T>(d * y * pw::ElementwisePow::f<T>(x, static_cast<T>(y - 1)));
  }
  template <class T> static T dy(T x, T y, T, T d) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(d * std::log(static_cast<double>(x)) * pw::ElementwisePow::f<T>(x, y));
    else
      return d * std::log(x) * std::pow(x, y);
  }
};
// The comparison picks which operand takes Out@GRAD (Paddle's tie rules,
// kernels/elementwise.h); the other gets 0.
template <class T> bool nan_of(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}
struct MaxGrad {
  template <class T> static T dx(T x, T y, T, T d) { return x > y ? d : T(0); }
  template <class T> static T dy(T x, T y, T, T d) { return x > y ? T(0) : d; }
};
struct MinGrad {
  template <class T> static T dx(T x, T y, T, T d) { return x < y ? d : T(0); }
  template <class T> static T dy(T x, T y, T, T d) { return x < y ? T(0) : d; }
};
struct FMaxGrad {
  template <class T> static T dx(T x, T y, T, T d) { return x >= y || nan_of(y) ? d : T(0); }
  template <class T> static T dy(T x, T y, T, T d) { return x >= y || nan_of(y) ? T(0) : d; }
};
struct FMinGrad {
  template <class T> static T dx(T x, T y, T, T d) { return x <= y || nan_of(y) ? d : T(0); }
  template <class T> static T dy(T x, T y, T, T d) { return x <= y || nan_of(y) ? T(0) : d; }
};
struct HeavisideGrad {
  template <class T> static T dx(T, T, T, T) { return T(0); }
  template <class T> static T dy(T x, T, T, T d) { return x == T(0) ? d : T(0); }
};
struct DivGrad {
  template <class T> static T dx(T, T y, T, T d) { return checked_div(d, y); }
  template <class T> static T dy(T, T y, T o, T d) { return checked_div(-d * o, y); }
};

/// Computes one input gradient. Walks the output index space with operands
/// X, Y, Out, Out@GRAD and the target; when the target operand was not
/// broadcast each element is written once, otherwise contributions are
/// summed in a wide accumulator and narrowed at the end.
template <class T, bool kForY, class G>
void grad_one(const Shape& os, const Shape& xa, const Shape& ya, const T* x, const T* y,
              const T* out, const T* dout, Tensor& dst) {
  const Shape& ta = kForY ? ya : xa;
  bool direct = true;
  for (int i = 0; i < os.rank; ++i)
    if (ta.d[i] != os.d[i]) direct = false;
  StridedSpace<4> s;  // x, y, out/dout (same layout), target
  s.rank = os.rank;
  for (int i = 0; i < os.rank; ++i) s.dims[i] = os.d[i];
  broadcast_strides(xa, s.strides[0]);
  broadcast_strides(ya, s.strides[1]);
  broadcast_strides(os, s.strides[2]);
  broadcast_strides(ta, s.strides[3]);
  simplify(s);
  auto value = [](T xv, T yv, T ov, T dv) {
    if constexpr (kForY) return G::template dy<T>(xv, yv, ov, dv);
    else return G::template dx<T>(xv, yv, ov, dv);
  };
  if (direct) {
    T* t = dst.data<T>();
    for_each_run(s, [&](const int64_t* off, int64_t n, const int64_t* st) {
      for (int64_t i = 0; i < n; ++i)
        t[off[3] + i * st[3]] = value(x[off[0] + i * st[0]], y[off[1] + i * st[1]],
                                      out[off[2] + i * st[2]], dout[off[2] + i * st[2]]);
    });
    return;
  }
  using A = Acc<T>;
  Tensor& acc = scratch(Slot::kAcc);
  acc.resize(Shape{dst.numel()}, DTypeOf<A>::value);
  acc.zero();
  A* pa = acc.data<A>();
  for_each_run(s, [&](const int64_t* off, int64_t n, const int64_t* st) {
    for (int64_t i = 0; i < n; ++i)
      pa[off[3] + i * st[3]] += static_cast<A>(value(x[off[0] + i * st[0]], y[off[1] + i * st[1]],
                                                     out[off[2] + i * st[2]], dout[off[2] + i * st[2]]));
  });
  T* t = dst.data<T>();
  for (int64_t i = 0, n = dst.numel(); i < n; ++i) t[i] = static_cast<T>(pa[i]);
}

/// elementwise_add_grad in fp32 when X is Out's shape and Y spans a run of
/// Out's dims (a bias, per channel or per feature): X@GRAD is Out@GRAD
/// copied, Y@GRAD its sums over the other dims (bias_grad_f32), not the
/// general loop's strided walk with one accumulator per element of Y.
/// Returns false for any other layout. dx and dy are the final buffers.
bool add_grad_bias_f32(const Shape& os, const Shape& xa, const Shape& ya, const float* dout, Tensor* dx, Tensor* dy) {
  if (xa != os) return false;
  int first = -1, last = -1;
  for (int i = 0; i < os.rank; ++i)
    if (ya.d[i] != 1) {
      if (ya.d[i] != os.d[i]) return false;
      if (first < 0) first = i;
      last = i;
    }
  if (first < 0) return false;  // a scalar Y: rare, the general loop
  for (int i = first; i <= last; ++i)
    if (ya.d[i] != os.d[i]) return false;
  const int64_t pre = prod(os, 0, first), mid = prod(os, first, last + 1), post = prod(os, last + 1, os.rank);
  // X@GRAD over Out@GRAD's bytes (the memory plan's in-place pair): nothing to copy.
  if (dx && dx->data<float>() != dout) std::copy(dout, dout + os.numel(), dx->data<float>());
  if (dy) {
    double* acc = zeroed(Slot::kAcc, mid);
    bias_grad_f32(pre, mid, post, dout, acc);
    float* py = dy->data<float>();
    for (int64_t m = 0; m < mid; ++m) py[m] = static_cast<float>(acc[m]);
  }
  return true;
}

/// The gradient driver shared by all four ops. `out` is only read by div.
template <class G>
void binary_grad(const char* op, const Tensor& x, const Tensor& y, const Tensor* out,
                 const Tensor& dout, Tensor* dx, Tensor* dy, int axis) {
  require_init(op, "X", x);
  require_init(op, "Y", y);
  require_init(op, "Out@GRAD", dout);
  require_same_dtype(op, "X", x, "Y", y);
  require_same_dtype(op, "X", x, "Out@GRAD", dout);
  Shape xa, ya, os;
  align_binary(op, x.shape(), y.shape(), axis, xa, ya, os);
  if (dout.shape() != os)
    rt::fail(fmt::format("{}: Out@GRAD has shape {} but X {} and Y {} broadcast to {}", op,
                         dout.shape().str(), x.shape().str(), y.shape().str(), os.str()));
  if (out) {
    require_init(op, "Out", *out);
    require_same_dtype(op, "X", x, "Out", *out);
    if (out->shape() != os)
      rt::fail(fmt::format("{}: Out has shape {} but X {} and Y {} broadcast to {}", op,
                           out->shape().str(), x.shape().str(), y.shape().str(), os.str()));
  }
  if (dx && dx == dy) rt::fail(fmt::format("{}: X@GRAD and Y@GRAD are the same tensor", op));
  // Both gradients read every input, so an output aliasing any input (or the
  // other gradient) is produced in scratch and copied at the end.
  OutBuf bx(dx, Slot::kOut0, aliases(dx, {&x, &y, out, &dout}));
  OutBuf by(dy, Slot::kOut1, aliases(dy, {&x, &y, out, &dout, dx}));
  visit_numeric(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<G, AddGrad> && std::is_same_v<T, float>) {
      if (bx.wanted()) bx.get().resize(x.shape(), x.dtype());
      if (by.wanted()) by.get().resize(y.shape(), y.dtype());
      if (add_grad_bias_f32(os, xa, ya, dout.data<T>(), bx.wanted() ? &bx.get() : nullptr,
                            by.wanted() ? &by.get() : nullptr))
        return;
    }
    const T* po = out ? out->data<T>() : dout.data<T>();
    if (bx.wanted()) {
      bx.get().resize(x.shape(), x.dtype());
      grad_one<T, false, G>(os, xa, ya, x.data<T>(), y.data<T>(), po, dout.data<T>(), bx.get());
    }
    if (by.wanted()) {
      by.get().resize(y.shape(), y.dtype());
      grad_one<T, true, G>(os, xa, ya, x.data<T>(), y.data<T>(), po, dout.data<T>(), by.get());
    }
  });
  bx.finish();
  by.finish();
}

}  // namespace

void elementwise_add(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs) {
  binary<pw::Add>("elementwise_add", x, y, out, attrs.axis);
}
void elementwise_sub(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs) {
  binary<pw::Sub>("elementwise_sub", x, y, out, attrs.axis);
}
void elementwise_mul(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs) {
  binary<pw::Mul>("elementwise_mul", x, y, out, attrs.axis);
}
void elementwise_max(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs) {
  binary<pw::Max>("elementwise_max", x, y, out, attrs.axis);
}
void elementwise_min(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs) {
  binary<pw::Min>("elementwise_min", x, y, out, attrs.axis);
}
void elementwise_fmax(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs) {
  binary<pw::FMax>("elementwise_fmax", x, y, out, attrs.axis);
}
void elementwise_fmin(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs) {
  binary<pw::FMin>("elementwise_fmin", x, y, out, attrs.axis);
}
void elementwise_mod(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs) {
  binary<ModFn>("elementwise_mod", x, y, out, attrs.axis);
}
void elementwise_pow(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs) {
  binary<pw::ElementwisePow>("elementwise_pow", x, y, out, attrs.axis);
}
void elementwise_floordiv(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs) {
  binary<FloorDivFn>("elementwise_floordiv", x, y, out, attrs.axis);
}
void bitwise_and(const Tensor& x, const Tensor& y, Tensor& out) { binary<AndFn, true>("bitwise_and", x, y, out, -1); }
void bitwise_or(const Tensor& x, const Tensor& y, Tensor& out) { binary<OrFn, true>("bitwise_or", x, y, out, -1); }
void bitwise_xor(const Tensor& x, const Tensor& y, Tensor& out) { binary<XorFn, true>("bitwise_xor", x, y, out, -1); }
void bitwise_not(const Tensor& x, Tensor& out) {
  require_init("bitwise_not", "X", x);
  // Same shape in and out: safe in place, element by element.
  if (&out != &x) out.resize(x.shape(), x.dtype());
  visit_bits("bitwise_not", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* a = x.data<T>();
    T* o = out.data<T>();
    const int64_t n = x.numel();
    if constexpr (std::is_same_v<T, bool>)
      for (int64_t i = 0; i < n; ++i) o[i] = !a[i];
    else
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(~a[i]);
  });
}
void elementwise_div(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs) {
  binary<DivFn>("elementwise_div", x, y, out, attrs.axis);
}

void elementwise_add_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                          Tensor* y_grad, const ElementwiseAttrs& attrs) {
  binary_grad<AddGrad>("elementwise_add_grad", x, y, nullptr, out_grad, x_grad, y_grad, attrs.axis);
}
void elementwise_sub_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                          Tensor* y_grad, const ElementwiseAttrs& attrs) {
  binary_grad<SubGrad>("elementwise_sub_grad", x, y, nullptr, out_grad, x_grad, y_grad, attrs.axis);
}
void elementwise_mul_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                          Tensor* y_grad, const ElementwiseAttrs& attrs) {
  binary_grad<MulGrad>("elementwise_mul_grad", x, y, nullptr, out_grad, x_grad, y_grad, attrs.axis);
}
void elementwise_pow_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                          Tensor* y_grad, const ElementwiseAttrs& attrs) {
  binary_grad<PowGrad>("elementwise_pow_grad", x, y, nullptr, out_grad, x_grad, y_grad, attrs.axis);
}
void elementwise_max_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                          Tensor* y_grad, const ElementwiseAttrs& attrs) {
  binary_grad<MaxGrad>("elementwise_max_grad", x, y, nullptr, out_grad, x_grad, y_grad, attrs.axis);
}
void elementwise_min_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                          Tensor* y_grad, const ElementwiseAttrs& attrs) {
  binary_grad<MinGrad>("elementwise_min_grad", x, y, nullptr, out_grad, x_grad, y_grad, attrs.axis);
}
void elementwise_fmax_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                           Tensor* y_grad, const ElementwiseAttrs& attrs) {
  binary_grad<FMaxGrad>("elementwise_fmax_grad", x, y, nullptr, out_grad, x_grad, y_grad, attrs.axis);
}
void elementwise_heaviside(const Tensor& x, const Tensor& y, Tensor& out, const ElementwiseAttrs& attrs) {
  binary<pw::Heaviside>("elementwise_heaviside", x, y, out, attrs.axis);
}
void elementwise_heaviside_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                                Tensor* y_grad, const ElementwiseAttrs& attrs) {
  binary_grad<HeavisideGrad>("elementwise_heaviside_grad", x, y, nullptr, out_grad, x_grad, y_grad, attrs.axis);
}
void elementwise_fmin_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, Tensor* x_grad,
                           Tensor* y_grad, const ElementwiseAttrs& attrs) {
  binary_grad<FMinGrad>("elementwise_fmin_grad", x, y, nullptr, out_grad, x_grad, y_grad, attrs.axis);
}
void elementwise_div_grad(const Tensor& x, const Tensor& y, const Tensor& out, const Tensor& out_grad,
                          Tensor* x_grad, Tensor* y_grad, const ElementwiseAttrs& attrs) {
  binary_grad<DivGrad>("elementwise_div_grad", x, y, &out, out_grad, x_grad, y_grad, attrs.axis);
}

}  // namespace fluidc::kernels
