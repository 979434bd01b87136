"""A PP-YOLOE-style detector, small, as PaddleDetection builds its PP-YOLOE head: the model behind
test/fixtures/detect/ppyoloe (Paddle 2.6.2, tools/fixtures_ppyoloe.py) and test/fixtures/detect_pir/ppyoloe (Paddle
3.3.1, tools/fixtures_pir_detect.py).

  backbone  five stride-2 conv+BN+swish stages; features at strides 8, 16, 32
  head      ET-head style: effective squeeze-excite (ESE) on each level's feature for the class and the box
            branches; boxes as distributions over REG_MAX + 1 bins per side (distribution focal loss): softmax,
            then a fixed 1x1 projection conv (0, 1, ..., REG_MAX) gives each side's distance in strides
  decode    anchor points made at run time from each level's size read with shape (arange + meshgrid + stack,
            full for the strides), distance-to-box, boxes divided by scale_factor (flipped and tiled), and
            multiclass_nms3 (pixel boxes, background_label -1) on the sigmoid scores
The image size is free: anchors follow it.
"""

import numpy as np

import paddle
import paddle.nn as nn
import paddle.nn.functional as F

REG_MAX = 8
CLASSES = 3
STRIDES = (8, 16, 32)
NMS = dict(score_threshold=0.3, nms_top_k=100, keep_top_k=30, nms_threshold=0.6, normalized=False, nms_eta=1.0,
           background_label=-1)


class ConvBN(nn.Layer):
    def __init__(self, cin, cout, k=3, stride=1):
        super().__init__()
        self.conv = nn.Conv2D(cin, cout, k, stride, k // 2, bias_attr=False)
        self.bn = nn.BatchNorm2D(cout)

    def forward(self, x):
        return F.swish(self.bn(self.conv(x)))


class ESE(nn.Layer):
    def __init__(self, c):
        super().__init__()
        self.fc = nn.Conv2D(c, c, 1)
        self.conv = ConvBN(c, c, 1)

    def forward(self, feat, avg):
        return self.conv(feat * F.sigmoid(self.fc(avg)))


class PPYOLOE(nn.Layer):
    """forward(image, scale_factor) -> multiclass_nms3's (Out, Index, NmsRoisNum), the NMS op given by `nms`
    (PaddleDetection appends it with LayerHelper under Paddle 2, calls _C_ops under Paddle 3)."""

    def __init__(self, nms):
        super().__init__()
        self.nms = nms
        chans = (32, 48, 48)
        self.stages = nn.LayerList([ConvBN(3, 16, 3, 2), ConvBN(16, 24, 3, 2), ConvBN(24, 32, 3, 2),
                                    ConvBN(32, 48, 3, 2), ConvBN(48, 48, 3, 2)])
        self.stem_cls = nn.LayerList([ESE(c) for c in chans])
        self.stem_reg = nn.LayerList([ESE(c) for c in chans])
        self.pred_cls = nn.LayerList([nn.Conv2D(c, CLASSES, 3, padding=1) for c in chans])
        self.pred_reg = nn.LayerList([nn.Conv2D(c, 4 * (REG_MAX + 1), 3, padding=1) for c in chans])
        self.proj_conv = nn.Conv2D(REG_MAX + 1, 1, 1, bias_attr=False)

    def forward(self, image, scale_factor):
        feats, x = [], image
        for i, stage in enumerate(self.stages):
            x = stage(x)
            if i >= 2:
                feats.append(x)
        scores, dists, points, strides = [], [], [], []
        for i, (f, stride) in enumerate(zip(feats, STRIDES)):
            h, w = paddle.shape(f)[2], paddle.shape(f)[3]
            avg = F.adaptive_avg_pool2d(f, (1, 1))
            cls = self.pred_cls[i](self.stem_cls[i](f, avg) + f)
            reg = self.pred_reg[i](self.stem_reg[i](f, avg))
            reg = reg.reshape([-1, 4, REG_MAX + 1, h * w]).transpose([0, 2, 3, 1])
            dists.append(self.proj_conv(F.softmax(reg, axis=1)).squeeze(1))  # [N, h*w, 4], in strides
            scores.append(F.sigmoid(cls).flatten(2).transpose([0, 2, 1]))  # [N, h*w, C]
            xs = (paddle.arange(end=w, dtype="float32") + 0.5) * stride
            ys = (paddle.arange(end=h, dtype="float32") + 0.5) * stride
            yy, xx = paddle.meshgrid(ys, xs)
            points.append(paddle.stack([xx, yy], axis=-1).reshape([-1, 2]))
            strides.append(paddle.full([h * w, 1], stride, "float32"))
        dist = paddle.concat(dists, axis=1) * paddle.concat(strides)
        pts = paddle.concat(points)
        lt, rb = paddle.split(dist, 2, axis=-1)
        boxes = paddle.concat([pts - lt, pts + rb], axis=-1)  # [N, A, 4] in input pixels
        boxes = boxes / paddle.flip(scale_factor, [-1]).tile([1, 2]).unsqueeze(1)  # in original pixels
        return self.nms(boxes, paddle.concat(scores, axis=1).transpose([0, 2, 1]))


def override(name, v):
    """The class biases lowered, so that fewer boxes than keep_top_k survive (no cut between equal scores); the projection is
    the fixed bin centres 0..REG_MAX (as PP-YOLOE's proj_conv)."""
    if name.startswith("pred_cls") and name.endswith("bias"):
        return v - 2.0
    if name == "proj_conv.weight":
        return np.linspace(0, REG_MAX, REG_MAX + 1).reshape(1, REG_MAX + 1, 1, 1)
    return v
