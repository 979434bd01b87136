// kernels/detection.h - inference-only detection helpers: prior_box (SSD anchors), box_coder (centre-size encode/decode), yolo_box.
//
// fp32 and fp64. Neither op has a gradient (Paddle trains no parameter
// through them).
#pragma once

#include <string>
#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `prior_box` (Paddle's names and defaults).
struct PriorBoxAttrs {
  std::vector<float> min_sizes;
  std::vector<float> max_sizes;      ///< empty, or one per min size (adds a sqrt(min * max) square)
  std::vector<float> aspect_ratios;  ///< 1 is always first; repeats within 1e-6 dropped
  std::vector<float> variances;      ///< 4 values, copied to every prior
  bool flip = true;                  ///< also 1 / ratio for each ratio
  bool clip = true;                  ///< clamp box corners to [0, 1]
  float step_w = 0.f;                ///< 0: image width / feature width
  float step_h = 0.f;
  float offset = 0.5f;               ///< centre of cell (w + offset) * step
  bool min_max_aspect_ratios_order = false;  ///< min square, max square, then ratios (Caffe's order)

  template <class F>
  static void fields(F&& f) {
    f("min_sizes", &PriorBoxAttrs::min_sizes, kRequiredAttr);
    f("max_sizes", &PriorBoxAttrs::max_sizes);
    f("aspect_ratios", &PriorBoxAttrs::aspect_ratios);
    f("variances", &PriorBoxAttrs::variances);
    f("flip", &PriorBoxAttrs::flip);
    f("clip", &PriorBoxAttrs::clip);
    f("step_w", &PriorBoxAttrs::step_w);
    f("step_h", &PriorBoxAttrs::step_h);
    f("offset", &PriorBoxAttrs::offset);
    f("min_max_aspect_ratios_order", &PriorBoxAttrs::min_max_aspect_ratios_order);
  }
};
/// Boxes / Variances [H, W, num_priors, 4]: the normalised [xmin, ymin,
/// xmax, ymax] priors centred on each cell of Input (NCHW feature map) for
/// Image (NCHW), and the variances of each. Only the dims of both are read.
void prior_box(const Tensor& input, const Tensor& image, Tensor& boxes, Tensor& variances,
               const PriorBoxAttrs& attrs);

/// Attributes of `box_coder`.
struct BoxCoderAttrs {
  std::string code_type = "encode_center_size";  ///< or "decode_center_size"
  bool box_normalized = true;  ///< false: widths and heights count pixels (+1)
  int axis = 0;                ///< decode: PriorBox pairs with TargetBox dim 1 (0) or dim 0 (1)
  std::vector<float> variance;  ///< 4 values used when PriorBoxVar is absent; empty: 1

  template <class F>
  static void fields(F&& f) {
    f("code_type", &BoxCoderAttrs::code_type);
    f("box_normalized", &BoxCoderAttrs::box_normalized);
    f("axis", &BoxCoderAttrs::axis);
    f("variance", &BoxCoderAttrs::variance);
  }
};
/// encode: TargetBox [N, 4] against PriorBox [M, 4] gives OutputBox
/// [N, M, 4] = ((cx - pcx) / pw, (cy - pcy) / ph, log(w / pw), log(h / ph)) /
/// variance. decode: TargetBox [N, M, 4] of such offsets gives the corner
/// boxes [N, M, 4]. PriorBoxVar: [M, 4] per-prior variances.
void box_coder(const Tensor& prior_box, const Tensor* prior_box_var, const Tensor& target_box, Tensor& output_box,
               const BoxCoderAttrs& attrs);

/// Attributes of `yolo_box`.
struct YoloBoxAttrs {
  std::vector<int> anchors;  ///< (w, h) pairs in input-image pixels
  int class_num = 1;
  float conf_thresh = 0.01f;  ///< boxes under it stay all zero (box and scores)
  int downsample_ratio = 32;  ///< input image size = grid size * ratio
  bool clip_bbox = true;      ///< clamp to [0, ImgSize - 1]
  float scale_x_y = 1.f;      ///< centre = (cell + sigmoid(t) * s - (s - 1) / 2) / grid
  bool iou_aware = false;     ///< X starts with one IoU channel per anchor
  float iou_aware_factor = 0.5f;  ///< conf = obj^(1 - f) * iou^f

  template <class F>
  static void fields(F&& f) {
    f("anchors", &YoloBoxAttrs::anchors, kRequiredAttr);
    f("class_num", &YoloBoxAttrs::class_num, kRequiredAttr);
    f("conf_thresh", &YoloBoxAttrs::conf_thresh);
    f("downsample_ratio", &YoloBoxAttrs::downsample_ratio);
    f("clip_bbox", &YoloBoxAttrs::clip_bbox);
    f("scale_x_y", &YoloBoxAttrs::scale_x_y);
    f("iou_aware", &YoloBoxAttrs::iou_aware);
    f("iou_aware_factor", &YoloBoxAttrs::iou_aware_factor);
  }
};
/// YOLOv3 head decoding: X [N, A * (5 + class_num) (+ A with iou_aware), H, W]
/// and ImgSize [N, 2] (int32 height, width) give Boxes [N, A * H * W, 4]
/// (corners in image pixels) and Scores [N, A * H * W, class_num]
/// (confidence * class sigmoid), anchor-major.
void yolo_box(const Tensor& x, const Tensor& img_size, Tensor& boxes, Tensor& scores, const YoloBoxAttrs& attrs);

}  // namespace fluidc::kernels
