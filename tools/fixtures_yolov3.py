#!/usr/bin/env python3
"""A YOLOv3 detector built and exported as PaddleDetection builds and exports its YOLOv3 models, with Paddle
2.6.2's outputs on it: test/fixtures/detect/yolov3/ (layout: tools/detect_headlib.py; test: e2e_detect_yolov3).

  backbone  Darknet-style: conv+BN+leaky_relu(0.1) blocks, stride-2 3x3 downsampling, one residual block;
            features at strides 8, 16, 32
  neck      YOLOv3 FPN: from stride 32 down, a 1x1/3x3 block per level; its route through a 1x1 conv, nearest
            upsampling x2 and concat with the next backbone level
  head      a 1x1 conv (with bias) per level to anchors*(5+classes) channels; paddle.vision.ops.yolo_box per
            level on the image size in original pixels (im_shape / scale_factor cast to int32, as
            PaddleDetection's YOLOBox), clip_bbox, scale_x_y 1.05 (PP-YOLO's); boxes concatenated, scores
            transposed to [N, C, M] and concatenated; multiclass_nms3 appended as PaddleDetection's static graph
            appends it (Out, Index, NmsRoisNum; background_label -1, pixel boxes)
  weights   synthesized (detect_headlib.synth_weights), the heads' objectness biases lowered so that a few tens of
            boxes survive the thresholds; input: a batch of 2 synthetic images at 96x96 standing for images of
            480x640 and 384x384 (scale_factor); cases/empty_image: the second faded so that nothing of it passes

  /tmp/pd/bin/python tools/fixtures_yolov3.py
"""

import numpy as np

import detect_headlib as dh  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.base.layer_helper import LayerHelper
from paddle.static import InputSpec

CLASSES = 4
ANCHORS = [[[30, 24], [40, 50], [80, 70]],  # stride 32
           [[10, 20], [20, 14], [18, 30]],  # stride 16
           [[4, 5], [8, 10], [12, 8]]]      # stride 8
CONF_THRESH = 0.05
NMS = dict(score_threshold=0.15, nms_top_k=200, keep_top_k=40, nms_threshold=0.45, normalized=False, nms_eta=1.0,
           background_label=-1)
SIZE = 96


class ConvBN(nn.Layer):
    def __init__(self, cin, cout, k, stride=1):
        super().__init__()
        self.conv = nn.Conv2D(cin, cout, k, stride=stride, padding=k // 2, bias_attr=False)
        self.bn = nn.BatchNorm2D(cout)

    def forward(self, x):
        return F.leaky_relu(self.bn(self.conv(x)), 0.1)


class Residual(nn.Layer):
    def __init__(self, c):
        super().__init__()
        self.a = ConvBN(c, c // 2, 1)
        self.b = ConvBN(c // 2, c, 3)

    def forward(self, x):
        return x + self.b(self.a(x))


class Darknet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.stem = ConvBN(3, 8, 3)
        self.down1 = ConvBN(8, 16, 3, 2)      # /2
        self.down2 = ConvBN(16, 16, 3, 2)     # /4
        self.res2 = Residual(16)
        self.down3 = ConvBN(16, 32, 3, 2)     # /8
        self.down4 = ConvBN(32, 48, 3, 2)     # /16
        self.down5 = ConvBN(48, 64, 3, 2)     # /32

    def forward(self, x):
        c3 = self.down3(self.res2(self.down2(self.down1(self.stem(x)))))
        c4 = self.down4(c3)
        return [c3, c4, self.down5(c4)]


class YoloBlock(nn.Layer):
    def __init__(self, cin, c):
        super().__init__()
        self.route = nn.Sequential(ConvBN(cin, c, 1), ConvBN(c, 2 * c, 3), ConvBN(2 * c, c, 1))
        self.tip = ConvBN(c, 2 * c, 3)

    def forward(self, x):
        r = self.route(x)
        return r, self.tip(r)


def multiclass_nms3(bboxes, scores):
    """The op as PaddleDetection's static graph appends it (ppdet's multiclass_nms outside dygraph)."""
    h = LayerHelper("multiclass_nms3")
    out = h.create_variable_for_type_inference(bboxes.dtype)
    index = h.create_variable_for_type_inference("int32")
    rois_num = h.create_variable_for_type_inference("int32")
    h.append_op(type="multiclass_nms3", inputs={"BBoxes": bboxes, "Scores": scores},
                outputs={"Out": out, "Index": index, "NmsRoisNum": rois_num}, attrs=dict(NMS))
    for v in (out, index, rois_num):
        v.stop_gradient = True
    return out, index, rois_num


class YOLOv3(nn.Layer):
    def __init__(self):
        super().__init__()
        self.backbone = Darknet()
        chans = [64, 48, 32]  # backbone channels at strides 32, 16, 8
        widths = [32, 32, 24]
        self.blocks, self.routes, self.heads = nn.LayerList(), nn.LayerList(), nn.LayerList()
        for i, (cin, c) in enumerate(zip(chans, widths)):
            extra = widths[i - 1] // 2 if i else 0
            self.blocks.append(YoloBlock(cin + extra, c))
            if i < 2:
                self.routes.append(ConvBN(c, c // 2, 1))
            self.heads.append(nn.Conv2D(2 * c, len(ANCHORS[i]) * (5 + CLASSES), 1))

    def forward(self, image, im_shape, scale_factor):
        feats = self.backbone(image)[::-1]
        outs, route = [], None
        for i, f in enumerate(feats):
            if route is not None:
                f = paddle.concat([route, f], axis=1)
            r, tip = self.blocks[i](f)
            outs.append(self.heads[i](tip))
            if i < 2:
                route = F.upsample(self.routes[i](r), scale_factor=2.0, mode="nearest")
        origin = paddle.cast(im_shape / scale_factor, "int32")
        boxes, scores = [], []
        for i, o in enumerate(outs):
            b, s = paddle.vision.ops.yolo_box(o, origin, sum(ANCHORS[i], []), CLASSES, CONF_THRESH, 32 // 2 ** i,
                                              clip_bbox=True, scale_x_y=1.05)
            boxes.append(b)
            scores.append(paddle.transpose(s, perm=[0, 2, 1]))
        return multiclass_nms3(paddle.concat(boxes, axis=1), paddle.concat(scores, axis=2))


def objectness_bias(name, v):
    """Head biases: objectness (channel 4 of each anchor's 5 + classes) lowered by 3, so that conf_thresh drops
    about half the boxes (checks.boxes_over_conf_thresh); class logits spread so that the scores do not crowd."""
    if name.startswith("heads.") and name.endswith(".bias"):
        v = v.copy().reshape(3, 5 + CLASSES)
        v[:, 4] -= 3.0
        v[:, 5:] += np.linspace(-0.5, 0.5, CLASSES)
        v = v.reshape(-1)
    return v


def reference(out, data, feeds, counts):
    """Paddle's outputs on feeds, with the checks that they are fit to compare at 1e-4 (detect_headlib.nms_margins;
    yolo_box zeroes a box whose objectness sigmoid is below conf_thresh, so none may sit at that threshold either).
    counts(rois_num) says whether the detections per image are the ones wanted."""
    nms_in = dh.op_args(data, "multiclass_nms3", "BBoxes") + dh.op_args(data, "multiclass_nms3", "Scores")
    fetch, outputs, extra = dh.run_saved(out, feeds, nms_in + dh.op_args(data, "yolo_box", "X"))
    boxes, scores, raw = extra[0], extra[1], extra[2:]
    det, index, rois_num = (a for a, _ in outputs)
    checks = dh.nms_margins(boxes, scores, det, rois_num, NMS)
    conf = np.concatenate([1 / (1 + np.exp(-r.reshape(r.shape[0], 3, 5 + CLASSES, -1)[:, :, 4].astype(np.float64)))
                           .reshape(-1) for r in raw])
    checks["conf_thresh_margin"] = float(np.min(np.abs(conf - CONF_THRESH)) / CONF_THRESH)
    checks["boxes_over_conf_thresh"] = int((conf > CONF_THRESH).sum())
    checks["detections_per_image"] = [int(n) for n in rois_num]
    print("yolov3:", checks)
    assert counts(rois_num), rois_num
    for k in ("score_threshold_margin", "iou_threshold_margin", "suppressing_pair_score_gap", "kept_score_gap",
              "conf_thresh_margin"):
        assert checks[k] > 1e-5, (k, checks[k])
    return fetch, outputs, checks


def main():
    paddle.disable_static()
    out = dh.path("yolov3")
    model = YOLOv3()
    dh.synth_weights(model, "yolov3", objectness_bias)
    specs = [InputSpec([None, 3, SIZE, SIZE], "float32", "image"), InputSpec([None, 2], "float32", "im_shape"),
             InputSpec([None, 2], "float32", "scale_factor")]
    data = dh.export(model, specs, out)
    images = np.stack([dh.image("yolov3", 0, SIZE), dh.image("yolov3", 1, SIZE)])
    feeds = {"image": images, "im_shape": np.array([[SIZE, SIZE]] * 2, dtype=np.float32),
             "scale_factor": np.array([[SIZE / 480, SIZE / 640], [SIZE / 384, SIZE / 384]], dtype=np.float32)}
    fetch, outputs, checks = reference(out, data, feeds, lambda n: all(5 <= k <= 50 for k in n))
    # cases/empty_image: the second image faded to a tenth, so that nothing of it passes (NmsRoisNum 0 for it).
    empty = dict(feeds, image=np.stack([images[0], images[1] * np.float32(0.1)]))
    _, empty_outputs, empty_checks = reference(out, data, empty, lambda n: 5 <= n[0] <= 50 and n[1] == 0)
    out_name = fetch[0].replace("/", "_")
    # Out within the 1e-4 relative (atol 1e-5: a coordinate clipped to 0), Index and NmsRoisNum exactly;
    # Out and Index as sets of rows within runs of equal score (there are none here: checks.kept_score_gap).
    dh.write_fixture(out, __file__, data, feeds, fetch, outputs,
                     {out_name: "1e-4 1e-5 ties 1", fetch[1].replace("/", "_"): f"0 0 ties-from {out_name} 1",
                      "*": "0 0"}, {"main": checks, "empty_image": empty_checks},
                     "yolo_box -> transpose/concat -> multiclass_nms3 (Out, Index, NmsRoisNum)",
                     cases={"empty_image": (empty, empty_outputs)})


if __name__ == "__main__":
    main()
