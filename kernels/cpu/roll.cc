// kernels/cpu/roll.cc - roll and its gradient: rows of the last rolled layout copied as two rotated runs.
#include <cstring>

#include "kernels/cpu/attr_tensors.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/tensor_manip_misc.h"
#include "kernels/tensor_manip_misc.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

// Out = X rolled by the shifts, or back (the gradient).
void roll_impl(const char* op, const char* role, const Tensor& x, const Tensor* shifts_tensor, Tensor& out,
               const RollAttrs& a, bool back) {
  require_init(op, role, x);
  const std::vector<int64_t> shifts = shifts_tensor ? int_values(op, "ShiftsTensor", *shifts_tensor) : a.shifts;
  bool flat = false;
  int64_t shift[Shape::kMaxRank];
  require_rule(op, shapes::roll_plan(x.shape(), shifts, a.axis, shift, flat, back));
  // A flat roll is a roll of the one-dim view.
  const Shape s = flat ? Shape{x.numel()} : x.shape();
  OutBuf buf(&out, Slot::kOut0, &out == &x);
  Tensor& o = buf.get();
  o.resize(x.shape(), x.dtype());
  const size_t es = rt::dtype_size(x.dtype());
  const char* src = x.data<char>();
  char* dst = o.data<char>();
  if (s.rank == 0 || x.numel() == 0) {
    std::memcpy(dst, src, x.nbytes());
    buf.finish();
    return;
  }
  const int last = s.rank - 1;
  const int64_t row = s.d[last], rows = x.numel() / row, k = shift[last];
  int64_t stride[Shape::kMaxRank];  // in rows, for the dims before the last
  int64_t st = 1;
  for (int d = last - 1; d >= 0; --d) stride[d] = st, st *= s.d[d];
  int64_t idx[Shape::kMaxRank] = {};
  for (int64_t r = 0; r < rows; ++r) {
    // Output row r (index idx) comes from input row idx - shift in each dim.
    int64_t from = 0;
    for (int d = 0; d < last; ++d) {
      int64_t i = idx[d] - shift[d];
      if (i < 0) i += s.d[d];
      from += i * stride[d];
    }
    const char* in = src + from * row * es;
    char* o_row = dst + r * row * es;
    // Out[j] = In[j - k]: the last k inputs go first, then the rest.
    std::memcpy(o_row, in + (row - k) * es, static_cast<size_t>(k) * es);
    std::memcpy(o_row + k * es, in, static_cast<size_t>(row - k) * es);
    for (int d = last - 1; d >= 0; --d) {  // next output row
      if (++idx[d] < s.d[d]) break;
      idx[d] = 0;
    }
  }
  buf.finish();
}

}  // namespace

void roll(const Tensor& x, const Tensor* shifts_tensor, Tensor& out, const RollAttrs& attrs) {
  roll_impl("roll", "X", x, shifts_tensor, out, attrs, false);
}

void roll_grad(const Tensor& x, const Tensor* shifts_tensor, const Tensor& out_grad, Tensor* x_grad,
               const RollAttrs& attrs) {
  constexpr const char* op = "roll_grad";
  if (!x_grad) return;
  require_init(op, "X", x);
  require_init(op, "Out@GRAD", out_grad);
  require_same_shape(op, "X", x, "Out@GRAD", out_grad);
  roll_impl(op, "Out@GRAD", out_grad, shifts_tensor, *x_grad, attrs, true);
}

}  // namespace fluidc::kernels
