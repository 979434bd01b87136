// kernels/cpu/gather_tree.cc - gather_tree: each final beam's ids, followed back through the parents.
#include "kernels/beam_search.h"
#include "kernels/cpu/kernel_util.h"

namespace fluidc::kernels {

using namespace detail;

void gather_tree(const Tensor& ids, const Tensor& parents, Tensor& out) {
  const char* op = "gather_tree";
  require_init(op, "Ids", ids);
  require_init(op, "Parents", parents);
  require_same_dtype(op, "Ids", ids, "Parents", parents);
  if (ids.rank() != 3) rt::fail(fmt::format("{}: Ids must be [steps, batch, beam], got {}", op, ids.shape().str()));
  if (parents.shape() != ids.shape())
    rt::fail(fmt::format("{}: Parents must have Ids' shape {}, got {}", op, ids.shape().str(), parents.shape().str()));
  if (aliases(&out, {&ids, &parents})) rt::fail(fmt::format("{}: Out may not be an input", op));
  const int64_t steps = ids.dim(0), batch = ids.dim(1), beam = ids.dim(2);
  out.resize(ids.shape(), ids.dtype());
  auto walk = [&](auto tag) {
    using I = decltype(tag);
    const I* id = ids.data<I>();
    const I* par = parents.data<I>();
    I* o = out.data<I>();
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t k = 0; k < beam; ++k) {
        int64_t at = ((steps - 1) * batch + b) * beam + k;
        o[at] = id[at];
        int64_t p = static_cast<int64_t>(par[at]);
        for (int64_t t = steps - 2; t >= 0; --t) {
          // Parents are program data: one outside the beam would read another row (or out of bounds).
          if (p < 0 || p >= beam)
            rt::fail(fmt::format("{}: Parents value {} (step {}, batch {}, beam {}) is out of range [0, {})", op, p,
                                 t + 1, b, k, beam));
          const int64_t row = (t * batch + b) * beam;
          o[row + k] = id[row + p];
          p = static_cast<int64_t>(par[row + p]);
        }
      }
  };
  switch (ids.dtype()) {
    case DType::kInt32: walk(int32_t{}); break;
    case DType::kInt64: walk(int64_t{}); break;
    default: rt::fail(fmt::format("{}: Ids must be int32 or int64, got {}", op, rt::dtype_name(ids.dtype())));
  }
}

}  // namespace fluidc::kernels
