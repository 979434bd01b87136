// kernels/cuda/layout.cc - slice, transpose2 (and gradients) on the device: strided copies of any dtype.
#include <cstdint>
#include <span>
#include <string>

#include "kernels/cuda/kernel_util.h"
#include "kernels/shapes/tensor_manip.h"
#include "kernels/shapes/transpose.h"

namespace fluidc::kernels::cuda {

using namespace util;

namespace {

void row_major_strides(const rt::Shape& s, int64_t* str) {
  int64_t step = 1;
  for (int d = s.rank - 1; d >= 0; --d) {
    str[d] = step;
    step *= s.d[d];
  }
}

// The slice's window in Input (the attributes' bounds: tensor bounds run on the host, op_list.h), the
// element offset of its first element and the walk over its elements with Input's strides.
struct Window {
  shapes::SliceWindow w;
  int64_t base = 0;
  dev::Strided walk;
};

Window window_of(const char* op, const rt::Shape& in, const SliceAttrs& a) {
  int64_t starts[rt::Shape::kMaxRank] = {}, ends[rt::Shape::kMaxRank] = {};
  if (a.starts.size() > static_cast<size_t>(rt::Shape::kMaxRank) || a.ends.size() > static_cast<size_t>(rt::Shape::kMaxRank))
    rt::fail(std::string(op) + ": more bounds than dims");
  for (size_t k = 0; k < a.starts.size(); ++k) starts[k] = a.starts[k];
  for (size_t k = 0; k < a.ends.size(); ++k) ends[k] = a.ends[k];
  Window r;
  require_rule(op, shapes::slice_window(in, a, std::span<const int64_t>(starts, a.starts.size()),
                                        std::span<const int64_t>(ends, a.ends.size()), r.w));
  r.walk.rank = in.rank;
  row_major_strides(in, r.walk.a);
  for (int d = 0; d < in.rank; ++d) {
    r.walk.dims[d] = r.w.size.d[d];
    r.base += r.w.begin[d] * r.walk.a[d];
  }
  return r;
}

const unsigned char* bytes(const DTensor& t) { return static_cast<const unsigned char*>(t.dev().raw()); }

}  // namespace

void slice(const DTensor& input, const DTensor* starts_tensor, const DTensor* ends_tensor,
           const DTensor* const* starts_list, int num_starts, const DTensor* const* ends_list, int num_ends,
           DTensor& out, const SliceAttrs& attrs) {
  const char* op = "slice";
  require_dev(op, "Input", input);
  if (starts_tensor || ends_tensor || num_starts > 0 || num_ends > 0)
    rt::fail("slice: tensor bounds have no CUDA kernel (they run on the host)");
  if (same_storage(out, input)) rt::fail("slice: Out must not share storage with Input");
  const Window w = window_of(op, input.dshape(), attrs);
  rt::Shape s;
  require_rule(op, shapes::slice_out_shape(w.w.size, attrs.decrease_axis, s));
  out.dresize(s, input.ddtype());
  const size_t elem = rt::dtype_size(input.ddtype());
  dev::strided_copy(bytes(input) + w.base * elem, out.dptr<unsigned char>(), static_cast<int>(elem), s.numel(),
                    w.walk, false, stream());
  cu::launched(op);
}

void slice_grad(const DTensor& input, const DTensor* starts_tensor, const DTensor* ends_tensor,
                const DTensor* const* starts_list, int num_starts, const DTensor* const* ends_list, int num_ends,
                const DTensor& out_grad, DTensor* input_grad, const SliceAttrs& attrs) {
  const char* op = "slice_grad";
  if (!input_grad) return;
  require_dev(op, "Out@GRAD", out_grad);
  if (starts_tensor || ends_tensor || num_starts > 0 || num_ends > 0)
    rt::fail("slice_grad: tensor bounds have no CUDA kernel (they run on the host)");
  if (same_storage(*input_grad, out_grad)) rt::fail("slice_grad: Input@GRAD must not share storage with Out@GRAD");
  const Window w = window_of(op, input.dshape(), attrs);
  if (w.w.size.numel() != out_grad.dnumel())
    rt::fail(std::string(op) + ": Out@GRAD " + out_grad.dshape().str() + " does not match the slice " + w.w.size.str());
  input_grad->dresize(input.dshape(), out_grad.ddtype());
  const size_t elem = rt::dtype_size(out_grad.ddtype());
  if (input_grad->dnumel())
    cu::check(cudaMemsetAsync(input_grad->dptr<unsigned char>(), 0, input_grad->dnumel() * elem, stream()),
              "slice_grad (cudaMemsetAsync)");
  dev::strided_copy(bytes(out_grad), input_grad->dptr<unsigned char>() + w.base * elem, static_cast<int>(elem),
                    out_grad.dnumel(), w.walk, true, stream());
  cu::launched(op);
}

void transpose2(const DTensor& x, DTensor& out, DTensor* x_shape, const TransposeAttrs& attrs) {
  const char* op = "transpose2";
  require_dev(op, "X", x);
  rt::Shape s;
  require_rule(op, shapes::transpose_shape(x.dshape(), attrs, s));
  if (same_storage(out, x)) rt::fail("transpose2: Out must not share storage with X");
  set_x_shape(x, x_shape);
  out.dresize(s, x.ddtype());
  // Out's dim k walks X's dim axis[k].
  int64_t str[rt::Shape::kMaxRank];
  row_major_strides(x.dshape(), str);
  dev::Strided w;
  w.rank = s.rank;
  for (int k = 0; k < s.rank; ++k) {
    const int ax = attrs.axis[k] < 0 ? attrs.axis[k] + s.rank : attrs.axis[k];
    w.dims[k] = s.d[k];
    w.a[k] = str[ax];
  }
  dev::strided_copy(bytes(x), out.dptr<unsigned char>(), static_cast<int>(rt::dtype_size(x.ddtype())), s.numel(), w,
                    false, stream());
  cu::launched(op);
}

void transpose2_grad(const DTensor& x_shape, const DTensor& out_grad, DTensor* x_grad, const TransposeAttrs& attrs) {
  const char* op = "transpose2_grad";
  if (!x_grad) return;
  require_dev(op, "XShape", x_shape);
  require_dev(op, "Out@GRAD", out_grad);
  if (same_storage(*x_grad, out_grad)) rt::fail("transpose2_grad: X@GRAD must not share storage with Out@GRAD");
  const rt::Shape xs = dims_of_x_shape(op, x_shape);
  rt::Shape s;
  require_rule(op, shapes::transpose_shape(xs, attrs, s));
  if (s != out_grad.dshape())
    rt::fail(std::string(op) + ": Out@GRAD " + out_grad.dshape().str() + " is not X " + xs.str() + " transposed");
  x_grad->dresize(xs, out_grad.ddtype());
  // X@GRAD's dim axis[k] walks Out@GRAD's dim k.
  int64_t str[rt::Shape::kMaxRank];
  row_major_strides(s, str);
  dev::Strided w;
  w.rank = xs.rank;
  for (int d = 0; d < xs.rank; ++d) w.dims[d] = xs.d[d];
  for (int k = 0; k < s.rank; ++k) w.a[attrs.axis[k] < 0 ? attrs.axis[k] + s.rank : attrs.axis[k]] = str[k];
  dev::strided_copy(bytes(out_grad), x_grad->dptr<unsigned char>(), static_cast<int>(rt::dtype_size(out_grad.ddtype())),
                    xs.numel(), w, false, stream());
  cu::launched(op);
}

}  // namespace fluidc::kernels::cuda
