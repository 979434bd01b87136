"""Paddle 3 (PIR JSON) op cases for fluidc's PIR front end: test/fixtures/pir_ops/<case>/.

Run from tools/ with Paddle 3.3.1:  /tmp/pd3/bin/python fixtures_pir_ops.py [CASE ...]

Each case is a small paddle.nn.Layer saved with paddle.jit.save (PIR JSON), so the program is exactly what
Paddle 3 writes for those ops. Together the cases use every row of the op table in compiler/ir/pir_ops.cc
(kSpecs), with the attribute variety that changes the operand forms: constant and run-time shapes, constant
and tensor slice starts, interpolation by scale and by size, split by sections and by count.

Layout per case:
  inference.json, inference.pdiparams   what paddle.jit.save wrote
  inputs/<feed>.npy                     deterministic inputs, named after the pd_op.data ops
  expected/<fetch>.npy                  Paddle 3 running the SAVED model (paddle.inference, no IR passes),
                                        named after the fetch ops ("fetch_name_0", ...)
  tolerance                             "RTOL ATOL" for test/e2e/pir_case.sh
  meta.json                             Paddle version, this script, and each pd_op in the program with
                                        Paddle's own operand/result names (the facts kSpecs must follow)
"""

import os

for _k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_k, "1")
os.environ.setdefault("FLAGS_cpu_deterministic", "1")
os.environ.setdefault("GLOG_minloglevel", "2")

import hashlib  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import paddle  # noqa: E402
import paddle.nn as nn  # noqa: E402
import paddle.nn.functional as F  # noqa: E402

warnings.filterwarnings("ignore")
paddle.set_device("cpu")

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "test" / "fixtures" / "pir_ops"
SPECS = REPO / "compiler" / "ir" / "pir_ops.cc"
# float32 kernels summing in another order than Paddle's agree to a few ulps per term; the cases are small
# (at most a few hundred terms per output), so 1e-5 relative and 1e-6 absolute (outputs near zero) hold.
DEFAULT_TOL = (1e-5, 1e-6)

CASES = {}


def case(name, tol=DEFAULT_TOL):
    def deco(fn):
        CASES[name] = (fn, tol)
        return fn

    return deco


def rng(name):
    return np.random.default_rng(int(hashlib.sha256(name.encode()).hexdigest()[:8], 16))


def spec(name, shape, dtype="float32"):
    return paddle.static.InputSpec(shape, dtype, name)


def uniform(r, shape, low=-1.0, high=1.0):
    return r.uniform(low, high, size=shape).astype("float32")


# --------------------------------------------------------------------------
# the cases: each returns (layer, [InputSpec], [input array])
# --------------------------------------------------------------------------


@case("conv2d")
def conv2d_case(r):
    class M(nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2D(4, 6, 3, padding=1, stride=2)
            self.dw = nn.Conv2D(6, 6, 3, padding=1, groups=6)
            self.bn = nn.BatchNorm2D(6)
            self.up = nn.Conv2DTranspose(6, 4, 3, stride=2, padding=1)
            self.dwup = nn.Conv2DTranspose(4, 4, 4, stride=2, padding=1, groups=4)

        def forward(self, x):
            y = F.relu(self.bn(self.dw(self.conv(x))))
            m = F.max_pool2d(y, 2, 2)
            a = F.avg_pool2d(y, 3, 1, padding=1, exclusive=False)
            g = F.adaptive_avg_pool2d(y, 1)
            t = self.up(a, output_size=[7, 7])
            return m, t, self.dwup(t), g

    return M(), [spec("x", [None, 4, 8, 8])], [uniform(r, [2, 4, 8, 8])]


@case("conv3d")
def conv3d_case(r):
    class M(nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv3D(2, 3, 3, padding=1)

        def forward(self, x):
            y = self.conv(x)
            return F.max_pool3d(y, 2, 2), F.avg_pool3d(y, [1, 2, 2], [1, 2, 2])

    return M(), [spec("x", [None, 2, 4, 6, 6])], [uniform(r, [2, 2, 4, 6, 6])]


@case("norms")
def norms_case(r):
    class M(nn.Layer):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm([6, 6])
            self.inorm = nn.InstanceNorm2D(4)
            self.gn = nn.GroupNorm(2, 4)
            self.gn_nhwc = nn.GroupNorm(2, 6, data_format="NHWC")
            self.bn_nhwc = nn.BatchNorm2D(6, data_format="NHWC")

        def forward(self, x, xi):
            return self.ln(x), self.inorm(xi), self.gn(x), self.gn_nhwc(x), self.bn_nhwc(x)

    m = M()
    # Non-trivial affine parameters: the defaults (ones, zeros) would hide swapped Scale/Bias operands.
    for p in m.parameters():
        p.set_value(uniform(r, p.shape, 0.5, 1.5))
    # With batch None Paddle types instance_norm's saved mean as [-4] (N*C): any negative size is unknown.
    return (m, [spec("x", [None, 4, 6, 6]), spec("xi", [None, 4, 6, 6])],
            [uniform(r, [2, 4, 6, 6], -2, 2), uniform(r, [2, 4, 6, 6], -2, 2)])


@case("activations")
def activations_case(r):
    class M(nn.Layer):
        def __init__(self):
            super().__init__()
            self.prelu = nn.PReLU(3, 0.2)

        def forward(self, x):
            return (F.relu6(x * 4), F.sigmoid(x), F.tanh(x), F.gelu(x), F.gelu(x, approximate=True), F.silu(x),
                    F.swish(x), F.hardswish(x * 4), F.hardsigmoid(x * 4), F.leaky_relu(x, 0.15), F.elu(x, 0.7),
                    F.softplus(x, beta=2, threshold=5), F.mish(x), self.prelu(x),
                    paddle._C_ops.mish(x, 0.5))  # a threshold that changes the result

    return M(), [spec("x", [None, 3, 4])], [uniform(r, [2, 3, 4], -2, 2)]


@case("math")
def math_case(r):
    class M(nn.Layer):
        def forward(self, x, lo):
            p = paddle.abs(x) + 0.5  # positive, for log/sqrt/rsqrt/reciprocal/pow
            return (paddle.exp(x), paddle.log(p), paddle.sqrt(p), paddle.rsqrt(p), paddle.abs(x), paddle.erf(x),
                    paddle.sin(x), paddle.cos(x), paddle.floor(x * 3), paddle.square(x), paddle.reciprocal(p),
                    paddle.pow(p, 2.5), paddle.clip(x, -0.5, 0.7),
                    F.softmax(x, axis=1), F.log_softmax(x, axis=-1), paddle.scale(x, 2.0, 0.5),
                    paddle.scale(x, lo, 1.0, bias_after_scale=False))

    return M(), [spec("x", [None, 3, 5]), spec("lo", [1])], [uniform(r, [2, 3, 5], -2, 2),
                                                              np.array([-0.3], "float32")]


@case("dropout")
def dropout_case(r):
    class M(nn.Layer):
        def __init__(self):
            super().__init__()
            self.up = nn.Dropout(0.3)
            self.down = nn.Dropout(0.4, mode="downscale_in_infer")

        def forward(self, x):
            # Both stay dropout ops (is_test) in eval; upscale's output is x, downscale's x * (1 - p), so the
            # mode attribute (ProgramDesc's default is downscale) decides the result.
            return self.up(x) + 1.0, self.down(x)

    return M(), [spec("x", [None, 6])], [uniform(r, [3, 6])]


@case("elementwise")
def elementwise_case(r):
    class M(nn.Layer):
        def forward(self, x, y):
            b = y[0]  # [4]: broadcast along the last axis
            f = lambda c: paddle.cast(c, "float32")  # noqa: E731
            return (x + b, x - y, x * y, x / (paddle.abs(y) + 1), paddle.maximum(x, y), paddle.minimum(x, b),
                    paddle.pow(paddle.abs(x) + 0.5, y), f(x > y), f(x < b), f(x == paddle.floor(x)),
                    f(paddle.floor(x * 2) != paddle.floor(y * 2)), paddle.where(x > y, x, y * 2))

    return (M(), [spec("x", [None, 3, 4]), spec("y", [None, 3, 4])],
            [uniform(r, [2, 3, 4]), uniform(r, [2, 3, 4])])


@case("reductions")
def reductions_case(r):
    class M(nn.Layer):
        def __init__(self):
            super().__init__()
            self.w = self.create_parameter([5, 4])

        def forward(self, x, y):
            return (paddle.matmul(x, self.w), paddle.matmul(x, y, transpose_y=True),
                    paddle.matmul(paddle.transpose(x, [0, 2, 1]), self.w, transpose_x=True), paddle.bmm(x, paddle.transpose(y, [0, 2, 1])),
                    paddle.mean(x, axis=1), paddle.sum(x, axis=[1, 2], keepdim=True, dtype="float32"), paddle.max(x, axis=-1),
                    paddle.min(x, axis=0, keepdim=True), paddle.cast(paddle.argmax(x, axis=2, keepdim=True), "float32"),
                    paddle.cast(paddle.argmin(x, axis=1), "float32"), paddle.topk(x, 2, axis=-1)[0],
                    paddle.cast(paddle.topk(x, 3, axis=1, largest=False)[1], "float32"), paddle.cumsum(x, axis=1),
                    paddle._C_ops.cumsum(x, -1, False, True, True),  # exclusive, reverse
                    paddle.mean(x))

    m = M()
    m.w.set_value(uniform(r, [5, 4]))
    return (m, [spec("x", [None, 3, 5]), spec("y", [None, 4, 5])],
            [uniform(r, [2, 3, 5]), uniform(r, [2, 4, 5])])


@case("reshape")
def reshape_case(r):
    class M(nn.Layer):
        def forward(self, x):
            s = paddle.shape(x)
            a = paddle.reshape(x, [0, 4, -1])                    # constant shape
            b = paddle.reshape(x, [s[0], s[1] * 2, s[2] // 2])    # shape computed at run time
            c = paddle.flatten(x, 1, 2)
            d = paddle.transpose(x, [2, 0, 1])
            e = paddle.squeeze(paddle.unsqueeze(x, [1, 4]), [4])  # constant axes
            g = paddle.unsqueeze(x, s[0] - s[0] + 1)              # axis from a tensor
            return a, b, c, d, e, g

    return M(), [spec("x", [None, 4, 6])], [uniform(r, [2, 4, 6])]


@case("concat_split")
def concat_split_case(r):
    class M(nn.Layer):
        def forward(self, x, y):
            c = paddle.concat([x, y], axis=1)
            st = paddle.stack([x, x * 2], axis=-1)
            s1, s2, s3 = paddle.split(c, [2, 3, 3], axis=1)    # sections
            h1, h2 = paddle.split(x, 2, axis=-1)               # a count
            return c, st, s1, s2, s3, h1, h2

    return (M(), [spec("x", [None, 3, 4]), spec("y", [None, 5, 4])],
            [uniform(r, [2, 3, 4]), uniform(r, [2, 5, 4])])


@case("slice")
def slice_case(r):
    class M(nn.Layer):
        def forward(self, x, start):
            s = paddle.shape(x)
            a = paddle.slice(x, [1, 2], [1, 0], [3, 4])                  # constant starts/ends
            b = paddle.slice(x, [1], [start], [s[1]])                      # tensors in a list
            c = paddle.slice(x, [1, 2], start.tile([2]), s[1:3])         # one tensor each
            d = paddle.strided_slice(x, [1, 2], [0, 5], [4, 0], [2, -2])
            e = x[:, ::2, 1:]
            return a, b, c, d, e

    return (M(), [spec("x", [None, 4, 6]), spec("start", [1], "int64")],
            [uniform(r, [2, 4, 6]), np.array([1], "int64")])


@case("expand_gather")
def expand_gather_case(r):
    class M(nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 3, padding_idx=1)  # rows for id 1 are zeros

        def forward(self, x, idx):
            s = paddle.shape(x)
            e1 = paddle.expand(x[:, :1], [-1, 4, 3])              # constant shape
            e2 = paddle.expand(x[:1], [s[0], 4, 3])               # shape from tensors
            t = paddle.tile(x, [1, 2, 1])                        # constant repeats
            t2 = paddle.tile(x, [s[0] // s[0], 1, s[0]])         # repeats from tensors
            g = paddle.gather(x, idx, axis=1)
            g0 = paddle.gather(x, idx)
            nd = paddle.gather_nd(x, paddle.reshape(idx, [-1, 1]) % 2)
            isel = paddle.index_select(x, idx, axis=2)
            em = self.emb(idx)
            oh = F.one_hot(idx, 5)
            ci = paddle.cast(idx, "float32")
            return (e1, e2, t, t2, g, g0, nd, isel, em, oh, ci, paddle.assign(x) * 2,
                    paddle.sum(idx, axis=0, keepdim=True, dtype="float32"))  # an int64 sum kept as float32

    m = M()
    return (m, [spec("x", [None, 4, 3]), spec("idx", [3], "int64")],
            [uniform(r, [2, 4, 3]), np.array([1, 0, 1], "int64")])


@case("fill")
def fill_case(r):
    class M(nn.Layer):
        def forward(self, x):
            s = paddle.shape(x)
            n = paddle.arange(0, s[1], 1, dtype="float32")
            return paddle.full_like(x, 2.5) + n, paddle.ones_like(x), paddle.zeros_like(x) + x

    return M(), [spec("x", [None, 5])], [uniform(r, [2, 5])]


@case("interp_pad")
def interp_pad_case(r):
    class M(nn.Layer):
        def forward(self, x, grid):
            a = F.interpolate(x, scale_factor=2, mode="nearest")
            b = F.interpolate(x, size=[5, 7], mode="bilinear", align_corners=False)
            c = F.interpolate(x, size=[paddle.shape(grid)[1], 6], mode="bilinear", align_corners=True)
            d = F.interpolate(x, size=paddle.cast(paddle.shape(grid)[1:3], "int32"), mode="nearest")  # one tensor
            e = F.interpolate(x, scale_factor=paddle.cast(paddle.shape(grid)[1:2], "float32") / 2, mode="bilinear")
            p = F.pad(x, [1, 2, 0, 1], mode="reflect")
            q = F.pad(x, [1, 1, 2, 0], value=0.5)
            ps = F.pixel_shuffle(x, 2)
            gs = F.grid_sample(x, grid, align_corners=False)
            f = F.interpolate(x, size=[3, 5], mode="bilinear", data_format="NHWC")
            return a, b, c, d, e, p, q, ps, gs, f

    return (M(), [spec("x", [None, 4, 4, 4]), spec("grid", [None, 3, 5, 2])],
            [uniform(r, [2, 4, 4, 4]), uniform(r, [2, 3, 5, 2], -1.1, 1.1)])


@case("lstm")
def lstm_case(r):
    class M(nn.Layer):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(4, 5, num_layers=1, direction="bidirect")
            self.gru = nn.GRU(10, 3)

        def forward(self, x):
            y, (h, c) = self.lstm(x)
            z, hz = self.gru(y)
            return y, h, c, z

    return M(), [spec("x", [None, 6, 4])], [uniform(r, [2, 6, 4])]


@case("detection")
def detection_case(r):
    class M(nn.Layer):
        def __init__(self):
            super().__init__()
            self.head = nn.Conv2D(4, 2 * (5 + 3), 1)

        def forward(self, x, img, image, targets):
            p = self.head(x)
            boxes, scores = paddle.vision.ops.yolo_box(p, img, [4, 6, 8, 10], 3, 0.01, 8, clip_bbox=True)
            pb, pv = paddle.vision.ops.prior_box(x, image, min_sizes=[8.0], max_sizes=[16.0], aspect_ratios=[2.0],
                                                 variance=[0.1, 0.1, 0.2, 0.2], steps=[8.0, 8.0], clip=True)
            pb2 = paddle.reshape(pb, [-1, 4])
            pv2 = paddle.reshape(pv, [-1, 4])
            dec = paddle.vision.ops.box_coder(pb2, pv2, targets, code_type="decode_center_size", axis=0)
            bs = paddle.transpose(scores, [0, 2, 1])
            out, index, num = paddle._C_ops.multiclass_nms3(boxes, bs, None, 0.05, 10, 5, 0.5, True, 1.0, -1)
            mo, mnum, midx = paddle.vision.ops.matrix_nms(boxes, bs, 0.05, 0.1, 10, 5, background_label=-1,
                                                          return_index=True, return_rois_num=True)
            f = lambda t: paddle.cast(t, "float32")  # noqa: E731
            return boxes, scores, pb, pv, dec, out, f(index), f(num), mo, f(mnum), f(midx)

    m = M()
    n_priors = 4 * 4 * 3
    return (m, [spec("x", [1, 4, 4, 4]), spec("img", [1, 2], "int32"), spec("image", [1, 3, 32, 32]),
                spec("targets", [1, n_priors, 4])],
            [uniform(r, [1, 4, 4, 4]), np.array([[32, 40]], "int32"), uniform(r, [1, 3, 32, 32]),
             uniform(r, [1, n_priors, 4], -0.5, 0.5)])


@case("unary_more")
def unary_more_case(r):
    class M(nn.Layer):
        def forward(self, x):
            u = x * 0.45  # inside (-1, 1) for asin/acos/atanh (x is in [-2, 2))
            p = paddle.abs(x) + 0.5
            return (paddle.ceil(x * 3), paddle.sign(x), paddle.log1p(p), paddle.log2(p), paddle.log10(p),
                    paddle.expm1(x), paddle.tan(u), paddle.atan(x), paddle.asin(u), paddle.acos(u), paddle.sinh(x),
                    paddle.cosh(x), paddle.round(x * 3), paddle.trunc(x * 3), F.selu(x), F.celu(x, 0.6),
                    F.softsign(x), F.log_sigmoid(x), F.tanhshrink(x), F.hardshrink(x, 0.7), F.softshrink(x, 0.6),
                    F.thresholded_relu(x, 0.4), F.relu(x), paddle.atanh(u), paddle.asinh(x), paddle.acosh(p + 1))

    return M(), [spec("x", [None, 3, 4])], [uniform(r, [2, 3, 4], -2, 2)]


@case("logic")
def logic_case(r):
    class M(nn.Layer):
        def forward(self, x, y, i, j):
            f = lambda c: paddle.cast(c, "float32")  # noqa: E731
            z = x / (y - y)  # inf, -inf and nan (0/0) where y - y is 0
            a, b = x > 0, y > 0
            return (f(paddle.isnan(z)), f(paddle.isinf(z)), f(paddle.isfinite(z * 0 + x)), f(a & b), f(a | b),
                    f(a ^ b), f(~a), f(x >= y), f(x <= y), paddle.fmax(x, y), paddle.fmin(x, y),
                    f(i & j), f(i | j), f(i ^ j), f(~i), f(paddle.logical_and(a, b)), f(paddle.logical_or(a, b)),
                    f(paddle.logical_xor(a, b)), f(paddle.logical_not(a)))

    return (M(), [spec("x", [None, 5]), spec("y", [None, 5]), spec("i", [None, 5], "int32"),
                  spec("j", [None, 5], "int32")],
            [uniform(r, [2, 5]), uniform(r, [2, 5]), r.integers(-8, 8, [2, 5]).astype("int32"),
             r.integers(-8, 8, [2, 5]).astype("int32")])


@case("reduce_more")
def reduce_more_case(r):
    class M(nn.Layer):
        def forward(self, x, v):
            f = lambda c: paddle.cast(c, "float32")  # noqa: E731
            return (paddle.prod(x, axis=1), paddle.amax(x, axis=[0, 2]), paddle.amin(x, axis=-1, keepdim=True),
                    f(paddle.all(x > -0.9, axis=1)), f(paddle.any(x > 0.9, axis=2)), paddle.logsumexp(x, axis=1),
                    paddle.linalg.norm(x, p=2, axis=-1), paddle.linalg.norm(x, p=3, axis=1, keepdim=True),
                    f(paddle.argsort(x, axis=1, descending=True)), paddle.sort(x, axis=-1),
                    paddle.kthvalue(x, 2, axis=2)[0], paddle.cumprod(x, dim=1), paddle.dot(v, v),
                    f(paddle.numel(x)))

    return (M(), [spec("x", [None, 3, 4]), spec("v", [None, 4])], [uniform(r, [2, 3, 4]), uniform(r, [2, 4])])


@case("tensor_more")
def tensor_more_case(r):
    class M(nn.Layer):
        def forward(self, x, idx, upd):
            a, b = paddle.meshgrid(x[0, :, 0], x[0, 0, :])
            us = paddle.unbind(x, axis=1)
            st = paddle.unstack(x, axis=2)
            return (paddle.flip(x, [1, 2]), paddle.roll(x, 1, 2), paddle.roll(x, [1, -1], [1, 2]), a, b, us[0], us[2], st[1],
                    paddle.expand_as(x[:, :1], x), paddle.take_along_axis(x, idx, 1),
                    paddle.scatter(x[0], idx[0, :, 0], upd), paddle.scatter_nd_add(x[0], idx[0, :, :1], upd),
                    paddle.lerp(x, x * 2 + 1, 0.3), paddle.linspace(0.0, 1.0, 5),
                    paddle.einsum("bij,bkj->bik", x, x))

    # indices unique within each scatter target row, so overwrite order cannot matter
    idx = np.ascontiguousarray(np.array([[[2, 0, 1, 0], [1, 2, 0, 2], [0, 1, 2, 1]]] * 2, "int64"))
    return (M(), [spec("x", [None, 3, 4]), spec("idx", [None, 3, 4], "int64"), spec("upd", [3, 4])],
            [uniform(r, [2, 3, 4]), idx, uniform(r, [3, 4])])


@case("pool_more")
def pool_more_case(r):
    class M(nn.Layer):
        def forward(self, x):
            m, mask = F.max_pool2d(x, 2, 2, return_mask=True)
            theta = x[:1, 0, :2, :3] * 0.3  # a small affine map: grid points stay near the input
            return (m, paddle.cast(mask, "float32"), F.maxout(x, 2, axis=1), F.channel_shuffle(x, 2),
                    F.pixel_unshuffle(x, 2), F.affine_grid(theta, [1, 1, 3, 4], align_corners=False),
                    F.unfold(x, [2, 2], strides=2), F.label_smooth(F.softmax(x, 1), epsilon=0.2),
                    F.pad(x[:, :, 0], [1, 2], value=0.25, data_format="NCL"),
                    F.adaptive_max_pool2d(x, 2))

    return M(), [spec("x", [None, 4, 4, 6])], [uniform(r, [2, 4, 4, 6])]


@case("resample_more")
def resample_more_case(r):
    class M(nn.Layer):
        def __init__(self):
            super().__init__()
            self.up3 = nn.Conv3DTranspose(2, 3, 2, stride=2)
            self.offset = nn.Conv2D(2, 2 * 9, 3, padding=1)
            self.mask = nn.Conv2D(2, 9, 3, padding=1)
            self.dcn = paddle.vision.ops.DeformConv2D(2, 3, 3, padding=1)

        def forward(self, x, v, cols):
            x3 = paddle.unsqueeze(x, 2)  # [N, 2, 1, 4, 6]
            m3, mask3 = F.max_pool3d(paddle.concat([x3, x3 * 2], axis=2), 2, 2, return_mask=True)
            return (F.hardtanh(x, -0.3, 0.6), F.interpolate(x, size=[5, 9], mode="bicubic", align_corners=True),
                    F.interpolate(v, size=[11], mode="linear", data_format="NCW"),
                    F.interpolate(x3, scale_factor=[2, 1, 2], mode="trilinear"), self.up3(x3), m3,
                    paddle.cast(mask3, "float32"), F.fold(cols, [4, 6], [2, 2], strides=2),  # fold needs a static batch: its own input
                    F.pad(v, [1, 2, 0, 1], value=0.5, mode="constant"),
                    self.dcn(x, F.tanh(self.offset(x)), F.sigmoid(self.mask(x))))

    m = M()
    return (m, [spec("x", [None, 2, 4, 6]), spec("v", [None, 3, 7]), spec("cols", [2, 8, 6])],
            [uniform(r, [2, 2, 4, 6]), uniform(r, [2, 3, 7]), uniform(r, [2, 8, 6])])


@case("set_value")
def set_value_case(r):
    class M(nn.Layer):
        def forward(self, x, v, i0, i1):
            y = x * 1.0
            y[:, 1] = v             # a tensor value
            z = x * 2.0
            z[:, ::2, 1:3] = v[:, :2] * 3.0  # broadcast over a strided range
            z[:, 2, :] = 0.5        # a constant: pd_op.set_value_ with a "values" list
            w = paddle.index_put(x, (i0, i1), v[0])  # x[i0[k], i1[k], :] = v[0]
            a = paddle.index_put(x, (i0, i1), v[1], accumulate=True)  # (1, 0) twice: accumulated
            m = F.sequence_mask(i1, maxlen=4, dtype="float32")
            return y, z, w, a, m

    return (M(), [spec("x", [None, 3, 4]), spec("v", [None, 4]), spec("i0", [3], "int64"), spec("i1", [3], "int64")],
            [uniform(r, [2, 3, 4]), uniform(r, [2, 4]), np.array([1, 0, 1], "int64"), np.array([0, 2, 0], "int64")])


@case("constants_and_forms")
def constants_and_forms_case(r):
    """Forms the table alone cannot say: a constant made in forward (assign_value_ with a values list),
    tril/triu (ProgramDesc's tril_triu with a lower attribute), clip with a tensor bound (the attribute
    still required), and sum with no dtype ("Undefined(ALL_DTYPE)")."""
    class M(nn.Layer):
        def forward(self, x, lo):
            c = paddle.to_tensor([0.5, -1.0, 2.0, 0.25], dtype="float32")
            k = paddle.to_tensor([3, 1, 2, 0], dtype="int64")
            t = paddle.tril(x) - paddle.triu(x, 1) * c
            clipped = paddle.clip(t, paddle.min(lo), 0.75)
            return clipped, paddle.sum(clipped, axis=1), paddle.gather(x, k, axis=1)

    return (M(), [spec("x", [None, 4]), spec("lo", [3])], [uniform(r, [4, 4], -2, 2), uniform(r, [3], -1.5, -0.5)])


@case("vision_more")
def vision_more_case(r):
    """roi_align with per-image box counts, RReLU in eval mode, Bilinear, grid_sample on a volume."""
    class M(nn.Layer):
        def __init__(self):
            super().__init__()
            self.rrelu = nn.RReLU(0.1, 0.3)
            self.bilinear = nn.Bilinear(3, 4, 2)

        def forward(self, x, boxes, boxes_num, a, b, vol, grid):
            pooled = paddle.vision.ops.roi_align(x, boxes, boxes_num, output_size=2, spatial_scale=0.5,
                                                 sampling_ratio=2, aligned=True)
            return pooled, self.rrelu(x), self.bilinear(a, b), F.grid_sample(vol, grid, align_corners=False)

    m = M()
    m.eval()
    boxes = np.array([[1.0, 1.0, 6.0, 5.0], [0.5, 2.0, 7.5, 7.0], [2.0, 0.0, 4.0, 3.0]], "float32")
    return (m, [spec("x", [2, 3, 8, 8]), spec("boxes", [3, 4]), spec("boxes_num", [2], "int32"), spec("a", [None, 3]),
                spec("b", [None, 4]), spec("vol", [1, 2, 3, 4, 4]), spec("grid", [1, 2, 3, 3, 3])],
            [uniform(r, [2, 3, 8, 8]), boxes, np.array([2, 1], "int32"), uniform(r, [5, 3]), uniform(r, [5, 4]),
             uniform(r, [1, 2, 3, 4, 4]), uniform(r, [1, 2, 3, 3, 3], -1.1, 1.1)])


@case("legacy_vision")
def legacy_vision_case(r):
    """temporal_shift (TSM) and index_sample, the Fluid-era vision ops Paddle 3 still writes."""
    class M(nn.Layer):
        def forward(self, x, y, idx):
            return F.temporal_shift(x, seg_num=2, shift_ratio=0.25), paddle.index_sample(y, idx)

    idx = np.array([[0, 3, 3], [2, 1, 0]], "int64")
    return (M(), [spec("x", [4, 4, 3, 3]), spec("y", [2, 5]), spec("idx", [2, 3], "int64")],
            [uniform(r, [4, 4, 3, 3]), uniform(r, [2, 5]), idx])


@case("dyn_math")
def dyn_math_case(r):
    """Data-sized outputs (nonzero, masked_select, repeat_interleave by a tensor), small matrix ops, put_along_axis
    and the elementwise losses."""
    class M(nn.Layer):
        def forward(self, x, m, v, rep, idx, val, p, lbl):
            sq = x[:, :3]
            outs = [paddle.nonzero(x > 0.2), paddle.masked_select(x, m > 0.0), paddle.diag(v), paddle.eye(3, 4),
                    paddle.trace(sq), paddle.kron(sq, v[:2]), paddle.cross(sq, sq * 2.0, axis=1),
                    paddle.repeat_interleave(x, 2, axis=1), paddle.repeat_interleave(v, rep, axis=0),
                    paddle.put_along_axis(x, idx, val, axis=1, reduce="add"),
                    F.binary_cross_entropy_with_logits(x, lbl), F.binary_cross_entropy(p, lbl),
                    F.smooth_l1_loss(x, lbl), F.kl_div(x, p, reduction="mean"), F.log_loss(p[:, :1], lbl[:, :1]),
                    F.kl_div(x, paddle.log(p), reduction="sum", log_target=True)]
            return tuple(outs)

    return (M(), [spec("x", [3, 4]), spec("m", [3, 4]), spec("v", [4]), spec("rep", [4], "int64"),
                  spec("idx", [3, 1], "int64"), spec("val", [3, 1]), spec("p", [3, 4]), spec("lbl", [3, 4])],
            [uniform(r, [3, 4]), uniform(r, [3, 4]), uniform(r, [4]), np.array([1, 0, 3, 2], "int64"),
             np.array([[1], [3], [0]], "int64"), uniform(r, [3, 1]), uniform(r, [3, 4], 0.05, 0.95),
             (uniform(r, [3, 4]) > 0).astype("float32")])


@case("vision_legacy2")
def vision_legacy2_case(r):
    """The Fluid 1.x OCR / detection ops Paddle 3 still defines: ctc_align (padded form), im2sequence, crop by
    constant and by run-time shape (the legacy crop_tensor), unique with every output."""
    class M(nn.Layer):
        def forward(self, tok, ln, img, sh, f):
            out, out_len = paddle._C_ops.ctc_align(tok, ln, 0, True, -1)
            seq = paddle._C_ops.im2sequence(img, None, [2, 2], [1, 2], [1, 0, 0, 1], [1, 1])
            return (out, out_len, seq, paddle.crop(img, shape=[1, 2, -1, 3], offsets=[1, 0, 2, 1]),
                    paddle.crop(img, shape=sh, offsets=[0, 0, 1, 1])) + tuple(
                        paddle.unique(f, return_index=True, return_inverse=True, return_counts=True))

    tok = np.array([[1, 1, 0, 2, 2, 3], [0, 4, 4, 0, 4, 1], [5, 5, 5, 5, 5, 5]], "int32")
    return (M(), [spec("tok", [3, 6], "int32"), spec("ln", [3, 1], "int32"), spec("img", [2, 2, 5, 4]),
                  spec("sh", [4], "int32"), spec("f", [9])],
            [tok, np.array([[6], [5], [2]], "int32"), uniform(r, [2, 2, 5, 4]), np.array([2, 1, 3, 2], "int32"),
             np.array([3, 1, 3, 2, 1, 5, 3, 0, 5], "float32")])


@case("vit_encoder")
def vit_case(r):
    dim, heads = 32, 4

    class Block(nn.Layer):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
            self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
            self.fc1, self.fc2 = nn.Linear(dim, 2 * dim), nn.Linear(2 * dim, dim)

        def forward(self, x):
            h = self.ln1(x)
            qkv = paddle.reshape(self.qkv(h), [0, -1, 3, heads, dim // heads])
            qkv = paddle.transpose(qkv, [2, 0, 3, 1, 4])
            q, k, v = qkv[0], qkv[1], qkv[2]
            att = F.softmax(paddle.matmul(q, k, transpose_y=True) * (dim // heads) ** -0.5, axis=-1)
            o = paddle.reshape(paddle.transpose(paddle.matmul(att, v), [0, 2, 1, 3]), [0, -1, dim])
            x = x + self.proj(o)
            return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))

    class ViT(nn.Layer):
        def __init__(self):
            super().__init__()
            self.patch = nn.Conv2D(3, dim, 4, stride=4)
            self.cls = self.create_parameter([1, 1, dim])
            self.pos = self.create_parameter([1, 17, dim])
            self.blocks = nn.LayerList([Block(), Block()])
            self.norm = nn.LayerNorm(dim)
            self.head = nn.Linear(dim, 10)

        def forward(self, x):
            p = paddle.transpose(paddle.flatten(self.patch(x), 2), [0, 2, 1])
            cls = paddle.expand(self.cls, [paddle.shape(x)[0], 1, dim])
            h = paddle.concat([cls, p], axis=1) + self.pos
            for b in self.blocks:
                h = b(h)
            return F.softmax(self.head(self.norm(h)[:, 0]), axis=-1)

    m = ViT()
    for p in (m.cls, m.pos):
        p.set_value(uniform(r, p.shape, -0.1, 0.1))
    return m, [spec("x", [None, 3, 16, 16])], [uniform(r, [2, 3, 16, 16])]


@case("ocr_rec")
def ocr_case(r):
    class CRNN(nn.Layer):
        def __init__(self):
            super().__init__()
            self.c1, self.c2 = nn.Conv2D(1, 8, 3, padding=1), nn.Conv2D(8, 8, 3, padding=1)
            self.bn = nn.BatchNorm2D(8)
            self.rnn = nn.LSTM(32, 24, num_layers=2, direction="bidirectional")
            self.fc = nn.Linear(48, 11)

        def forward(self, x):
            y = F.max_pool2d(F.relu(self.c1(x)), 2, 2)                  # [N, 8, 16, 32]
            y = F.max_pool2d(F.relu(self.bn(self.c2(y))), (4, 2), (4, 2))  # [N, 8, 4, 16]
            y = paddle.transpose(paddle.reshape(y, [0, 32, 16]), [0, 2, 1])
            y, _ = self.rnn(y)
            return F.softmax(self.fc(y), axis=2)

    m = CRNN()
    m.bn._mean.set_value(uniform(r, [8], -0.2, 0.2))
    m.bn._variance.set_value(uniform(r, [8], 0.5, 1.5))
    return m, [spec("x", [None, 1, 32, 64])], [uniform(r, [2, 1, 32, 64], 0, 1)]


@case("viterbi")
def viterbi_case(r):
    class Tagger(nn.Layer):  # PaddleNLP's taggers: emissions from a layer, then ViterbiDecoder
        def __init__(self):
            super().__init__()
            self.emit = nn.Linear(6, 5)
            self.transitions = self.create_parameter([5, 5])
            self.transitions.set_value(uniform(r, [5, 5], -2, 2))

        def forward(self, x, lengths):
            scores, path = paddle.text.viterbi_decode(self.emit(x), self.transitions, lengths)
            return scores, path

    return Tagger(), [spec("x", [None, 7, 6]), spec("lengths", [None], "int64")], \
        [uniform(r, [3, 7, 6], -2, 2), np.array([7, 2, 5], "int64")]


@case("gather_tree")
def gather_tree_case(r):
    class Backtrace(nn.Layer):  # the end of PaddleNLP's beam search: ids and parents per step
        def forward(self, ids, parents):
            return F.gather_tree(ids, parents)

    return Backtrace(), [spec("ids", [None, 2, 3], "int64"), spec("parents", [None, 2, 3], "int64")], \
        [r.integers(0, 40, [5, 2, 3]).astype("int64"), r.integers(0, 3, [5, 2, 3]).astype("int64")]


@case("atan2")
def atan2_case(r):
    class Angle(nn.Layer):  # the angle of (x, y) points, e.g. a pose or rotated-box head
        def forward(self, y, x):
            return paddle.atan2(y, x)

    return Angle(), [spec("y", [None, 4]), spec("x", [None, 4])], [uniform(r, [3, 4], -2, 2), uniform(r, [3, 4], -2, 2)]


@case("multiplex")
def multiplex_case(r):
    class Router(nn.Layer):  # each row from the branch its router picked (a hard mixture of experts)
        def forward(self, a, b, ids):
            return paddle.multiplex([a, b], ids)

    return Router(), [spec("a", [None, 4]), spec("b", [None, 4]), spec("ids", [None, 1], "int32")], \
        [uniform(r, [3, 4], -2, 2), uniform(r, [3, 4], -2, 2), np.array([[1], [0], [1]], dtype="int32")]


@case("index_add")
def index_add_case(r):
    class Accumulate(nn.Layer):  # per-class sums of feature rows (a memory bank update)
        def forward(self, bank, rows, ids):
            return paddle.index_add(bank, ids, 0, rows)

    return Accumulate(), [spec("bank", [5, 3]), spec("rows", [None, 3]), spec("ids", [None], "int64")], \
        [uniform(r, [5, 3], -1, 1), uniform(r, [4, 3], -1, 1), np.array([4, 0, 4, 2], dtype="int64")]


@case("nms")
def nms_case(r):
    class Suppress(nn.Layer):  # a detector's last step: the boxes that survive greedy suppression
        def forward(self, boxes, scores):
            return paddle.vision.ops.nms(boxes, 0.4, scores=scores)

    centres = r.uniform(10, 60, size=(3, 2))
    c = centres[r.integers(0, 3, size=20)] + r.normal(0, 3, size=(20, 2))
    wh = r.uniform(8, 20, size=(20, 2))
    boxes = np.concatenate([c - wh / 2, c + wh / 2], axis=1).astype("float32")
    return Suppress(), [spec("boxes", [None, 4]), spec("scores", [None])], \
        [boxes, (r.permutation(20) / 20).astype("float32")]


@case("broadcast_tensors")
def broadcast_tensors_case(r):
    class Align(nn.Layer):  # a per-row bias and a per-column scale brought to one shape, then combined
        def forward(self, rows, cols):
            a, b = paddle.broadcast_tensors([rows, cols])
            return a * b + a

    return Align(), [spec("rows", [None, 1]), spec("cols", [1, 5])], [uniform(r, [3, 1], -1, 1), uniform(r, [1, 5], -1, 1)]


@case("linalg_lu")
def linalg_lu_case(r):
    class Gaussian(nn.Layer):  # a Gaussian's log-density terms from its covariance, an mv, and a matrix power
        def forward(self, cov, d):
            inv = paddle.linalg.inv(cov)
            maha = paddle.sum(paddle.matmul(d, inv) * d, axis=-1)
            logdet = paddle.linalg.slogdet(cov)[1] + paddle.log(paddle.abs(paddle.linalg.det(cov)))
            return maha + logdet + paddle.mv(d, paddle.diag(cov)), paddle.linalg.matrix_power(cov, -2)

    cov = np.eye(3, dtype="float32") * 2 + uniform(r, [3, 3], -0.3, 0.3)
    return Gaussian(), [spec("cov", [3, 3]), spec("d", [None, 3])], [cov, uniform(r, [4, 3], -1, 1)]


@case("mode")
def mode_case(r):
    class Vote(nn.Layer):  # a majority vote over an ensemble's predicted classes, weighted by its confidence
        def forward(self, logits):
            labels = paddle.cast(paddle.argmax(logits, axis=-1), "float32")
            winner, where = paddle.mode(labels, axis=0)
            return winner + paddle.cast(where, "float32") * 0.01

    return Vote(), [spec("logits", [None, 6, 3])], [uniform(r, [5, 6, 3], -1, 1)]


@case("add_n_stanh")
def add_n_stanh_case(r):
    class Merge(nn.Layer):  # an FPN-style merge of three branches by add_n, squashed by a scaled tanh
        def __init__(self):
            super().__init__()
            self.branches = nn.LayerList([nn.Conv2D(3, 4, k, padding=k // 2) for k in (1, 3, 5)])

        def forward(self, x):
            return paddle.stanh(paddle.add_n([b(x) for b in self.branches]), scale_a=0.5, scale_b=2.0)

    return Merge(), [spec("x", [None, 3, 8, 8])], [uniform(r, [2, 3, 8, 8], -1, 1)]


@case("nll_fro")
def nll_fro_case(r):
    class Scored(nn.Layer):  # per-sample NLL of given labels plus a Frobenius-norm penalty on the features
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 4)

        def forward(self, feats, labels):
            logp = F.log_softmax(self.fc(feats), axis=-1)
            nll = F.nll_loss(logp, labels, reduction="none")
            # An explicit axis pair: without one Paddle 3.3.1 writes p_norm instead of frobenius_norm.
            # heaviside: a step on the margin of the first two features.
            step = paddle.heaviside(feats[:, 0] - feats[:, 1], paddle.full([1], 0.5))
            return nll + 0.1 * paddle.linalg.norm(feats, p="fro", axis=[0, 1]) + step

    return Scored(), [spec("feats", [None, 6]), spec("labels", [None], "int64")], \
        [uniform(r, [5, 6], -1, 1), np.array([0, 3, 1, 1, 2], dtype="int64")]


@case("bincount")
def bincount_case(r):
    class ClassFrequency(nn.Layer):  # how often each class wins, weighted by its confidence
        def forward(self, logits):
            probs = F.softmax(logits, axis=-1)
            return paddle.bincount(paddle.argmax(logits, axis=-1), weights=paddle.max(probs, axis=-1), minlength=5)

    return ClassFrequency(), [spec("logits", [None, 5])], [uniform(r, [7, 5], -2, 2)]


@case("logit_erfinv")
def logit_erfinv_case(r):
    class Probit(nn.Layer):  # logit of a probability, the inverse error function of a correlation
        def forward(self, p, c):
            return paddle.logit(p, eps=1e-3), paddle.erfinv(c)

    return Probit(), [spec("p", [None, 5]), spec("c", [None, 5])], \
        [uniform(r, [3, 5], 0.0, 1.0), uniform(r, [3, 5], -0.99, 0.99)]


@case("isclose")
def isclose_case(r):
    class Close(nn.Layer):  # a check of a prediction against a reference
        def forward(self, a, b):
            return paddle.isclose(a, b, rtol=1e-2, atol=1e-3), paddle.allclose(a, b, rtol=0.5, atol=0.5)

    a = uniform(r, [3, 4])
    return Close(), [spec("a", [None, 4]), spec("b", [None, 4])], [a, a + uniform(r, [3, 4], -0.02, 0.02)]


@case("cum")
def cum_case(r):
    class Running(nn.Layer):  # running maxima / minima with their positions, a running log-sum-exp
        def forward(self, x):
            mx, imx = paddle.cummax(x, axis=1)
            mn, imn = paddle.cummin(x, axis=0, dtype="int32")
            return mx, imx, mn, imn, paddle.logcumsumexp(x, axis=-1)

    return Running(), [spec("x", [None, 6])], [np.round(uniform(r, [4, 6], -3, 3))]


@case("searchsorted")
def searchsorted_case(r):
    class Bucket(nn.Layer):  # bucketing values by sorted boundaries
        def forward(self, v):
            b = paddle.to_tensor(np.array([-1.0, -0.25, 0.0, 0.5, 0.5, 2.0], "float32"))
            return paddle.searchsorted(b, v), paddle.searchsorted(b, v, out_int32=True, right=True)

    return Bucket(), [spec("v", [None, 5])], [np.round(uniform(r, [3, 5], -2, 3) * 4) / 4]


@case("addmm")
def addmm_case(r):
    class Affine(nn.Layer):  # a bias row plus a scaled product
        def __init__(self):
            super().__init__()
            self.w = self.create_parameter([6, 4])
            self.b = self.create_parameter([1, 4])
            self.w.set_value(uniform(r, [6, 4]))
            self.b.set_value(uniform(r, [1, 4]))

        def forward(self, x):
            return paddle.addmm(self.b, x, self.w, beta=0.5, alpha=2.0)

    return Affine(), [spec("x", [None, 6])], [uniform(r, [3, 6])]


@case("reverse")
def reverse_case(r):
    class Backwards(nn.Layer):  # Fluid 1.x's reverse, as Paddle 3 still defines it (no Python API: its _C_ops)
        def forward(self, x):
            return paddle._C_ops.reverse(x, [0, -1])

    return Backwards(), [spec("x", [None, 5])], [uniform(r, [3, 5])]


@case("diagonal")
def diagonal_case(r):
    class Diag(nn.Layer):  # the diagonals of a batch of matrices, one above the main one
        def forward(self, x):
            return paddle.diagonal(x, offset=1, axis1=-2, axis2=-1)

    return Diag(), [spec("x", [None, 4, 5])], [uniform(r, [3, 4, 5])]


@case("diag_embed")
def diag_embed_case(r):
    class Embed(nn.Layer):  # rows of values onto the diagonals of a batch of matrices, one above the main one
        def forward(self, x):
            return F.diag_embed(x, offset=1)

    return Embed(), [spec("x", [None, 4])], [uniform(r, [3, 4])]


@case("rpn_proposals")
def rpn_proposals_case(r):
    sizes, h, w = (16.0, 40.0, 96.0), 4, 5
    anchors = np.zeros([h, w, len(sizes), 4], "float32")
    for y in range(h):
        for x in range(w):
            for k, s in enumerate(sizes):
                anchors[y, x, k] = [x * 16 + 8 - s / 2, y * 16 + 8 - s / 2, x * 16 + 8 + s / 2, y * 16 + 8 + s / 2]

    class Rpn(nn.Layer):  # a two-stage detector's proposals: RPN boxes, then their FPN levels
        def forward(self, scores, deltas, im_shape):
            a = paddle.to_tensor(anchors)
            v = paddle.ones_like(a)
            rois, probs, num = paddle.vision.ops.generate_proposals(scores, deltas, im_shape, a, v, pre_nms_top_n=40,
                                                                    post_nms_top_n=16, return_rois_num=True)
            multi, restore, nums = paddle.vision.ops.distribute_fpn_proposals(rois, 2, 5, 4, 24, rois_num=num)
            return (rois, probs, num, restore) + tuple(multi) + tuple(nums)

    return Rpn(), [spec("scores", [2, 3, h, w]), spec("deltas", [2, 12, h, w]), spec("im_shape", [2, 2])], \
        [uniform(r, [2, 3, h, w], 0.01, 0.99), uniform(r, [2, 12, h, w], -0.6, 0.6),
         np.array([[64, 80], [50, 60]], "float32")]


@case("region_pool")
def region_pool_case(r):
    """roi_pool (Faster R-CNN) and psroi_pool (R-FCN) with per-image box counts, one box partly outside."""
    class M(nn.Layer):
        def forward(self, x, boxes, boxes_num):
            return (paddle.vision.ops.roi_pool(x, boxes, boxes_num, output_size=(2, 3), spatial_scale=0.5),
                    paddle.vision.ops.psroi_pool(x, boxes, boxes_num, output_size=2, spatial_scale=0.5))

    boxes = np.array([[1.0, 1.0, 9.0, 7.0], [-3.0, 2.0, 7.5, 14.0], [2.0, 0.0, 4.0, 3.0]], "float32")
    return (M(), [spec("x", [2, 8, 6, 6]), spec("boxes", [3, 4]), spec("boxes_num", [2], "int32")],
            [uniform(r, [2, 8, 6, 6]), boxes, np.array([2, 1], "int32")])


@case("fpn_collect")
def fpn_collect_case(r):
    """distribute_fpn_proposals then collect_fpn_proposals (Paddle 3 keeps the op, with no Python function: _C_ops)."""
    class M(nn.Layer):
        def forward(self, rois, num):
            multi, _, nums = paddle.vision.ops.distribute_fpn_proposals(rois, 2, 4, 3, 24, rois_num=num)
            multi_scores = [paddle.ones([paddle.shape(m)[0], 1]) * 0.5 + paddle.mean(m, axis=1, keepdim=True) * 0.01
                            for m in multi]
            return paddle._C_ops.collect_fpn_proposals(multi, multi_scores, nums, 5)

    xy = r.uniform(0, 40, size=(7, 2))
    boxes = np.concatenate([xy, xy + r.uniform(4, 60, size=(7, 2))], axis=1).astype("float32")
    # Each box's score from its coordinates: distinct, so no tie decides the order.
    return (M(), [spec("rois", [7, 4]), spec("num", [2], "int32")], [boxes, np.array([4, 3], "int32")])


@case("max_unpool")
def max_unpool_case(r):
    """max_pool2d with its mask then max_unpool2d (SegNet's decoder), with an explicit output_size."""
    class M(nn.Layer):
        def forward(self, x):
            pooled, mask = F.max_pool2d(x, 3, 2, 1, return_mask=True)
            return F.max_unpool2d(pooled, mask, 3, 2, 1, output_size=[8, 10]), F.max_unpool2d(pooled, mask, 3, 2, 1)

    return M(), [spec("x", [2, 3, 7, 9])], [uniform(r, [2, 3, 7, 9])]


# --------------------------------------------------------------------------
# saving, running the saved model, recording
# --------------------------------------------------------------------------


def pd_ops(program):
    """Each pd_op in the saved program with Paddle's operand and result names (first use of each op)."""
    ops = {}
    for op in program.global_block().ops:
        name = op.name()
        if not name.startswith("pd_op.") or name in ops:
            continue
        ops[name] = {"operands": op.get_input_names(), "results": op.get_output_names(),
                     "attrs": op.get_attr_names()}
    return ops


def run_saved(prefix, feeds):
    """Paddle 3 running what was saved, without IR passes: returns {fetch name: array}."""
    from paddle import inference

    params = f"{prefix}.pdiparams"  # absent for a layer without parameters
    config = inference.Config(f"{prefix}.json", params if Path(params).exists() else "")
    config.disable_gpu()
    config.switch_ir_optim(False)
    # Paddle's plain CPU kernels, not the oneDNN ones (Paddle 3.0 names it disable_mkldnn).
    (config.disable_onednn if hasattr(config, "disable_onednn") else config.disable_mkldnn)()
    config.disable_glog_info()
    pred = inference.create_predictor(config)
    for name in pred.get_input_names():
        pred.get_input_handle(name).copy_from_cpu(feeds[name])
    pred.run()
    return {name: pred.get_output_handle(name).copy_to_cpu() for name in pred.get_output_names()}


def program_of(prefix):
    paddle.enable_static()
    try:
        exe = paddle.static.Executor(paddle.CPUPlace())
        prog, feed_names, _ = paddle.static.load_inference_model(prefix, exe)
        return pd_ops(prog), feed_names
    finally:
        paddle.disable_static()


def make(name):
    fn, (rtol, atol) = CASES[name]
    paddle.seed(2024)
    np.random.seed(2024)
    layer, specs, arrays = fn(rng(name))
    layer.eval()
    d = OUT / name
    shutil.rmtree(d, ignore_errors=True)
    (d / "inputs").mkdir(parents=True)
    (d / "expected").mkdir()
    with tempfile.TemporaryDirectory() as tmp:
        prefix = f"{tmp}/inference"
        paddle.jit.save(layer, prefix, input_spec=specs)
        shutil.copy(f"{prefix}.json", d / "inference.json")
        if Path(f"{prefix}.pdiparams").exists():  # a layer without parameters saves none
            shutil.copy(f"{prefix}.pdiparams", d / "inference.pdiparams")
    feeds = {s.name: a for s, a in zip(specs, arrays)}
    prefix = str(d / "inference")
    ops, feed_names = program_of(prefix)
    assert sorted(feed_names) == sorted(feeds), (feed_names, list(feeds))
    for k, v in feeds.items():
        np.save(d / "inputs" / f"{k}.npy", v)
    outs = run_saved(prefix, feeds)
    for k, v in outs.items():
        np.save(d / "expected" / f"{k}.npy", v)
    (d / "tolerance").write_text(f"{rtol:g} {atol:g}\n")
    meta = {"paddle": paddle.__version__, "script": "tools/fixtures_pir_ops.py", "case": name, "ops": ops}
    (d / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    print(f"{name}: {len(ops)} pd_ops, fetches {sorted(outs)}")
    return set(ops)


def spec_rows():
    """The PIR names of kSpecs rows in compiler/ir/pir_ops.cc."""
    text = SPECS.read_text() if SPECS.exists() else ""
    return set(re.findall(r'^\s*\{"(\w+)", "', text, re.M))


def main(argv):
    names = argv or list(CASES)
    seen = set()
    for n in names:
        seen |= make(n)
    if not argv:
        rows = spec_rows()
        used = {o[len("pd_op."):].rstrip("_") for o in seen}
        print("kSpecs rows no case uses:", sorted(rows - used) or "none")
        # The translator lowers these itself (pir_translate.cc), not by a row.
        structural = {"data", "fetch", "full", "full_int_array", "full_with_tensor", "shape", "shape64", "set_value"}
        print("ops in the cases without a row:", sorted(used - rows - structural) or "none")


if __name__ == "__main__":
    main(sys.argv[1:])
