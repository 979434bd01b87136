// kernels/cpu/reduce.cc - reductions over dim sets as strided walks into a wide accumulator, and sum.
#include "kernels/reduce.h"

#include <vector>

#include "kernels/cpu/reduce_walk.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

using shapes::ReducePlan;

/// acc[kept index] += x over every element of x (acc zeroed by the caller).
template <class T, class A>
void sum_into(const T* x, const Shape& xs, const Shape& kept, A* acc) {
  StridedSpace<2> s = x_and_kept_space(xs, kept);
  for_each_run(s, [&](const int64_t* off, int64_t n, const int64_t* st) {
    const T* px = x + off[0];
    if (st[1] == 0) {  // the run folds into one accumulator: keep it in a register
      A local = 0;
      for (int64_t i = 0; i < n; ++i) local += static_cast<A>(px[i * st[0]]);
      acc[off[1]] += local;
    } else {
      A* pa = acc + off[1];
      for (int64_t i = 0; i < n; ++i) pa[i * st[1]] += static_cast<A>(px[i * st[0]]);
    }
  });
}

/// dx[i] = fn(dout[kept index of i]) over X's shape.
template <class T, class G, class Fn>
void broadcast_back(const G* dout, const Shape& xs, const Shape& kept, T* dx, Fn fn) {
  StridedSpace<2> s = x_and_kept_space(xs, kept);
  for_each_run(s, [&](const int64_t* off, int64_t n, const int64_t* st) {
    for (int64_t i = 0; i < n; ++i) dx[off[0] + i * st[0]] = fn(dout[off[1] + i * st[1]]);
  });
}

/// Shared by reduce_sum and reduce_mean: sums X over the plan in the wide
/// type W, then writes Out (dtype `odt`) as fin(sum).
template <class Fin>
void reduce_common(const char* op, const Tensor& x, Tensor& out, const ReducePlan& p, DType odt,
                   bool allow_bool, Fin fin) {
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&x}));
  Tensor& o = buf.get();
  o.resize(p.out, odt);
  auto visit_in = [&](auto&& f) {
    if (allow_bool) visit_all(op, "X", x.dtype(), f);
    else visit_numeric(op, "X", x.dtype(), f);
  };
  visit_in([&](auto in_tag) {
    using TI = decltype(in_tag);
    visit_numeric(op, "Out", odt, [&](auto out_tag) {
      using TO = decltype(out_tag);
      // Wide accumulator: double when either side is floating, else int64.
      using W = std::conditional_t<std::is_floating_point_v<TI> || std::is_floating_point_v<TO>, double,
                                   int64_t>;
      Tensor& acc = scratch(Slot::kAcc);
      acc.resize(Shape{p.out.numel()}, DTypeOf<W>::value);
      acc.zero();
      sum_into<TI, W>(x.data<TI>(), x.shape(), p.kept, acc.data<W>());
      const W* pa = acc.data<W>();
      TO* po = o.data<TO>();
      for (int64_t i = 0, n = p.out.numel(); i < n; ++i) po[i] = static_cast<TO>(fin(pa[i]));
    });
  });
  buf.finish();
}

/// Shared by the two reduce gradients: X@GRAD = scale(Out@GRAD) broadcast.
void reduce_grad_common(const char* op, const Tensor& x, const Tensor& dout, Tensor* dx,
                        const ReduceAttrs& attrs, bool mean) {
  if (!dx) return;
  require_init(op, "X", x);
  require_init(op, "Out@GRAD", dout);
  const ReducePlan p = plan_reduce(op, x.shape(), attrs);
  if (dout.shape() != p.out && dout.shape() != p.kept)
    rt::fail(fmt::format("{}: Out@GRAD has shape {} but reducing X {} gives {}", op, dout.shape().str(),
                         x.shape().str(), p.out.str()));
  OutBuf buf(dx, Slot::kOut0, aliases(dx, {&x, &dout}));
  Tensor& g = buf.get();
  g.resize(x.shape(), x.dtype());
  const Shape xs = x.shape();
  visit_numeric(op, "X", x.dtype(), [&](auto x_tag) {
    using T = decltype(x_tag);
    visit_numeric(op, "Out@GRAD", dout.dtype(), [&](auto g_tag) {
      using G = decltype(g_tag);
      const T cnt = static_cast<T>(p.count);
      broadcast_back<T, G>(dout.data<G>(), xs, p.kept, g.data<T>(), [&](G v) {
        return mean ? static_cast<T>(static_cast<T>(v) / cnt) : static_cast<T>(v);
      });
    });
  });
  buf.finish();
}

}  // namespace

void squared_l2_norm(const Tensor& x, Tensor& out) {
  require_init("squared_l2_norm", "X", x);
  visit_float("squared_l2_norm", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    Acc<T> s = 0;
    for (int64_t i = 0, n = x.numel(); i < n; ++i) s += static_cast<Acc<T>>(px[i]) * px[i];
    out.resize(Shape{1}, x.dtype());
    out.data<T>()[0] = static_cast<T>(s);
  });
}

void mean(const Tensor& x, Tensor& out) {
  const char* op = "mean";
  require_init(op, "X", x);
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    const int64_t n = x.numel();
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += px[i];
    const T m = static_cast<T>(s / static_cast<double>(n));
    out.resize(Shape{}, x.dtype());  // after the read: out may be x
    out.data<T>()[0] = m;
  });
}

void mean_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  const char* op = "mean_grad";
  if (!x_grad) return;
  require_init(op, "X", x);
  require_init(op, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  if (out_grad.numel() != 1)
    rt::fail(fmt::format("{}: Out@GRAD must have one element, has shape {}", op, out_grad.shape().str()));
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T v = out_grad.data<T>()[0] / static_cast<T>(x.numel());
    x_grad->resize(x.shape(), x.dtype());  // after every read of X and Out@GRAD
    T* pd = x_grad->data<T>();
    for (int64_t i = 0, n = x_grad->numel(); i < n; ++i) pd[i] = v;
  });
}

void reduce_sum(const Tensor& x, Tensor& out, const ReduceAttrs& attrs) {
  const char* op = "reduce_sum";
  require_init(op, "X", x);
  const ReducePlan p = plan_reduce(op, x.shape(), attrs);
  const int code = shapes::reduce_sum_dtype(static_cast<int>(x.dtype()), attrs);
  if (!rt::dtype_is_valid(code)) rt::fail(fmt::format("{}: out_dtype {} is not a dtype code", op, code));
  const DType odt = static_cast<DType>(code);
  reduce_common(op, x, out, p, odt, true, [](auto s) { return s; });
}

void reduce_mean(const Tensor& x, Tensor& out, const ReduceAttrs& attrs) {
  const char* op = "reduce_mean";
  require_init(op, "X", x);
  const ReducePlan p = plan_reduce(op, x.shape(), attrs);
  const int64_t cnt = p.count;
  reduce_common(op, x, out, p, x.dtype(), false, [cnt](auto s) { return s / static_cast<decltype(s)>(cnt); });
}

void reduce_sum_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const ReduceAttrs& attrs) {
  reduce_grad_common("reduce_sum_grad", x, out_grad, x_grad, attrs, false);
}

void reduce_mean_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const ReduceAttrs& attrs) {
  reduce_grad_common("reduce_mean_grad", x, out_grad, x_grad, attrs, true);
}

void sum(const Tensor* const* xs, int n, Tensor& out) {
  const char* op = "sum";
  // The inputs that hold values; thread_local so steady-state calls do not allocate.
  thread_local std::vector<const Tensor*> ins;
  ins.clear();
  for (int i = 0; i < n; ++i) {
    if (!xs[i]) rt::fail(fmt::format("{}: input X[{}] is null", op, i));
    if (xs[i]->initialized()) ins.push_back(xs[i]);
  }
  if (ins.empty()) rt::fail(fmt::format("{}: none of the {} inputs is initialized", op, n));
  const Tensor& first = *ins[0];
  for (size_t i = 1; i < ins.size(); ++i) {
    require_same_dtype(op, "X[0]", first, "another X", *ins[i]);
    if (ins[i]->shape() != first.shape())
      rt::fail(fmt::format("{}: inputs differ in shape: {} vs {}", op, first.shape().str(),
                           ins[i]->shape().str()));
  }
  const Shape shape = first.shape();
  const DType dt = first.dtype();
  out.resize(shape, dt);  // same shape and dtype as any aliased input: data kept
  visit_numeric(op, "X", dt, [&](auto tag) {
    using T = decltype(tag);
    // Blocked so each block of Out is written only after every input's
    // block was read: Out may alias any input, and the block stays in L1.
    constexpr int64_t kBlock = 256;
    T buf[kBlock];
    T* po = out.data<T>();
    const int64_t total = shape.numel();
    for (int64_t b = 0; b < total; b += kBlock) {
      const int64_t len = total - b < kBlock ? total - b : kBlock;
      const T* p0 = ins[0]->data<T>() + b;
      for (int64_t i = 0; i < len; ++i) buf[i] = p0[i];
      for (size_t k = 1; k < ins.size(); ++k) {
        const T* pk = ins[k]->data<T>() + b;
        for (int64_t i = 0; i < len; ++i) buf[i] += pk[i];
      }
      for (int64_t i = 0; i < len; ++i) po[b + i] = buf[i];
    }
  });
}

}  // namespace fluidc::kernels
