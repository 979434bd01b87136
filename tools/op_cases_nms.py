#!/usr/bin/env python3
"""Per-op Paddle references for the per-class NMS ops (see tools/op_caselib.py):
multiclass_nms3 (score threshold, background label, nms_top_k and keep_top_k
cuts, score ties, pixel boxes, adaptive eta, an image with nothing above the
threshold, a batch with no detection at all), multiclass_nms (v1: Out with
LoD; Paddle's [1, 1] -1 marker when nothing is detected) and multiclass_nms2
(Out and Index with LoD), matrix_nms (linear and gaussian decay, post_threshold,
top-k cuts, background label, pixel boxes, empty results), and a YOLOv3-style
head (yolo_box, transpose, multiclass_nms3) as detection programs chain them,
and the per-RoI form of two-stage detectors (Scores [M, C], BBoxes [M, C, 4],
images split by RoisNum, or by BBoxes' LoD for v1). The ops are appended raw (LayerHelper), as
detection programs hold them. Forward values only: Paddle has no gradient.

  python3 tools/op_cases_nms.py   # rewrites test/fixtures/op_cases/nms/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
from paddle.base.layer_helper import LayerHelper
from paddle.vision import ops as V

FAMILY = "nms"


def clustered_boxes(name, n, m, scale=1.0):
    """[n, m, 4] corner boxes in a few overlapping clusters, so NMS both keeps
    and suppresses."""
    r = oc._rng(f"{FAMILY}/boxes/{name}")
    centres = r.uniform(0.2, 0.8, size=(n, 3, 2))
    pick = r.integers(0, 3, size=(n, m))
    c = np.take_along_axis(centres, pick[..., None].repeat(2, -1), axis=1) + r.normal(0, 0.04, size=(n, m, 2))
    half = r.uniform(0.05, 0.15, size=(n, m, 2))
    return (np.concatenate([c - half, c + half], axis=-1) * scale).astype("float32")


def scores(name, n, c, m):
    return oc._rng(f"{FAMILY}/scores/{name}").uniform(0, 1, size=(n, c, m)).astype("float32")


def nms_case(name, version, b, s, notes="", rois_num=None, lod=None, **attrs):
    full = dict(score_threshold=0.3, nms_top_k=-1, keep_top_k=-1, nms_threshold=0.4, normalized=True, nms_eta=1.0,
                background_label=0)
    full.update(attrs)
    with oc.program(FAMILY) as p:
        bv = p.input("bboxes", list(b.shape), grad=False, value=b, lod=lod)
        sv = p.input("scores", list(s.shape), grad=False, value=s)
        ins = {"BBoxes": bv, "Scores": sv}
        if rois_num is not None:
            ins["RoisNum"] = p.input("rois_num", [len(rois_num)], dtype="int32", grad=False,
                                     value=np.array(rois_num, dtype="int32"))
        h = LayerHelper(version)
        out = h.create_variable_for_type_inference("float32")
        outs = {"Out": out}
        fetch = [out]
        if version != "multiclass_nms":
            idx = h.create_variable_for_type_inference("int32")
            outs["Index"] = idx
            fetch.append(idx)
        if version == "multiclass_nms3":
            rn = h.create_variable_for_type_inference("int32")
            outs["NmsRoisNum"] = rn
            fetch.append(rn)
        h.append_op(type=version, inputs=ins, outputs=outs, attrs=full)
        p.case(name, fetch, grads=False, notes=notes)


def matrix_case(name, b, s, notes="", **attrs):
    full = dict(score_threshold=0.3, post_threshold=0.1, nms_top_k=-1, keep_top_k=-1, use_gaussian=False,
                gaussian_sigma=2.0, background_label=0, normalized=True)
    full.update(attrs)
    with oc.program(FAMILY) as p:
        bv = p.input("bboxes", list(b.shape), grad=False, value=b)
        sv = p.input("scores", list(s.shape), grad=False, value=s)
        h = LayerHelper("matrix_nms")
        out = h.create_variable_for_type_inference("float32")
        idx = h.create_variable_for_type_inference("int32")
        rn = h.create_variable_for_type_inference("int32")
        h.append_op(type="matrix_nms", inputs={"BBoxes": bv, "Scores": sv},
                    outputs={"Out": out, "Index": idx, "RoisNum": rn}, attrs=full)
        p.case(name, [out, idx, rn], grads=False, notes=notes)


def main():
    oc.start(__file__, FAMILY)
    b = clustered_boxes("main", 2, 12)
    s = scores("main", 2, 4, 12)
    nms_case("nms3_basic", "multiclass_nms3", b, s)
    nms_case("nms3_no_background_top_k", "multiclass_nms3", b, s, background_label=-1, nms_top_k=5, keep_top_k=7,
             notes="keep_top_k cuts each image across classes; nms_top_k before NMS")
    nms_case("nms3_background_2_eta", "multiclass_nms3", b, s, background_label=2, nms_threshold=0.7, nms_eta=0.8,
             score_threshold=0.2)
    # Ties: equal scores keep box order (stable sort), also through keep_top_k.
    st = np.round(s * 4) / 4
    nms_case("nms3_ties", "multiclass_nms3", b, st, keep_top_k=6, score_threshold=0.1,
             notes="scores on a 0.25 grid: ties resolved by box order, as Paddle's stable sort")
    # Image 1 has nothing above the threshold: NmsRoisNum 0 for it.
    se = s.copy()
    se[1] *= 0.2
    nms_case("nms3_empty_image", "multiclass_nms3", b, se, score_threshold=0.25)
    nms_case("nms3_all_empty", "multiclass_nms3", b, s * 0.1, score_threshold=0.5,
             notes="no detection at all: Out [0, 6], Index [0, 1]")
    bp = clustered_boxes("pixels", 1, 10, scale=100.0)
    nms_case("nms3_pixels", "multiclass_nms3", bp, scores("pixels", 1, 3, 10), normalized=False, nms_threshold=0.3)
    nms_case("nms_v1", "multiclass_nms", b, s, keep_top_k=9)
    nms_case("nms_v1_empty_image", "multiclass_nms", b, se, score_threshold=0.25)
    nms_case("nms_v1_all_empty", "multiclass_nms", b, s * 0.1, score_threshold=0.5,
             notes="no detection at all: Paddle's marker Out [[-1]] with LoD {0, 1}")
    nms_case("nms2_basic", "multiclass_nms2", b, s, background_label=1)
    nms_case("nms2_all_empty", "multiclass_nms2", b, s * 0.1, score_threshold=0.5)
    # Per-RoI form: 10 RoIs in images of 4, 0 and 6; a box per RoI and class.
    rb = clustered_boxes("per_roi", 1, 30)[0].reshape(10, 3, 4)
    rs = scores("per_roi", 1, 10, 3)[0]
    nms_case("nms3_per_roi", "multiclass_nms3", rb, rs, rois_num=[4, 0, 6], score_threshold=0.2,
             notes="kept RoIs of a class come in RoI order; Index = RoI * C + class")
    nms_case("nms3_per_roi_keep_top_k", "multiclass_nms3", rb, rs, rois_num=[4, 0, 6], score_threshold=0.1,
             keep_top_k=3, background_label=-1)
    nms_case("nms_v1_per_roi_lod", "multiclass_nms", rb, rs, lod=[[4, 0, 6]], score_threshold=0.2,
             notes="images split by BBoxes' LoD")
    # matrix_nms ranks with std::partial_sort (not stable): untied scores only.
    matrix_case("matrix_linear", b, s)
    matrix_case("matrix_gaussian_top_k", b, s, use_gaussian=True, gaussian_sigma=1.5, nms_top_k=6, keep_top_k=8,
                post_threshold=0.2, background_label=-1)
    matrix_case("matrix_background_1_empty_image", b, se, score_threshold=0.25, background_label=1,
                notes="image 1 has nothing above score_threshold: RoisNum 0")
    matrix_case("matrix_pixels", bp, scores("pixels", 1, 3, 10), normalized=False, use_gaussian=True)
    matrix_case("matrix_all_empty", b, s * 0.1, score_threshold=0.5, notes="no detection: Out [0, 6], Index [0, 1]")
    # A YOLOv3 head as PaddleDetection writes it: yolo_box, scores to [N, C, M], multiclass_nms3 in pixels.
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 2 * (5 + 3), 4, 4], grad=False, low=-3, high=3)
        size = p.input("img_size", [2, 2], dtype="int32", grad=False, value=np.array([[128, 128], [96, 160]]))
        yb, ys = V.yolo_box(x, size, anchors=[10, 13, 30, 40], class_num=3, conf_thresh=0.05, downsample_ratio=32)
        h = LayerHelper("multiclass_nms3")
        out = h.create_variable_for_type_inference("float32")
        idx = h.create_variable_for_type_inference("int32")
        rn = h.create_variable_for_type_inference("int32")
        h.append_op(type="multiclass_nms3", inputs={"BBoxes": yb, "Scores": paddle.transpose(ys, [0, 2, 1])},
                    outputs={"Out": out, "Index": idx, "NmsRoisNum": rn},
                    attrs=dict(score_threshold=0.1, nms_top_k=20, keep_top_k=10, nms_threshold=0.45,
                               normalized=False, nms_eta=1.0, background_label=-1))
        p.case("yolo_head_nms3", [out, idx, rn], grads=False, notes="yolo_box -> transpose -> multiclass_nms3")
    oc.finish()


if __name__ == "__main__":
    main()
