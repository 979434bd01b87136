// kernels/cpu/strided_slice.cc - strided_slice and its gradient as element copies with a signed step per dim (any dtype).
#include "kernels/strided_slice.h"

#include <cstring>

#include "kernels/cpu/attr_tensors.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/strided_slice.h"

namespace fluidc::kernels {

using namespace detail;
using shapes::StridedWindow;

namespace {

// The run-time bound tensors of one op (all optional).
struct Bounds {
  const Tensor* tensor[3];
  const Tensor* const* list[3];
  int num[3];
};

// The values in effect for one of starts/ends/strides, on the stack (no
// allocation per step): the tensor's, else the list's, else the attribute's.
struct Values {
  int64_t v[Shape::kMaxRank];
  size_t n = 0;
  std::span<const int64_t> span() const { return {v, n}; }
};

Values values_of(const char* op, const std::vector<int>& attr, const Tensor* tensor, const Tensor* const* list, int n,
                 const char* tensor_role, const char* list_role) {
  Values r;
  const int64_t count = tensor ? tensor->numel() : n > 0 ? n : static_cast<int64_t>(attr.size());
  if (count > Shape::kMaxRank)
    rt::fail(fmt::format("{}: {} bounds, more than a tensor's {} axes", op, count, Shape::kMaxRank));
  r.n = static_cast<size_t>(count);
  for (int64_t k = 0; k < count; ++k)
    r.v[k] = tensor  ? int_at(op, tensor_role, *tensor, k)
             : n > 0 ? int_list_entry(op, list_role, list, static_cast<int>(k))
                     : attr[k];
  return r;
}

StridedWindow window(const char* op, const Tensor& input, const StridedSliceAttrs& a, const Bounds& b) {
  require_init(op, "Input", input);
  const Values s = values_of(op, a.starts, b.tensor[0], b.list[0], b.num[0], "StartsTensor", "StartsTensorList");
  const Values e = values_of(op, a.ends, b.tensor[1], b.list[1], b.num[1], "EndsTensor", "EndsTensorList");
  const Values t = values_of(op, a.strides, b.tensor[2], b.list[2], b.num[2], "StridesTensor", "StridesTensorList");
  StridedWindow w;
  require_rule(op, shapes::strided_slice_window(input.shape(), a, s.span(), e.span(), t.span(), false, w));
  return w;
}

// Copies between the dense window (shape w.size) and the strided elements
// of `full`; to_full selects the direction.
void copy_strided(char* full, const Shape& fs, const StridedWindow& w, char* dense, size_t es, bool to_full) {
  const int r = fs.rank;
  const int64_t total = w.size.numel();
  if (total == 0) return;
  if (r == 0) {
    to_full ? std::memcpy(full, dense, es) : std::memcpy(dense, full, es);
    return;
  }
  int64_t stride[Shape::kMaxRank];
  stride[r - 1] = 1;
  for (int i = r - 2; i >= 0; --i) stride[i] = stride[i + 1] * fs.d[i + 1];
  const int64_t run = w.size.d[r - 1], step = w.step[r - 1];
  int64_t idx[Shape::kMaxRank] = {};
  for (int64_t done = 0; done < total; done += run) {
    int64_t off = 0;
    for (int i = 0; i < r; ++i) off += (w.first[i] + idx[i] * w.step[i]) * stride[i];
    char* d = dense + done * es;
    if (step == 1) {
      to_full ? std::memcpy(full + off * es, d, run * es) : std::memcpy(d, full + off * es, run * es);
    } else {
      for (int64_t j = 0; j < run; ++j) {
        char* f = full + (off + j * step) * es;
        to_full ? std::memcpy(f, d + j * es, es) : std::memcpy(d + j * es, f, es);
      }
    }
    for (int i = r - 2; i >= 0; --i) {
      if (++idx[i] < w.size.d[i]) break;
      idx[i] = 0;
    }
  }
}

}  // namespace

void strided_slice(const Tensor& input, const Tensor* starts_tensor, const Tensor* ends_tensor,
                   const Tensor* strides_tensor, const Tensor* const* starts_list, int num_starts,
                   const Tensor* const* ends_list, int num_ends, const Tensor* const* strides_list, int num_strides,
                   Tensor& out, const StridedSliceAttrs& a) {
  constexpr const char* op = "strided_slice";
  const StridedWindow w = window(op, input, a,
                                 {{starts_tensor, ends_tensor, strides_tensor},
                                  {starts_list, ends_list, strides_list},
                                  {num_starts, num_ends, num_strides}});
  Shape os;
  require_rule(op, shapes::strided_slice_out_shape(w.size, a.decrease_axis, os));
  OutBuf buf(&out, Slot::kOut0, &out == &input);
  Tensor& o = buf.get();
  o.resize(w.size, input.dtype());
  copy_strided(const_cast<char*>(static_cast<const char*>(input.raw())), input.shape(), w,
               static_cast<char*>(o.raw()), rt::dtype_size(input.dtype()), false);
  o.resize(os);
  buf.finish();
}

void strided_slice_grad(const Tensor& input, const Tensor* starts_tensor, const Tensor* ends_tensor,
                        const Tensor* strides_tensor, const Tensor* const* starts_list, int num_starts,
                        const Tensor* const* ends_list, int num_ends, const Tensor* const* strides_list,
                        int num_strides, const Tensor& out_grad, Tensor* input_grad, const StridedSliceAttrs& a) {
  if (!input_grad) return;
  constexpr const char* op = "strided_slice_grad";
  require_init(op, "Out@GRAD", out_grad);
  const StridedWindow w = window(op, input, a,
                                 {{starts_tensor, ends_tensor, strides_tensor},
                                  {starts_list, ends_list, strides_list},
                                  {num_starts, num_ends, num_strides}});
  if (w.size.numel() != out_grad.numel())
    rt::fail(fmt::format("{}: Out@GRAD {} does not match the slice {}", op, out_grad.shape().str(), w.size.str()));
  OutBuf buf(input_grad, Slot::kOut0, aliases(input_grad, {&input, &out_grad}));
  Tensor& g = buf.get();
  g.resize(input.shape(), out_grad.dtype());
  g.zero();
  copy_strided(static_cast<char*>(g.raw()), input.shape(), w,
               const_cast<char*>(static_cast<const char*>(out_grad.raw())), rt::dtype_size(out_grad.dtype()), true);
  buf.finish();
}

}  // namespace fluidc::kernels
