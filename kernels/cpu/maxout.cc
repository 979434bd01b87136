// kernels/cpu/maxout.cc - maxout (the max of each run of `groups` channels) and its gradient.
#include <limits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/shuffle.h"
#include "kernels/shuffle.h"

namespace fluidc::kernels {

using namespace detail;
using shapes::MaxoutGeom;

void maxout(const Tensor& x, Tensor& out, const MaxoutAttrs& a) {
  require_init("maxout", "X", x);
  MaxoutGeom g;
  Shape os;
  require_rule("maxout", shapes::maxout_geom(x.shape(), a, g, os));
  OutBuf ob(&out, Slot::kOut0, &out == &x);
  visit_float("maxout", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ob.get().resize(os, x.dtype());
    const T* xp = x.data<T>();
    T* y = ob.get().data<T>();
    const int64_t oc = g.c / g.groups;
    for (int64_t o = 0; o < g.outer; ++o)
      for (int64_t c = 0; c < oc; ++c)
        for (int64_t i = 0; i < g.inner; ++i) {
          T m = std::numeric_limits<T>::lowest();
          for (int64_t k = 0; k < g.groups; ++k) {
            const T v = xp[(o * g.c + c * g.groups + k) * g.inner + i];
            m = v > m ? v : m;
          }
          y[(o * oc + c) * g.inner + i] = m;
        }
  });
  ob.finish();
}

void maxout_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const MaxoutAttrs& a) {
  if (!x_grad) return;
  constexpr const char* op = "maxout_grad";
  require_init(op, "X", x);
  require_init(op, "Out", out);
  require_init(op, "Out@GRAD", out_grad);
  MaxoutGeom g;
  Shape os;
  require_rule(op, shapes::maxout_geom(x.shape(), a, g, os));
  if (out.shape() != os) rt::fail(fmt::format("{}: Out has shape {} but X {} gives {}", op, out.shape().str(),
                                              x.shape().str(), os.str()));
  require_same_shape(op, "Out", out, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out", out);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  OutBuf ob(x_grad, Slot::kOut0, aliases(x_grad, {&x, &out, &out_grad}));
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ob.get().resize(x.shape(), x.dtype());
    const T* xp = x.data<T>();
    const T* yp = out.data<T>();
    const T* dy = out_grad.data<T>();
    T* dx = ob.get().data<T>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i) dx[i] = T(0);
    const int64_t oc = g.c / g.groups;
    for (int64_t o = 0; o < g.outer; ++o)
      for (int64_t c = 0; c < oc; ++c)
        for (int64_t i = 0; i < g.inner; ++i) {
          const int64_t at = (o * oc + c) * g.inner + i;
          for (int64_t k = 0; k < g.groups; ++k) {  // the first element equal to the max takes it
            const int64_t xi = (o * g.c + c * g.groups + k) * g.inner + i;
            if (xp[xi] == yp[at]) {
              dx[xi] = dy[at];
              break;
            }
          }
        }
  });
  ob.finish();
}

}  // namespace fluidc::kernels
