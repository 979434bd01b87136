// kernels/cpu/searchsorted.cc - searchsorted (paddle.searchsorted): binary search of each value in its sorted row.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/cpu/kernel_util.h"
#include "kernels/index.h"
#include "kernels/shapes/index_misc.h"

namespace fluidc::kernels {

using namespace detail;

void searchsorted(const Tensor& sorted_sequence, const Tensor& values, Tensor& out, const SearchsortedAttrs& attrs) {
  const char* op = "searchsorted";
  require_init(op, "SortedSequence", sorted_sequence);
  require_init(op, "Values", values);
  require_rule(op, shapes::searchsorted_check(sorted_sequence.shape(), values.shape()));
  const int64_t width = sorted_sequence.dim(sorted_sequence.rank() - 1);
  if (attrs.out_int32 && width > INT32_MAX)
    rt::fail(fmt::format("{}: a row of {} does not fit out_int32", op, width));
  const int64_t n = values.numel();
  // Values whose last dim shares one sorted row (the whole of Values for a 1-D sequence).
  const int64_t per_row = sorted_sequence.rank() == 1 ? n : (values.rank() ? values.dim(values.rank() - 1) : 1);
  OutBuf buf(&out, Slot::kOut0, aliases(&out, {&sorted_sequence, &values}));
  Tensor& o = buf.get();
  o.resize(values.shape(), attrs.out_int32 ? DType::kInt32 : DType::kInt64);
  visit_numeric(op, "SortedSequence", sorted_sequence.dtype(), [&](auto stag) {
    using S = decltype(stag);
    visit_numeric(op, "Values", values.dtype(), [&](auto vtag) {
      using V = decltype(vtag);
      const S* seq = sorted_sequence.data<S>();
      const V* val = values.data<V>();
      for (int64_t i = 0; i < n; ++i) {
        const V v = val[i];
        int64_t pos = width;  // Paddle sends an infinite or NaN value past the end
        bool finite = true;
        if constexpr (std::is_floating_point_v<V>) finite = std::isfinite(v);
        if (finite) {
          const S* row = seq + (per_row ? i / per_row : 0) * width;
          // The first position whose entry is above v (right) or at least v (left), by C++'s comparison of
          // the two types, as Paddle's lower_bound / upper_bound do.
          int64_t lo = 0, hi = width;
          while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            const bool before = attrs.right ? !(v < row[mid]) : row[mid] < v;
            if (before)
              lo = mid + 1;
            else
              hi = mid;
          }
          pos = lo;
        }
        if (attrs.out_int32)
          o.data<int32_t>()[i] = static_cast<int32_t>(pos);
        else
          o.data<int64_t>()[i] = pos;
      }
    });
  });
  buf.finish();
}

}  // namespace fluidc::kernels
