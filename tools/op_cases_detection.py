#!/usr/bin/env python3
"""Per-op Paddle references for the inference-only detection ops (see
tools/op_caselib.py): prior_box (ratios with and without flip, max sizes,
Caffe's min/max order, explicit steps and offset, clipping) and box_coder
(encode and decode, normalised and pixel boxes, variances from a tensor, from
the attribute or none, decode along axis 0 and 1), yolo_box (thresholds,
clipping, scale_x_y, iou_aware). Forward values only: Paddle has no gradient
for any of them.

  python3 tools/op_cases_detection.py   # rewrites test/fixtures/op_cases/detection/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
from paddle.base.layer_helper import LayerHelper
from paddle.vision import ops as V

FAMILY = "detection"


def boxes(p, name, shape, scale=1.0):
    """Valid corner boxes [.., 4] (xmin < xmax, ymin < ymax), fed as data."""
    r = oc._rng(f"{FAMILY}/boxes/{name}/{len(p.feeds)}")
    lo = r.uniform(0, 0.5, size=shape[:-1] + [2]) * scale
    size = r.uniform(0.1, 0.5, size=shape[:-1] + [2]) * scale
    return p.input(name, shape, grad=False, value=np.concatenate([lo, lo + size], axis=-1))


def main():
    oc.start(__file__, FAMILY)
    prior_cases = [
        ("prior_box_ssd", dict(min_sizes=[20.0], max_sizes=[40.0], aspect_ratios=[2.0], flip=True, clip=True)),
        ("prior_box_two_sizes_noflip", dict(min_sizes=[10.0, 24.0], aspect_ratios=[2.0, 3.0, 2.0], flip=False,
                                            clip=False, variance=[0.1, 0.2, 0.3, 0.4])),
        ("prior_box_minmax_order_steps", dict(min_sizes=[16.0, 30.0], max_sizes=[30.0, 60.0], aspect_ratios=[0.5, 2.0],
                                              flip=True, clip=True, steps=[8.0, 6.0], offset=0.25,
                                              min_max_aspect_ratios_order=True)),
    ]
    for name, kw in prior_cases:
        with oc.program(FAMILY) as p:
            feat = p.input("feat", [1, 2, 3, 4], grad=False)
            img = p.input("img", [1, 3, 24, 30], grad=False)
            b, v = V.prior_box(feat, img, **kw)
            p.case(name, [b, v], grads=False)

    with oc.program(FAMILY) as p:
        prior = boxes(p, "prior", [5, 4])
        var = p.input("var", [5, 4], grad=False, low=0.1, high=0.3)
        target = boxes(p, "target", [3, 4])
        p.case("box_coder_encode_var_tensor", [V.box_coder(prior, var, target, "encode_center_size")], grads=False)
    with oc.program(FAMILY) as p:
        prior = boxes(p, "prior", [5, 4], scale=100)
        target = boxes(p, "target", [3, 4], scale=100)
        p.case("box_coder_encode_pixels_var_attr",
               [V.box_coder(prior, [0.1, 0.1, 0.2, 0.2], target, "encode_center_size", box_normalized=False)],
               grads=False)
    with oc.program(FAMILY) as p:
        prior = boxes(p, "prior", [4, 4])
        var = p.input("var", [4, 4], grad=False, low=0.1, high=0.3)
        target = p.input("target", [3, 4, 4], grad=False, low=-1, high=1)
        p.case("box_coder_decode_axis0", [V.box_coder(prior, var, target, "decode_center_size")], grads=False)
    with oc.program(FAMILY) as p:
        prior = boxes(p, "prior", [3, 4], scale=50)
        target = p.input("target", [3, 5, 4], grad=False, low=-1, high=1)
        p.case("box_coder_decode_axis1_pixels",
               [V.box_coder(prior, [0.1, 0.1, 0.2, 0.2], target, "decode_center_size", box_normalized=False, axis=1)],
               grads=False)
    with oc.program(FAMILY) as p:
        prior = boxes(p, "prior", [4, 4])
        target = p.input("target", [2, 4, 4], grad=False, low=-1, high=1)
        helper = LayerHelper("box_coder")
        out = helper.create_variable_for_type_inference(target.dtype)
        helper.append_op(type="box_coder", inputs={"PriorBox": prior, "TargetBox": target},
                         outputs={"OutputBox": out}, attrs={"code_type": "decode_center_size"})
        p.case("box_coder_decode_no_var", [out], grads=False, notes="raw op: the API always passes a variance")

    # yolo_box: X channels are anchors x (5 + classes) (+ one IoU channel per anchor first).
    yolo_cases = [
        ("yolo_box", 2, dict(anchors=[10, 13, 16, 30], class_num=3, conf_thresh=0.3, downsample_ratio=8), 0),
        ("yolo_box_noclip_scale_xy", 3, dict(anchors=[5, 6, 12, 9, 20, 18], class_num=2, conf_thresh=0.45,
                                              downsample_ratio=16, clip_bbox=False, scale_x_y=1.2), 0),
        ("yolo_box_iou_aware", 2, dict(anchors=[10, 13, 16, 30], class_num=2, conf_thresh=0.2, downsample_ratio=32,
                                       iou_aware=True, iou_aware_factor=0.4), 2),
    ]
    for name, an, kw, extra_ch in yolo_cases:
        with oc.program(FAMILY) as p:
            x = p.input("x", [2, an * (5 + kw["class_num"]) + extra_ch, 3, 4], grad=False, low=-3, high=3)
            size = p.input("img_size", [2, 2], dtype="int32", grad=False, value=np.array([[40, 50], [64, 30]]))
            b, sc = V.yolo_box(x, size, **kw)
            p.case(name, [b, sc], grads=False,
                   notes="boxes under conf_thresh are all zero in Boxes and Scores")
    oc.finish()


if __name__ == "__main__":
    main()
