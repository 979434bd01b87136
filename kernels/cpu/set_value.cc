// kernels/cpu/set_value.cc - set_value and set_value_grad: writing and reading back a strided region.
#include <array>

#include "kernels/cpu/attr_tensors.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/set_value.h"
#include "kernels/shapes/set_value.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

/// The region in effect (attributes or run-time lists) and, for each input
/// dim, the value's element stride (0 where broadcast or decreased). Fixed
/// arrays: a step allocates nothing.
struct Geometry {
  shapes::SetValueRegion r;
  int64_t value_stride[Shape::kMaxRank] = {};
};

void load_bounds(const char* op, const char* role, const std::vector<int64_t>& attr, const Tensor* const* list,
                 int num, size_t axes, std::array<int64_t, Shape::kMaxRank>& buf, std::span<const int64_t>& out) {
  if (num == 0) {
    out = std::span<const int64_t>(attr);
    return;
  }
  if (static_cast<size_t>(num) != axes || axes > buf.size())
    rt::fail(fmt::format("{}: {} has {} tensors for {} axes", op, role, num, axes));
  for (int k = 0; k < num; ++k) buf[k] = int_list_entry(op, role, list, k);
  out = std::span<const int64_t>(buf.data(), static_cast<size_t>(num));
}

void geometry(const char* op, const Shape& in, const Shape& value, const Tensor* const* starts_list, int num_starts,
              const Tensor* const* ends_list, int num_ends, const Tensor* const* steps_list, int num_steps,
              const SetValueAttrs& a, Geometry& g) {
  std::array<int64_t, Shape::kMaxRank> sb{}, eb{}, tb{};
  std::span<const int64_t> starts, ends, steps;
  load_bounds(op, "StartsTensorList", a.starts, starts_list, num_starts, a.axes.size(), sb, starts);
  load_bounds(op, "EndsTensorList", a.ends, ends_list, num_ends, a.axes.size(), eb, ends);
  load_bounds(op, "StepsTensorList", a.steps, steps_list, num_steps, a.axes.size(), tb, steps);
  require_rule(op, shapes::set_value_region(in, a, starts, ends, steps, g.r));
  int64_t assign_stride[Shape::kMaxRank] = {};
  require_rule(op, shapes::set_value_broadcast(value, g.r.assign, assign_stride));
  for (int d = 0; d < in.rank; ++d)
    g.value_stride[d] = g.r.assign_dim[d] < 0 ? 0 : assign_stride[g.r.assign_dim[d]];
}

/// f(input offset, value offset) for every element of the region, in
/// row-major order of the region.
template <class F>
void for_region(const Shape& in, const Geometry& g, F&& f) {
  const int rank = in.rank;
  if (g.r.count.numel() == 0) return;
  int64_t in_stride[Shape::kMaxRank];
  int64_t st = 1;
  for (int d = rank - 1; d >= 0; --d) in_stride[d] = st, st *= in.d[d];
  int64_t idx[Shape::kMaxRank] = {};
  int64_t in_off = 0, v_off = 0;
  for (int d = 0; d < rank; ++d) in_off += g.r.start[d] * in_stride[d];
  const int64_t total = g.r.count.numel();
  for (int64_t k = 0; k < total; ++k) {
    f(in_off, v_off);
    for (int d = rank - 1; d >= 0; --d) {  // next element: odometer over the region
      in_off += g.r.step[d] * in_stride[d];
      v_off += g.value_stride[d];
      if (++idx[d] < g.r.count.d[d]) break;
      in_off -= g.r.count.d[d] * g.r.step[d] * in_stride[d];
      v_off -= g.r.count.d[d] * g.value_stride[d];
      idx[d] = 0;
    }
  }
}

Shape attr_value_shape(const char* op, const SetValueAttrs& a, int64_t num_values) {
  Shape s;
  if (a.shape.size() > static_cast<size_t>(Shape::kMaxRank))
    rt::fail(fmt::format("{}: shape has {} dims, more than {}", op, a.shape.size(), Shape::kMaxRank));
  for (int64_t d : a.shape) {
    if (d < 0) rt::fail(fmt::format("{}: shape has a negative dim {}", op, d));
    s.d[s.rank++] = d;
  }
  if (s.numel() != num_values)
    rt::fail(fmt::format("{}: shape {} holds {} values but {} are given", op, s.str(), s.numel(), num_values));
  return s;
}

}  // namespace

void set_value(const Tensor& input, const Tensor* value_tensor, const Tensor* const* starts_list, int num_starts,
               const Tensor* const* ends_list, int num_ends, const Tensor* const* steps_list, int num_steps,
               Tensor& out, const SetValueAttrs& attrs, const double* values, int64_t num_values) {
  constexpr const char* op = "set_value";
  require_init(op, "Input", input);
  Shape vshape;
  if (value_tensor) {
    require_init(op, "ValueTensor", *value_tensor);
    require_same_dtype(op, "Input", input, "ValueTensor", *value_tensor);
    vshape = value_tensor->shape();
  } else {
    vshape = attr_value_shape(op, attrs, num_values);
  }
  Geometry g;
  geometry(op, input.shape(), vshape, starts_list, num_starts, ends_list, num_ends, steps_list, num_steps, attrs, g);
  // The value may be Out itself (x[...] = x[...] written in place): read it first.
  Tensor& v_copy = scratch(Slot::kTmp0);
  const Tensor* v = value_tensor;
  if (value_tensor && value_tensor == &out) {
    v_copy.copy_from(*value_tensor);
    v = &v_copy;
  }
  if (&out != &input) out.copy_from(input);
  visit_all(op, "Input", input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out.data<T>();
    if (v) {
      const T* src = v->data<T>();
      for_region(input.shape(), g, [&](int64_t i, int64_t j) { o[i] = src[j]; });
    } else {
      for_region(input.shape(), g, [&](int64_t i, int64_t j) { o[i] = static_cast<T>(values[j]); });
    }
  });
}

void set_value_grad(const Tensor& out_grad, const Tensor* value_tensor, const Tensor* const* starts_list,
                    int num_starts, const Tensor* const* ends_list, int num_ends, const Tensor* const* steps_list,
                    int num_steps, Tensor* input_grad, Tensor* value_grad, const SetValueAttrs& attrs) {
  constexpr const char* op = "set_value_grad";
  require_init(op, "Out@GRAD", out_grad);
  if (value_grad && !value_tensor) rt::fail("set_value_grad: ValueTensor@GRAD is wanted but ValueTensor is absent");
  // Only the value's dims matter here; without a ValueTensor the region is
  // checked against a single broadcast element.
  const Shape vshape = value_tensor ? value_tensor->shape() : Shape{};
  Geometry g;
  geometry(op, out_grad.shape(), vshape, starts_list, num_starts, ends_list, num_ends, steps_list, num_steps, attrs,
           g);
  visit_numeric(op, "Out@GRAD", out_grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* dout = out_grad.data<T>();
    if (value_grad) {  // before Input@GRAD, which may be Out@GRAD itself
      value_grad->resize(vshape, out_grad.dtype());
      T* dv = value_grad->data<T>();
      std::fill(dv, dv + value_grad->numel(), T(0));
      for_region(out_grad.shape(), g, [&](int64_t i, int64_t j) { dv[j] += dout[i]; });
    }
    if (input_grad) {
      if (input_grad != &out_grad) input_grad->copy_from(out_grad);
      T* din = input_grad->data<T>();
      for_region(out_grad.shape(), g, [&](int64_t i, int64_t) { din[i] = T(0); });
    }
  });
}

}  // namespace fluidc::kernels
