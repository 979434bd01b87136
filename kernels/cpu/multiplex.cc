// kernels/cpu/multiplex.cc - multiplex and its gradient: whole rows copied by the ids, any dtype.
#include <cstring>

#include "kernels/cpu/index_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/multiplex.h"

namespace fluidc::kernels {

using namespace detail;

namespace {

/// Ids must be [M, 1] (Paddle's rule) or [M], one per row of the rows' tensor `rows`.
void check_ids(const char* op, const Tensor& ids, const Tensor& rows, const char* rows_role) {
  require_init(op, "Ids", ids);
  require_init(op, rows_role, rows);
  const bool column = ids.rank() == 2 && ids.dim(1) == 1;
  if (!column && ids.rank() != 1) rt::fail(fmt::format("{}: Ids must be [M, 1], got {}", op, ids.shape().str()));
  if (rows.rank() < 1 || ids.dim(0) != rows.dim(0))
    rt::fail(fmt::format("{}: Ids {} needs one id per row of {} {}", op, ids.shape().str(), rows_role,
                         rows.shape().str()));
}

}  // namespace

void multiplex(const Tensor& ids, const Tensor* const* xs, int n, Tensor& out) {
  constexpr const char* op = "multiplex";
  if (n < 1) rt::fail(fmt::format("{}: needs at least one X", op));
  check_ids(op, ids, *xs[0], "X");
  bool aliased = &out == &ids;
  for (int k = 0; k < n; ++k) {
    require_init(op, "X", *xs[k]);
    require_same_dtype(op, "X #0", *xs[0], "another X", *xs[k]);
    require_same_shape(op, "X #0", *xs[0], "another X", *xs[k]);
    aliased |= xs[k] == &out;
  }
  const int64_t* id = checked_indices(op, "Ids", ids, n);
  OutBuf buf(&out, Slot::kOut0, aliased);
  Tensor& o = buf.get();
  o.resize(xs[0]->shape(), xs[0]->dtype());
  const size_t row = row_bytes(o);
  char* dst = static_cast<char*>(o.raw());
  for (int64_t i = 0; i < o.dim(0); ++i)
    std::memcpy(dst + i * row, static_cast<const char*>(xs[id[i]]->raw()) + i * row, row);
  buf.finish();
}

void multiplex_grad(const Tensor& ids, const Tensor* const*, int n, const Tensor& out_grad, Tensor* const* x_grads,
                    int m) {
  constexpr const char* op = "multiplex_grad";
  if (n > 0 && m != n) rt::fail(fmt::format("{}: {} inputs but {} gradient slots", op, n, m));
  check_ids(op, ids, out_grad, "Out@GRAD");
  const Tensor& dout = safe_source(out_grad, x_grads, m);
  const int64_t* id = checked_indices(op, "Ids", ids, m);
  const size_t row = row_bytes(dout);
  const char* src = static_cast<const char*>(dout.raw());
  for (int k = 0; k < m; ++k) {
    if (!x_grads[k]) continue;
    x_grads[k]->resize(dout.shape(), dout.dtype());
    x_grads[k]->zero();
    char* dst = static_cast<char*>(x_grads[k]->raw());
    for (int64_t i = 0; i < dout.dim(0); ++i)
      if (id[i] == k) std::memcpy(dst + i * row, src + i * row, row);
  }
}

}  // namespace fluidc::kernels
