// kernels/cpu/lod_split_merge.cc - split_lod_tensor / merge_lod_tensor: Fluid IfElse's batch split by a row mask, and its merge.
#include <cstring>

#include "kernels/cpu/kernel_util.h"
#include "kernels/sequence.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

// Mask entry i as a bool (bool or integer masks), after checking its size against `rows`.
const Tensor& checked_mask(const char* op, const Tensor& x, const Tensor& mask, const LodSplitAttrs& a) {
  require_init(op, "Mask", mask);
  if (x.lod())
    rt::fail(fmt::format("{}: splitting whole sequences (X with a LoD) is not supported by fluidc yet; "
                         "only a dense X split by rows", op));
  if (a.level != 0) rt::fail(fmt::format("{}: level {} needs a LoD X; a dense X splits at level 0", op, a.level));
  if (x.rank() == 0 || mask.numel() != x.dim(0))
    rt::fail(fmt::format("{}: Mask {} must hold one entry per row of X {}", op, mask.shape().str(), x.shape().str()));
  if (mask.dtype() != DType::kBool && mask.dtype() != DType::kInt32 && mask.dtype() != DType::kInt64)
    fail_dtype(op, "Mask", mask.dtype());
  return mask;
}

bool mask_at(const Tensor& m, int64_t i) {
  switch (m.dtype()) {
    case DType::kBool: return m.data<bool>()[i];
    case DType::kInt32: return m.data<int32_t>()[i] != 0;
    default: return m.data<int64_t>()[i] != 0;
  }
}

}  // namespace

void split_lod_tensor(const Tensor& x, const Tensor& mask, Tensor& out_true, Tensor& out_false,
                      const LodSplitAttrs& a) {
  require_init("split_lod_tensor", "X", x);
  checked_mask("split_lod_tensor", x, mask, a);
  if (&out_true == &x || &out_false == &x || &out_true == &mask || &out_false == &mask || &out_true == &out_false)
    rt::fail("split_lod_tensor: OutTrue and OutFalse must be distinct from each other and from the inputs");
  int64_t n_true = 0;
  for (int64_t i = 0; i < x.dim(0); ++i) n_true += mask_at(mask, i);
  Shape st = x.shape(), sf = x.shape();
  st[0] = n_true;
  sf[0] = x.dim(0) - n_true;
  out_true.resize(st, x.dtype());
  out_false.resize(sf, x.dtype());
  const size_t row = row_bytes(x);
  const char* src = static_cast<const char*>(x.raw());
  char* t = static_cast<char*>(out_true.raw());
  char* f = static_cast<char*>(out_false.raw());
  for (int64_t i = 0; i < x.dim(0); ++i) {
    char*& dst = mask_at(mask, i) ? t : f;
    if (row) std::memcpy(dst, src + i * row, row);
    dst += row;
  }
}

void merge_lod_tensor(const Tensor& x, const Tensor& mask, const Tensor& in_true, const Tensor& in_false, Tensor& out,
                      const LodSplitAttrs& a) {
  require_init("merge_lod_tensor", "X", x);
  checked_mask("merge_lod_tensor", x, mask, a);
  int64_t n_true = 0;
  const int64_t rows = x.dim(0);
  for (int64_t i = 0; i < rows; ++i) n_true += mask_at(mask, i);
  // Only a branch some row takes must hold a value (the other's block did not run).
  const Tensor* model = nullptr;
  for (auto [t, n, name] : {std::tuple{&in_true, n_true, "InTrue"}, std::tuple{&in_false, rows - n_true, "InFalse"}}) {
    if (n == 0) continue;
    if (!t->initialized() || t->rank() == 0 || t->dim(0) != n)
      rt::fail(fmt::format("merge_lod_tensor: {} must hold the {} rows Mask gives it, got {}", name, n,
                           t->initialized() ? t->shape().str() : "no value"));
    if (model && (t->dtype() != model->dtype() || row_bytes(*t) != row_bytes(*model)))
      rt::fail(fmt::format("merge_lod_tensor: InTrue {} and InFalse {} differ beyond the row axis",
                           in_true.shape().str(), in_false.shape().str()));
    if (!model) model = t;
  }
  if (&out == &in_true || &out == &in_false || &out == &mask)
    rt::fail("merge_lod_tensor: Out may not be one of the branches or the mask");
  Shape s = model ? model->shape() : x.shape();
  s[0] = rows;
  out.resize(s, model ? model->dtype() : x.dtype());
  const size_t row = model ? row_bytes(*model) : 0;
  const char* t = static_cast<const char*>(in_true.raw());
  const char* f = static_cast<const char*>(in_false.raw());
  char* dst = static_cast<char*>(out.raw());
  for (int64_t i = 0; i < rows; ++i, dst += row) {
    const char*& src = mask_at(mask, i) ? t : f;
    if (row) std::memcpy(dst, src, row);
    src += row;
  }
}

}  // namespace fluidc::kernels
