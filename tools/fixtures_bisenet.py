#!/usr/bin/env python3
"""A BiSeNet (V1) segmenter built and exported as PaddleSeg builds and exports its BiSeNet models, with Paddle
2.6.2's outputs on it: test/fixtures/detect/bisenet/ (layout: tools/detect_headlib.py; test: e2e_detect_bisenet).

  spatial path   three conv+BN+relu blocks at stride 2: 1/8 of the input, wide
  context path   a deeper stride-2 conv stack to 1/16 and 1/32; an attention refinement module on each (3x3 conv,
                 then global average pool, 1x1 conv, BN, sigmoid, multiply); the 1/32 branch plus the global
                 context (global average pool, 1x1 conv, broadcast add), each upsampled bilinearly to the next
                 level's size taken from paddle.shape (OutSize/SizeTensor inputs, as PaddleSeg's F.interpolate
                 calls give) and added
  fusion         feature fusion module: concat, conv+BN+relu, channel attention (global pool, 1x1 conv, relu,
                 1x1 conv, sigmoid), x * a + x
  head           3x3 conv+BN+relu, 1x1 conv to the classes, F.interpolate(mode='bilinear', align_corners=False)
                 (bilinear_interp_v2) back to the input size; PaddleSeg's export appends argmax (axis 1, int32)
  exported       input [-1, 3, -1, -1] (any size, as PaddleSeg exports by default); outputs: the label map and the
                 upsampled logits (the latter to compare within 1e-4, the former exactly)
  weights        synthesized (detect_headlib.synth_weights); inputs: one synthetic 48x64 image and (cases/odd_size)
                 a batch of two at 33x47, each the first found whose every pixel's top two logits lie apart (so the
                 argmax is no coin toss)

  /tmp/pd/bin/python tools/fixtures_bisenet.py
"""

import numpy as np

import detect_headlib as dh  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.static import InputSpec

CLASSES = 5
H, W = 48, 64


class ConvBN(nn.Layer):
    def __init__(self, cin, cout, k=3, stride=1):
        super().__init__()
        self.conv = nn.Conv2D(cin, cout, k, stride=stride, padding=k // 2, bias_attr=False)
        self.bn = nn.BatchNorm2D(cout)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class AttentionRefinement(nn.Layer):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = ConvBN(cin, cout)
        self.atten = nn.Conv2D(cout, cout, 1, bias_attr=False)
        self.bn = nn.BatchNorm2D(cout)

    def forward(self, x):
        x = self.conv(x)
        a = F.sigmoid(self.bn(self.atten(F.adaptive_avg_pool2d(x, 1))))
        return x * a


class FeatureFusion(nn.Layer):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = ConvBN(cin, cout, 1)
        self.a1 = nn.Conv2D(cout, cout // 4, 1)
        self.a2 = nn.Conv2D(cout // 4, cout, 1)

    def forward(self, sp, cp):
        x = self.conv(paddle.concat([sp, cp], axis=1))
        a = F.sigmoid(self.a2(F.relu(self.a1(F.adaptive_avg_pool2d(x, 1)))))
        return x * a + x


def resize_to(x, like):
    """Bilinear resize to another feature's size read at run time, as PaddleSeg's
    F.interpolate(x, paddle.shape(y)[2:]) does."""
    return F.interpolate(x, paddle.shape(like)[2:], mode="bilinear", align_corners=False)


class BiSeNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.spatial = nn.Sequential(ConvBN(3, 16, 3, 2), ConvBN(16, 16, 3, 2), ConvBN(16, 32, 3, 2))
        self.ctx8 = nn.Sequential(ConvBN(3, 8, 3, 2), ConvBN(8, 16, 3, 2), ConvBN(16, 24, 3, 2))
        self.ctx16 = ConvBN(24, 32, 3, 2)
        self.ctx32 = ConvBN(32, 48, 3, 2)
        self.arm16 = AttentionRefinement(32, 24)
        self.arm32 = AttentionRefinement(48, 24)
        self.global_ctx = ConvBN(48, 24, 1)
        self.ffm = FeatureFusion(32 + 24, 32)
        self.head = ConvBN(32, 32)
        self.cls = nn.Conv2D(32, CLASSES, 1)

    def forward(self, x):
        sp = self.spatial(x)
        c16 = self.ctx16(self.ctx8(x))
        c32 = self.ctx32(c16)
        g = self.global_ctx(F.adaptive_avg_pool2d(c32, 1))
        up32 = resize_to(self.arm32(c32) + g, c16)
        cp = resize_to(self.arm16(c16) + up32, sp)
        logits = self.cls(self.head(self.ffm(sp, cp)))
        logits = F.interpolate(logits, paddle.shape(x)[2:], mode="bilinear", align_corners=False)
        return paddle.argmax(logits, axis=1, keepdim=True, dtype="int32"), logits


def well_apart(out, tag, n, h, w):
    """Paddle's outputs on the first synthetic batch (in seed order) of n images of h x w whose every pixel's top two
    logits lie further apart than the logits' own tolerance lets them move (2 * (1e-4 * max |top two| + 1e-5)): the
    label map is compared exactly, and a pass on the logits must not leave room for a flipped label."""
    for seed in range(20):
        feeds = {"x": np.stack([dh.image(f"bisenet/{tag}", seed * n + i, h, w) for i in range(n)])}
        fetch, outputs, _ = dh.run_saved(out, feeds)
        labels, logits = (a for a, _ in outputs)
        top2 = np.sort(logits.astype(np.float64), axis=1)[:, -2:]
        slack = (top2[:, 1] - top2[:, 0]) / (2 * (1e-4 * np.abs(top2).max(axis=1) + 1e-5))
        print(f"bisenet {tag}: seed {seed}: {int((slack <= 1).sum())} pixels whose label the logits' tolerance could "
              "flip")
        if slack.min() > 1:
            break
    checks = {"input_seed": seed, "min_top2_gap_over_tolerance": float(slack.min()),
              "max_abs_logit": float(np.max(np.abs(logits))),
              "pixels_per_class": np.bincount(labels.reshape(-1), minlength=CLASSES).tolist()}
    print(f"bisenet {tag}:", checks)
    assert checks["min_top2_gap_over_tolerance"] > 1, checks
    assert sum(n > 0 for n in checks["pixels_per_class"]) >= 3, checks
    return feeds, fetch, outputs, checks


def main():
    paddle.disable_static()
    out = dh.path("bisenet")
    model = BiSeNet()
    dh.synth_weights(model, "bisenet")
    data = dh.export(model, [InputSpec([None, 3, None, None], "float32", "x")], out)
    feeds, fetch, outputs, checks = well_apart(out, "main", 1, H, W)
    # The exported program takes any size: the same binary on a batch of 2 at an odd size (stride-2 convs round up,
    # the bilinear resizes go between sizes of no integer ratio).
    odd_feeds, _, odd_outputs, odd_checks = well_apart(out, "odd", 2, 33, 47)
    # The logits within the 1e-4 relative (atol 1e-5: a logit near 0 is a sum of O(1) terms and carries their
    # absolute rounding); the label map exactly (checks: every pixel's top two logits are further apart than that).
    names = [n.replace("/", "_") for n in fetch]
    dh.write_fixture(out, __file__, data, feeds, fetch, outputs, {names[0]: "0 0", names[1]: "1e-4 1e-5"},
                     {"main": checks, "odd_size": odd_checks},
                     "spatial + context paths, attention refinement, feature fusion, bilinear_interp_v2, argmax",
                     cases={"odd_size": (odd_feeds, odd_outputs)})


if __name__ == "__main__":
    main()
