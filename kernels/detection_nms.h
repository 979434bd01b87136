// kernels/detection_nms.h - non-maximum suppression: multiclass_nms (v1), multiclass_nms2, multiclass_nms3, matrix_nms, nms.
//
// Inference only (Paddle has no gradient). fp32 and fp64. The number of
// detections is known only at run time: the kernels resize Out themselves.
#pragma once

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes shared by the three versions (Paddle's names and defaults).
struct MulticlassNmsAttrs {
  float score_threshold = 0.f;  ///< a box of class c is a candidate when its score is strictly above
  int nms_top_k = -1;           ///< candidates kept per class before NMS; negative: all
  int keep_top_k = -1;          ///< detections kept per image, best scores first; negative: all
  float nms_threshold = 0.3f;   ///< IoU above which the lower-scored box is dropped
  bool normalized = true;       ///< false: widths and heights count both edge pixels (+1)
  float nms_eta = 1.f;          ///< < 1: the threshold shrinks by eta after each kept box while above 0.5
  int background_label = 0;     ///< class skipped entirely; -1: none

  template <class F>
  static void fields(F&& f) {
    f("score_threshold", &MulticlassNmsAttrs::score_threshold, kRequiredAttr);
    f("nms_top_k", &MulticlassNmsAttrs::nms_top_k, kRequiredAttr);
    f("keep_top_k", &MulticlassNmsAttrs::keep_top_k, kRequiredAttr);
    f("nms_threshold", &MulticlassNmsAttrs::nms_threshold);
    f("normalized", &MulticlassNmsAttrs::normalized);
    f("nms_eta", &MulticlassNmsAttrs::nms_eta);
    f("background_label", &MulticlassNmsAttrs::background_label);
  }
};

/// BBoxes [N, M, 4] corner boxes and Scores [N, C, M] give Out [K, 6] rows
/// (label, score, xmin, ymin, xmax, ymax), image by image, each image's
/// classes ascending, with LoD offsets of each image's rows. No detection
/// at all: Out is [1, 1] holding -1, LoD {0, 1} (Paddle's convention).
/// The per-RoI form (see multiclass_nms3) splits images by BBoxes' LoD.
void multiclass_nms(const Tensor& bboxes, const Tensor& scores, Tensor& out, const MulticlassNmsAttrs& attrs);

/// As multiclass_nms, plus Index [K, 1] int32: image * M + box of each row
/// (both with the LoD). No detection: Out [0, 6] and Index [0, 1].
void multiclass_nms2(const Tensor& bboxes, const Tensor& scores, Tensor& out, Tensor* index,
                     const MulticlassNmsAttrs& attrs);

/// As multiclass_nms2 without LoD, plus NmsRoisNum [N] int32 (rows per
/// image). Per-RoI form (two-stage detectors): Scores [M, C], BBoxes
/// [M, C, 4] (a box per RoI and class), RoisNum [N] RoIs per image (or
/// BBoxes' LoD); each class's kept RoIs come in RoI order and Index is
/// RoI * C + class. With 3-D Scores RoisNum is ignored, as in Paddle.
void multiclass_nms3(const Tensor& bboxes, const Tensor& scores, const Tensor* rois_num, Tensor& out, Tensor* index,
                     Tensor* nms_rois_num, const MulticlassNmsAttrs& attrs);

/// Attributes of `matrix_nms` (Paddle's names and defaults).
struct MatrixNmsAttrs {
  float score_threshold = 0.f;  ///< candidates score strictly above
  float post_threshold = 0.f;   ///< decayed scores must stay strictly above
  int nms_top_k = -1;           ///< candidates per class; negative: all
  int keep_top_k = -1;          ///< detections per image, best decayed scores first; negative: all
  bool use_gaussian = false;    ///< decay exp((max_iou^2 - iou^2) * sigma); else (1 - iou) / (1 - max_iou)
  float gaussian_sigma = 2.f;
  int background_label = 0;     ///< class skipped; -1: none
  bool normalized = true;       ///< false: widths and heights count both edge pixels (+1)

  template <class F>
  static void fields(F&& f) {
    f("score_threshold", &MatrixNmsAttrs::score_threshold, kRequiredAttr);
    f("post_threshold", &MatrixNmsAttrs::post_threshold);
    f("nms_top_k", &MatrixNmsAttrs::nms_top_k, kRequiredAttr);
    f("keep_top_k", &MatrixNmsAttrs::keep_top_k, kRequiredAttr);
    f("use_gaussian", &MatrixNmsAttrs::use_gaussian);
    f("gaussian_sigma", &MatrixNmsAttrs::gaussian_sigma);
    f("background_label", &MatrixNmsAttrs::background_label);
    f("normalized", &MatrixNmsAttrs::normalized);
  }
};

/// Matrix NMS (SOLOv2): each candidate's score decays by its overlap with
/// every higher-scored box of its class instead of being dropped. BBoxes
/// [N, M, 4], Scores [N, C, M] give Out [K, 6] (label, decayed score, box),
/// each image's rows by decayed score descending, no LoD; Index [K, 1]
/// int32 (image * M + box); RoisNum [N] int32 rows per image.
void matrix_nms(const Tensor& bboxes, const Tensor& scores, Tensor& out, Tensor* index, Tensor* rois_num,
                const MatrixNmsAttrs& attrs);

/// Attributes of `nms` (paddle.vision.ops.nms's op).
struct NmsAttrs {
  float iou_threshold = 0.3f;  ///< a later box whose IoU with a kept one is above this is dropped

  template <class F>
  static void fields(F&& f) {
    f("iou_threshold", &NmsAttrs::iou_threshold);
  }
};

/// Greedy NMS over Boxes [N, 4] (corner boxes, in the order given: callers
/// sort by score first) : KeepBoxesIdxs (int64 [K]) holds, ascending, the
/// indices of the boxes no earlier kept box overlaps by IoU above the
/// threshold. IoU as Paddle's nms op computes it (kernels/cpu/nms_single.cc).
void nms(const Tensor& boxes, Tensor& keep_boxes_idxs, const NmsAttrs& attrs);

}  // namespace fluidc::kernels
