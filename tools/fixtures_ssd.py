#!/usr/bin/env python3
"""An SSD detector built as Fluid's multi_box_head + detection_output build it (the SSD models of PaddleDetection's
static-graph releases), exported with paddle.jit.save, with Paddle 2.6.2's outputs on it: test/fixtures/detect/ssd/
(layout: tools/detect_headlib.py; test: e2e_detect_ssd).

  backbone  conv+BN+relu blocks, stride-2 3x3 downsampling; features at strides 8, 16, 32
  priors    paddle.vision.ops.prior_box per level (min and max sizes, aspect ratios with flip, clip, steps,
            offset 0.5, variances 0.1/0.2), reshaped to [-1, 4] and concatenated
  head      3x3 loc and conf convs per level, transposed to NHWC, reshaped to [N, -1, 4] / [N, -1, C] and
            concatenated; box_coder decode_center_size (prior variances as a tensor), softmax, transpose to
            [N, C, M], multiclass_nms (v1: Out with one LoD level per image; background 0, normalized boxes)
  weights   synthesized (detect_headlib.synth_weights); input: a batch of 2 synthetic 96x96 images

  /tmp/pd/bin/python tools/fixtures_ssd.py
"""

import numpy as np

import detect_headlib as dh  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.base.layer_helper import LayerHelper
from paddle.static import InputSpec

CLASSES = 4  # class 0 is the background
SIZE = 96
MIN_SIZES = [[16.0], [36.0], [64.0]]
MAX_SIZES = [[36.0], [64.0], [90.0]]
RATIOS = [[2.0], [2.0, 3.0], [2.0]]
STEPS = [8.0, 16.0, 32.0]
VARIANCE = [0.1, 0.1, 0.2, 0.2]
NMS = dict(score_threshold=0.75, nms_top_k=400, keep_top_k=200, nms_threshold=0.45, normalized=True, nms_eta=1.0,
           background_label=0)


def priors_per_cell(i):
    # min size, max size, and each ratio with its flip
    return 2 + 2 * len(RATIOS[i])


class ConvBN(nn.Layer):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv = nn.Conv2D(cin, cout, 3, stride=stride, padding=1, bias_attr=False)
        self.bn = nn.BatchNorm2D(cout)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


def multiclass_nms(bboxes, scores):
    """Fluid's detection_output appends the v1 op: Out only, its LoD splitting the images."""
    h = LayerHelper("multiclass_nms")
    out = h.create_variable_for_type_inference(bboxes.dtype)
    h.append_op(type="multiclass_nms", inputs={"BBoxes": bboxes, "Scores": scores}, outputs={"Out": out},
                attrs=dict(NMS))
    out.stop_gradient = True
    return out


class SSD(nn.Layer):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(ConvBN(3, 8), ConvBN(8, 16, 2), ConvBN(16, 16, 2), ConvBN(16, 24, 2))  # /8
        self.down4 = ConvBN(24, 32, 2)  # /16
        self.down5 = ConvBN(32, 32, 2)  # /32
        chans = [24, 32, 32]
        self.locs = nn.LayerList([nn.Conv2D(c, priors_per_cell(i) * 4, 3, padding=1) for i, c in enumerate(chans)])
        self.confs = nn.LayerList([nn.Conv2D(c, priors_per_cell(i) * CLASSES, 3, padding=1)
                                   for i, c in enumerate(chans)])

    def forward(self, image):
        c3 = self.body(image)
        c4 = self.down4(c3)
        feats = [c3, c4, self.down5(c4)]
        locs, confs, boxes, variances = [], [], [], []
        for i, f in enumerate(feats):
            box, var = paddle.vision.ops.prior_box(f, image, min_sizes=MIN_SIZES[i], max_sizes=MAX_SIZES[i],
                                                   aspect_ratios=RATIOS[i], variance=VARIANCE, flip=True, clip=True,
                                                   steps=[STEPS[i], STEPS[i]], offset=0.5)
            boxes.append(paddle.reshape(box, [-1, 4]))
            variances.append(paddle.reshape(var, [-1, 4]))
            loc = paddle.transpose(self.locs[i](f), [0, 2, 3, 1])
            locs.append(paddle.reshape(loc, [0, -1, 4]))
            conf = paddle.transpose(self.confs[i](f), [0, 2, 3, 1])
            confs.append(paddle.reshape(conf, [0, -1, CLASSES]))
        decoded = paddle.vision.ops.box_coder(paddle.concat(boxes), paddle.concat(variances),
                                              paddle.concat(locs, axis=1), code_type="decode_center_size")
        scores = paddle.transpose(F.softmax(paddle.concat(confs, axis=1)), [0, 2, 1])
        return multiclass_nms(decoded, scores)


def spread_conf(name, v):
    """The conf convs' biases favour the background a little, so that a few tens of priors per image pass the
    score threshold; the loc convs' weights are scaled down, so that decoded boxes stay near their priors (as a
    trained SSD's do) and overlapping ones get suppressed."""
    if name.startswith("confs.") and name.endswith(".bias"):
        v = v.copy().reshape(-1, CLASSES)
        v[:, 0] += 2.0
        return v.reshape(-1)
    if name.startswith("locs.") and name.endswith(".weight"):
        return v * 0.3
    return v


def main():
    paddle.disable_static()
    out = dh.path("ssd")
    model = SSD()
    dh.synth_weights(model, "ssd", spread_conf)
    data = dh.export(model, [InputSpec([None, 3, SIZE, SIZE], "float32", "image")], out)
    feeds = {"image": np.stack([dh.image("ssd", 0, SIZE), dh.image("ssd", 1, SIZE)])}
    nms_in = dh.op_args(data, "multiclass_nms", "BBoxes") + dh.op_args(data, "multiclass_nms", "Scores")
    fetch, outputs, (boxes, scores) = dh.run_saved(out, feeds, nms_in)
    (det, lod), = outputs
    rois_num = np.diff(lod[0]) if lod else np.array([det.shape[0]])
    checks = dh.nms_margins(boxes, scores, det, rois_num, NMS)
    checks["detections_per_image"] = [int(n) for n in rois_num]
    checks["priors"] = int(boxes.shape[1])
    print("ssd:", checks)
    assert lod and len(lod[0]) == 3, lod
    assert all(5 <= n <= 50 for n in rois_num), rois_num
    for k in ("score_threshold_margin", "iou_threshold_margin", "suppressing_pair_score_gap", "kept_score_gap"):
        assert checks[k] > 1e-5, (k, checks[k])
    # Out within the 1e-4 relative (atol 1e-6: a normalized coordinate clipped to 0 or a small box corner),
    # as sets of rows within runs of equal score (none here: checks.kept_score_gap); its LoD exactly.
    dh.write_fixture(out, __file__, data, feeds, fetch, outputs, {"*": "1e-4 1e-6 ties 1"}, checks,
                     "prior_box + box_coder(decode_center_size) + softmax + multiclass_nms (v1, Out with LoD)")


if __name__ == "__main__":
    main()
