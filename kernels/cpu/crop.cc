// kernels/cpu/crop.cc - crop and crop_tensor (a box of X) and their gradients (the box written back into zeros).
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/cpu/attr_tensors.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/vision_legacy2.h"
#include "kernels/vision_legacy2.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

using detail::int_list_values;
using detail::int_values;

// Calls f(x_offset, box_offset) in elements for each innermost row of the
// box `box` at `off` inside a tensor of dims `x`.
template <class F>
void box_rows(const Shape& x, const Shape& box, const std::vector<int64_t>& off, F f) {
  const int r = x.rank;
  if (box.numel() == 0) return;
  std::vector<int64_t> stride(static_cast<size_t>(r), 1), idx(static_cast<size_t>(r), 0);
  for (int i = r - 2; i >= 0; --i) stride[i] = stride[i + 1] * x.d[i + 1];
  const int64_t rows = box.numel() / box.d[r - 1];
  for (int64_t k = 0; k < rows; ++k) {
    int64_t at = off[r - 1];
    for (int i = 0; i < r - 1; ++i) at += (idx[i] + off[i]) * stride[i];
    f(at, k * box.d[r - 1]);
    for (int i = r - 2; i >= 0 && ++idx[i] == box.d[i]; --i) idx[i] = 0;
  }
}

void copy_box(const char* op, const Tensor& x, const std::vector<int64_t>& off, const Shape& box, Tensor& out) {
  require_rule(op, shapes::crop_box(x.shape(), off, box));
  if (&out == &x) rt::fail(fmt::format("{}: Out must not be X", op));
  out.resize(box, x.dtype());
  if (x.rank() == 0) return std::memcpy(out.raw(), x.raw(), out.nbytes()), void();
  const size_t es = rt::dtype_size(x.dtype()), row = static_cast<size_t>(box.d[box.rank - 1]) * es;
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(out.raw());
  box_rows(x.shape(), box, off, [&](int64_t xi, int64_t bi) { std::memcpy(dst + bi * es, src + xi * es, row); });
}

// X@GRAD = zeros of X's shape with Out@GRAD in the box.
void pad_back(const char* op, const Tensor& x, const std::vector<int64_t>& off, const Tensor& out_grad,
              Tensor* x_grad) {
  if (!x_grad) return;
  require_init(op, "X", x);
  require_init(op, "Out@GRAD", out_grad);
  require_same_dtype(op, "X", x, "Out@GRAD", out_grad);
  require_rule(op, shapes::crop_box(x.shape(), off, out_grad.shape()));
  OutBuf buf(x_grad, Slot::kOut0, aliases(x_grad, {&out_grad}));
  Tensor& dx = buf.get();
  dx.resize(x.shape(), x.dtype());
  visit_float(op, "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    dx.zero();
    if (x.rank() == 0) return void(dx.data<T>()[0] = out_grad.data<T>()[0]);
    const int64_t row = out_grad.dim(out_grad.rank() - 1);
    const T* g = out_grad.data<T>();
    T* d = dx.data<T>();
    box_rows(x.shape(), out_grad.shape(), off,
             [&](int64_t xi, int64_t bi) { std::copy(g + bi, g + bi + row, d + xi); });
  });
  buf.finish();
}

std::vector<int64_t> widen(const std::vector<int>& v) { return {v.begin(), v.end()}; }

// crop's offsets: the Offsets tensor (int32, one per dim) or the attribute.
std::vector<int64_t> crop_offsets(const char* op, const Tensor* offsets, const CropAttrs& a) {
  if (!offsets) return widen(a.offsets);
  if (!a.offsets.empty()) rt::fail(fmt::format("{}: give offsets as the Offsets input or the attribute, not both", op));
  if (offsets->rank() != 1) rt::fail(fmt::format("{}: Offsets {} must be 1-D", op, offsets->shape().str()));
  return int_values(op, "Offsets", *offsets);
}

// crop's box: Y's dims, else the shape attribute with a -1 first dim taking X's.
Shape crop_shape(const char* op, const Tensor& x, const Tensor* y, const CropAttrs& a) {
  if (y) {
    require_init(op, "Y", *y);
    return y->shape();
  }
  if (static_cast<int>(a.shape.size()) != x.rank())
    rt::fail(fmt::format("{}: shape has {} values, X {} has rank {}", op, a.shape.size(), x.shape().str(), x.rank()));
  Shape s = x.shape();
  for (int i = 0; i < x.rank(); ++i) s.d[i] = i == 0 && a.shape[i] == -1 ? x.dim(0) : a.shape[i];
  return s;
}

std::vector<int64_t> tensor_offsets(const char* op, const Tensor* offsets, const Tensor* const* list, int n,
                                    const std::vector<int>& attr) {
  if (n > 0) return int_list_values(op, "OffsetsTensor", list, n);
  if (offsets) return int_values(op, "Offsets", *offsets);
  return widen(attr);
}

}  // namespace

void crop(const Tensor& x, const Tensor* y, const Tensor* offsets, Tensor& out, const CropAttrs& attrs) {
  require_init("crop", "X", x);
  copy_box("crop", x, crop_offsets("crop", offsets, attrs), crop_shape("crop", x, y, attrs), out);
}

// The box is Out@GRAD's shape (Paddle's crop_grad takes no Y).
void crop_grad(const Tensor& x, const Tensor* offsets, const Tensor& out_grad, Tensor* x_grad, const CropAttrs& attrs) {
  pad_back("crop_grad", x, crop_offsets("crop_grad", offsets, attrs), out_grad, x_grad);
}

void crop_tensor(const Tensor& x, const Tensor* shape, const Tensor* const* shape_tensor, int num_shape_tensor,
                 const Tensor* offsets, const Tensor* const* offsets_tensor, int num_offsets_tensor, Tensor& out,
                 const CropTensorAttrs& attrs) {
  constexpr const char* kOp = "crop_tensor";
  require_init(kOp, "X", x);
  const std::vector<int64_t> off = tensor_offsets(kOp, offsets, offsets_tensor, num_offsets_tensor, attrs.offsets);
  std::vector<int64_t> sv = num_shape_tensor > 0 ? int_list_values(kOp, "ShapeTensor", shape_tensor, num_shape_tensor)
                            : shape                ? int_values(kOp, "Shape", *shape)
                                                   : widen(attrs.shape);
  if (static_cast<int>(off.size()) != x.rank())
    rt::fail(fmt::format("{}: {} offsets for X {} of rank {}", kOp, off.size(), x.shape().str(), x.rank()));
  Shape box;
  require_rule(kOp, shapes::crop_tensor_shape(x.shape(), sv, off, box));
  copy_box(kOp, x, off, box, out);
}

void crop_tensor_grad(const Tensor& x, const Tensor* offsets, const Tensor* const* offsets_tensor,
                      int num_offsets_tensor, const Tensor& out_grad, Tensor* x_grad, const CropTensorAttrs& attrs) {
  constexpr const char* kOp = "crop_tensor_grad";
  pad_back(kOp, x, tensor_offsets(kOp, offsets, offsets_tensor, num_offsets_tensor, attrs.offsets), out_grad, x_grad);
}

}  // namespace fluidc::kernels
