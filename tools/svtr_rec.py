"""An SVTR-LCNet-style text recogniser, the architecture of PaddleOCR's PP-OCRv3 recogniser, at a small width: the
model behind test/fixtures/models/svtr_rec (Paddle 2.6.2, tools/fixtures_models.py) and
test/fixtures/pir_models/svtr_rec (Paddle 3.3.1, tools/fixtures_pir_models.py).

  backbone  MobileNetV1Enhance-style: a stride-2 stem, depthwise-separable blocks (3x3 and 5x5 depthwise, hard_swish,
            squeeze-excite with hard_sigmoid), strides (2, 1) that keep the width, a 2x2 max pool
  neck      EncoderWithSVTR: conv (swish) down to the mixer width, flatten to a sequence of H*W tokens, two
            pre-norm transformer blocks (multi-head attention, a swish MLP), layer_norm, back to [N, C, H, W],
            conv, concat with the shortcut, two convs
  head      CTC: mean over the height, fc to 37 classes, softmax; x [N, 3, 48, W] with W free (W/4 steps)
"""

import paddle
import paddle.nn as nn
import paddle.nn.functional as F


class ConvBN(nn.Layer):
    def __init__(self, cin, cout, k, stride, groups=1, act="hardswish"):
        super().__init__()
        self.conv = nn.Conv2D(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias_attr=False)
        self.bn = nn.BatchNorm2D(cout)
        self.act = act

    def forward(self, x):
        x = self.bn(self.conv(x))
        return F.hardswish(x) if self.act == "hardswish" else F.swish(x)


class SqueezeExcite(nn.Layer):
    def __init__(self, c):
        super().__init__()
        self.reduce = nn.Conv2D(c, c // 4, 1)
        self.expand = nn.Conv2D(c // 4, c, 1)

    def forward(self, x):
        a = F.relu(self.reduce(F.adaptive_avg_pool2d(x, 1)))
        return x * F.hardsigmoid(self.expand(a), slope=0.2, offset=0.5)


class DepthwiseSeparable(nn.Layer):
    def __init__(self, cin, cout, stride, k=3, se=False):
        super().__init__()
        self.dw = ConvBN(cin, cin, k, stride, groups=cin)
        self.se = SqueezeExcite(cin) if se else None
        self.pw = ConvBN(cin, cout, 1, 1)

    def forward(self, x):
        x = self.dw(x)
        if self.se is not None:
            x = self.se(x)
        return self.pw(x)


class Attention(nn.Layer):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.scale = (dim // heads) ** -0.5

    def forward(self, x):
        c = x.shape[2]
        qkv = self.qkv(x).reshape((0, -1, 3, self.heads, c // self.heads)).transpose((2, 0, 3, 1, 4))
        q, k, v = qkv[0] * self.scale, qkv[1], qkv[2]
        a = F.softmax(q.matmul(k.transpose((0, 1, 3, 2))), axis=-1)
        return self.proj(a.matmul(v).transpose((0, 2, 1, 3)).reshape((0, -1, c)))


class MixerBlock(nn.Layer):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, epsilon=1e-5)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim, epsilon=1e-5)
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.fc2 = nn.Linear(2 * dim, dim)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.fc2(F.swish(self.fc1(self.norm2(x))))


class SVTRRec(nn.Layer):
    def __init__(self, classes=37):
        super().__init__()
        self.stem = ConvBN(3, 16, 3, 2)
        self.blocks = nn.Sequential(DepthwiseSeparable(16, 32, 1), DepthwiseSeparable(32, 64, (2, 1)),
                                    DepthwiseSeparable(64, 64, 1, k=5, se=True),
                                    DepthwiseSeparable(64, 96, (2, 1), se=True))
        self.pool = nn.MaxPool2D(2, 2)
        self.down1 = ConvBN(96, 24, 3, 1, act="swish")
        self.down2 = ConvBN(24, 48, 1, 1, act="swish")
        self.mixer = nn.Sequential(MixerBlock(48, 4), MixerBlock(48, 4))
        self.norm = nn.LayerNorm(48, epsilon=1e-6)
        self.up = ConvBN(48, 96, 1, 1, act="swish")
        self.fuse1 = ConvBN(192, 24, 3, 1, act="swish")
        self.fuse2 = ConvBN(24, 48, 1, 1, act="swish")
        self.fc = nn.Linear(48, classes)

    def forward(self, x):
        x = self.pool(self.blocks(self.stem(x)))  # [N, 96, 3, W/4]
        z = self.down2(self.down1(x))
        _, c, h, w = z.shape
        z = self.norm(self.mixer(z.flatten(2).transpose((0, 2, 1))))  # [N, H*W, C]
        z = self.up(z.reshape((0, h, w, c)).transpose((0, 3, 1, 2)))
        z = self.fuse2(self.fuse1(paddle.concat([x, z], axis=1)))
        return F.softmax(self.fc(z.mean(axis=2).transpose((0, 2, 1))), axis=2)  # [N, W/4, classes]
