// kernels/cpu/lod_reset.cc - lod_reset: X's values under a new LoD (Y's, Y's values, or target_lod; replaced or appended), and its gradient.
#include <string>

#include "kernels/cpu/sequence_legacy_util.h"
#include "kernels/sequence_legacy.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

// The one level lod_reset sets when Y carries no LoD: Y's values, else target_lod.
std::vector<uint64_t> new_level(const Tensor* y, const LodResetAttrs& a) {
  std::vector<int64_t> v;
  if (y) {
    require_init("lod_reset", "Y", *y);
    if (y->dtype() == DType::kInt32)
      v.assign(y->data<int32_t>(), y->data<int32_t>() + y->numel());
    else if (y->dtype() == DType::kInt64)
      v.assign(y->data<int64_t>(), y->data<int64_t>() + y->numel());
    else
      rt::fail(fmt::format("lod_reset: a Y without a LoD gives the offsets as its values, so it must be int32 "
                           "(or int64), got {}", rt::dtype_name(y->dtype())));
  } else {
    v.assign(a.target_lod.begin(), a.target_lod.end());
  }
  if (v.empty()) rt::fail("lod_reset: needs the new offsets: Y, or a non-empty target_lod");
  std::vector<uint64_t> level;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] < 0 || (i == 0 && v[i] != 0) || (i && v[i] < v[i - 1]))
      rt::fail(fmt::format("lod_reset: the new offsets must start at 0 and never decrease; entry {} is {}", i, v[i]));
    level.push_back(static_cast<uint64_t>(v[i]));
  }
  return level;
}

}  // namespace

void lod_reset(const Tensor& x, const Tensor* y, Tensor& out, const LodResetAttrs& a) {
  require_init("lod_reset", "X", x);
  if (x.rank() == 0) rt::fail("lod_reset: X needs a row axis");
  rt::Lod lod;
  if (y && y->lod()) {
    lod = *y->lod();  // Paddle takes Y's whole LoD and ignores append then
  } else {
    std::vector<uint64_t> level = new_level(y, a);
    if (a.append && x.lod()) lod = *x.lod();
    lod.push_back(std::move(level));
  }
  // Paddle checks only that the last level ends at X's rows; an appended
  // level that does not fit X's own levels is refused here too, since every
  // sequence op after this one would read past the offsets.
  rt::check_lod(lod, x.dim(0), "lod_reset: the new LoD");
  if (&out != &x) out.copy_from(x);
  out.mutable_lod() = std::move(lod);
}

void lod_reset_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad, const LodResetAttrs&) {
  if (!x_grad) return;
  require_init("lod_reset_grad", "Out@GRAD", out_grad);
  if (out_grad.numel() != x.numel())
    rt::fail(fmt::format("lod_reset_grad: Out@GRAD {} must have X {}'s values", out_grad.shape().str(),
                         x.shape().str()));
  if (x_grad != &out_grad) x_grad->copy_from(out_grad);
  x_grad->resize(x.shape());
}

}  // namespace fluidc::kernels
