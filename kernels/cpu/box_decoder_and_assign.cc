// kernels/cpu/box_decoder_and_assign.cc - box_decoder_and_assign: per-class box decoding and the best class's box (Cascade R-CNN).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/cpu/kernel_util.h"
#include "kernels/detection_boxes.h"
#include "kernels/shapes/detection_boxes.h"

namespace fluidc::kernels {

using namespace detail;

void box_decoder_and_assign(const Tensor& prior_box, const Tensor* prior_box_var, const Tensor& target_box,
                            const Tensor& box_score, Tensor& decode_box, Tensor& output_assign_box,
                            const BoxDecoderAndAssignAttrs& a) {
  constexpr const char* op = "box_decoder_and_assign";
  require_init(op, "PriorBox", prior_box);
  if (!prior_box_var) rt::fail(fmt::format("{}: PriorBoxVar is required (Paddle's kernel reads it)", op));
  require_init(op, "PriorBoxVar", *prior_box_var);
  require_init(op, "TargetBox", target_box);
  require_init(op, "BoxScore", box_score);
  for (const auto& [role, t] : {std::pair{"PriorBoxVar", prior_box_var}, {"TargetBox", &target_box},
                                {"BoxScore", &box_score}})
    require_same_dtype(op, "PriorBox", prior_box, role, *t);
  Shape ds, as;
  const Shape& vs = prior_box_var->shape();
  require_rule(op, shapes::box_decoder_and_assign_shape(prior_box.shape(), &vs, target_box.shape(), box_score.shape(),
                                                        ds, as));
  const std::initializer_list<const Tensor*> ins = {&prior_box, prior_box_var, &target_box, &box_score};
  if (aliases(&decode_box, ins) || aliases(&output_assign_box, ins) || &decode_box == &output_assign_box)
    rt::fail(fmt::format("{}: an output may not be an input or the other output", op));
  const int64_t N = ds.d[0], C = box_score.dim(1);
  const rt::Lod* lod = prior_box.lod();
  const rt::Lod keep = lod ? *lod : rt::Lod{};  // copied first: PriorBox's LoD is read while the outputs are resized
  visit_float(op, "PriorBox", prior_box.dtype(), [&](auto tag) {
    using T = decltype(tag);
    decode_box.resize(ds, prior_box.dtype());
    output_assign_box.resize(as, prior_box.dtype());
    const T* prior = prior_box.data<T>();
    const T* var = prior_box_var->data<T>();
    const T* delta = target_box.data<T>();
    const T* score = box_score.data<T>();
    T* dec = decode_box.data<T>();
    T* out = output_assign_box.data<T>();
    const T clip = static_cast<T>(a.box_clip);
    for (int64_t i = 0; i < N; ++i) {
      const T* p = prior + 4 * i;
      // Paddle's pixel convention: both edge pixels count, and the decoded box's far corner is one pixel in.
      const T w = p[2] - p[0] + T(1), h = p[3] - p[1] + T(1);
      const T cx = p[0] + w / T(2), cy = p[1] + h / T(2);
      for (int64_t j = 0; j < C; ++j) {
        const T* d = delta + (i * C + j) * 4;
        T* o = dec + (i * C + j) * 4;
        const T x = var[0] * d[0] * w + cx, y = var[1] * d[1] * h + cy;
        const T dw = std::exp(std::min(var[2] * d[2], clip)) * w, dh = std::exp(std::min(var[3] * d[3], clip)) * h;
        o[0] = x - dw / T(2);
        o[1] = y - dh / T(2);
        o[2] = x + dw / T(2) - T(1);
        o[3] = y + dh / T(2) - T(1);
      }
      // Class 0 is the background; Paddle starts the search at score -1.
      int64_t best = -1;
      T top = T(-1);
      for (int64_t j = 1; j < C; ++j)
        if (score[i * C + j] > top) top = score[i * C + j], best = j;
      std::memcpy(out + 4 * i, best > 0 ? dec + (i * C + best) * 4 : p, 4 * sizeof(T));
    }
  });
  // Paddle 2.6.2 gives OutputAssignBox PriorBox's LoD and DecodeBox none.
  decode_box.clear_lod();
  if (lod) output_assign_box.mutable_lod() = keep;
  else output_assign_box.clear_lod();
}

}  // namespace fluidc::kernels
