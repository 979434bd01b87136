// kernels/cpu/sequence_scatter.cc - sequence_scatter (row i of X gets its Ids sequence's Updates added at those columns) and its gradient.
#include "kernels/cpu/index_util.h"
#include "kernels/cpu/sequence_legacy_util.h"
#include "kernels/sequence_legacy.h"

namespace fluidc::kernels {
namespace {

using namespace detail;

// Where each update lands in a row-major [rows, slice] view of X: row (its
// sequence of Ids) * slice + its id. Ids and their bound are checked.
struct ScatterPlan {
  const int64_t* ids = nullptr;
  const std::vector<uint64_t>* off = nullptr;
  int64_t slice = 0;
};

ScatterPlan plan(const char* op, const Shape& x, const Tensor& ids, const Tensor& updates) {
  require_init(op, "Updates", updates);
  if (x.rank < 1) rt::fail(fmt::format("{}: X must have a row axis, got {}", op, x.str()));
  ScatterPlan p;
  p.off = &one_lod_level(ids, op, "Ids");
  if (static_cast<int64_t>(p.off->size()) - 1 > x.d[0])
    rt::fail(fmt::format("{}: Ids has {} sequences but X only {} rows", op, p.off->size() - 1, x.d[0]));
  if (updates.numel() != ids.numel())
    rt::fail(fmt::format("{}: Updates {} must hold one value per id (Ids {})", op, updates.shape().str(),
                         ids.shape().str()));
  p.slice = x.d[0] ? x.numel() / x.d[0] : 0;
  p.ids = checked_indices(op, "Ids", ids, p.slice);
  return p;
}

}  // namespace

void sequence_scatter(const Tensor& x, const Tensor& ids, const Tensor& updates, Tensor& out) {
  require_init("sequence_scatter", "X", x);
  require_same_dtype("sequence_scatter", "Updates", updates, "X", x);
  const ScatterPlan p = plan("sequence_scatter", x.shape(), ids, updates);
  // In place when Out is X (each value is read once, then added to).
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&ids, &updates}));
  Tensor& o = buf.get();
  if (&o != &x) o.copy_from(x);
  visit_numeric("sequence_scatter", "X", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* od = o.data<T>();
    const T* u = updates.data<T>();
    const std::vector<uint64_t>& off = *p.off;
    for (size_t i = 0; i + 1 < off.size(); ++i)
      for (uint64_t j = off[i]; j < off[i + 1]; ++j) od[static_cast<int64_t>(i) * p.slice + p.ids[j]] += u[j];
  });
  buf.finish();
  out.share_lod(x);
}

void sequence_scatter_grad(const Tensor& ids, const Tensor& updates, const Tensor& out_grad, Tensor* x_grad,
                           Tensor* updates_grad) {
  require_init("sequence_scatter_grad", "Out@GRAD", out_grad);
  const ScatterPlan p = plan("sequence_scatter_grad", out_grad.shape(), ids, updates);
  if (updates_grad) {
    if (aliases(updates_grad, {&ids, &updates, &out_grad}))
      rt::fail("sequence_scatter_grad: Updates@GRAD may not alias an input");
    updates_grad->resize(updates.shape(), out_grad.dtype());
    visit_float("sequence_scatter_grad", "Out@GRAD", out_grad.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* dy = out_grad.data<T>();
      T* du = updates_grad->data<T>();
      const std::vector<uint64_t>& off = *p.off;
      for (size_t i = 0; i + 1 < off.size(); ++i)
        for (uint64_t j = off[i]; j < off[i + 1]; ++j) du[j] = dy[static_cast<int64_t>(i) * p.slice + p.ids[j]];
    });
    updates_grad->clear_lod();
  }
  if (x_grad) {
    visit_float("sequence_scatter_grad", "Out@GRAD", out_grad.dtype(), [](auto) {});
    if (x_grad != &out_grad) x_grad->copy_from(out_grad);
    x_grad->clear_lod();
  }
}

}  // namespace fluidc::kernels
