#!/usr/bin/env python3
"""A zoo of small paddle.nn programs that no fluidc feature was written for, saved by Paddle 2.6.2
(paddle.jit.save) with Paddle's own output on one input set: each is a layer or a few functional
calls as a model would use them (decoder layers, masks, SE blocks, normalisations written by hand,
scatter/gather, losses, resampling). Compiling them found a memory-plan bug (paddle.var's mean read
by a fused loop) and four missing op types; they stay as a regression net.

  test/fixtures/zoo/<case>/model.pdmodel (+ model.pdiparams)   jit.save's program (op_callstack sanitised)
  test/fixtures/zoo/<case>/in<k>_a.npy, expected_a.npy         the feeds and Paddle's output (test/e2e/infer_case.sh)
  test/fixtures/zoo/<case>/meta.json                           ops, versions

  python3 tools/fixtures_zoo.py [CASE ...]   (default: every case)
"""
import inspect
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

OUT = fl.FIXTURES / "zoo"
CASES = {}


class _L1(nn.Layer):
    def __init__(self, f, **sub):
        super().__init__()
        self.f = f
        for k, v in sub.items():
            setattr(self, k, v)

    def forward(self, x):
        return self.f(self, x)


class _L2(_L1):
    def forward(self, x, y):
        return self.f(self, x, y)


class _L3(_L1):
    def forward(self, x, y, z):
        return self.f(self, x, y, z)


def fn(f, **sub):
    """A layer calling f(self, inputs...) with `sub` as its sublayers."""
    return {1: _L1, 2: _L2, 3: _L3}[len(inspect.signature(f).parameters) - 1](f, **sub)


def case(name, make, shapes, dtypes=None, values=None):
    """make() builds the layer; shapes/dtypes of its inputs; values(k, shape, rng) overrides input k."""
    CASES[name] = (make, shapes, dtypes or ["float32"] * len(shapes), values)


def ints(high, fixed=None):
    def values(k, shape, r):
        if fixed is not None and k in fixed:
            return np.array(fixed[k])
        return r.integers(0, high, size=shape) if k > 0 or fixed is None else r.uniform(-1, 1, size=shape)
    return values


case("transformer_decoder", lambda: nn.TransformerDecoder(nn.TransformerDecoderLayer(16, 2, 32, dropout=0.0), 2),
     [[2, 5, 16], [2, 7, 16]])
case("mha_mask", lambda: fn(lambda s, x, m: s.a(x, x, x, attn_mask=m), a=nn.MultiHeadAttention(16, 4)),
     [[2, 5, 16], [2, 4, 5, 5]])
case("bigru", lambda: fn(lambda s, x: s.g(x)[0], g=nn.GRU(8, 12, num_layers=2, direction="bidirect")), [[3, 6, 8]])
case("simple_rnn", lambda: fn(lambda s, x: s.l(x)[0], l=nn.SimpleRNN(6, 8, num_layers=2)), [[2, 5, 6]])
case("gru_cell_loop", lambda: fn(lambda s, x: s.r(x)[0], r=nn.RNN(nn.GRUCell(4, 6))), [[2, 5, 4]])
case("conv1d_transpose", lambda: nn.Conv1DTranspose(4, 6, 3, stride=2, padding=1, output_padding=1), [[2, 4, 9]])
case("conv3d_transpose", lambda: nn.Conv3DTranspose(2, 3, 3, stride=2), [[1, 2, 3, 3, 3]])
case("conv2d_transpose_groups", lambda: nn.Conv2DTranspose(4, 4, 3, groups=2, dilation=2), [[1, 4, 5, 5]])
case("adaptive_avg_pool3d", lambda: nn.AdaptiveAvgPool3D((2, 3, 2)), [[1, 2, 5, 7, 4]])
case("max_pool3d_mask", lambda: fn(lambda s, x: F.max_pool3d(x, 2, return_mask=True)[0]), [[1, 2, 4, 4, 4]])
case("pixel_shuffle", lambda: fn(lambda s, x: F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2)), [[1, 8, 3, 3]])
case("channel_shuffle", lambda: nn.ChannelShuffle(2), [[1, 8, 3, 3]])
case("fold_unfold", lambda: fn(lambda s, x: F.fold(F.unfold(x, [2, 2], strides=1), [5, 5], [2, 2])), [[1, 3, 5, 5]])
case("affine_grid_sample", lambda: fn(lambda s, x, t: F.grid_sample(
    x, F.affine_grid(t, [1, 2, 6, 6], align_corners=False), align_corners=False)), [[1, 2, 6, 6], [1, 2, 3]])
case("local_response_norm", lambda: nn.LocalResponseNorm(3), [[1, 6, 4, 4]])
case("norms_3d", lambda: fn(lambda s, x: s.g(s.i(s.b(x))), b=nn.BatchNorm3D(4), i=nn.InstanceNorm3D(4),
                            g=nn.GroupNorm(2, 4)), [[2, 4, 3, 3, 3]])
case("max_unpool", lambda: fn(lambda s, x: F.max_unpool2d(*F.max_pool2d(x, 2, return_mask=True), 2)), [[1, 2, 6, 6]])
case("cosine_pairwise", lambda: fn(lambda s, x, y: F.cosine_similarity(x, y) + F.pairwise_distance(x, y)),
     [[4, 8], [4, 8]])
case("bilinear_layer", lambda: nn.Bilinear(5, 6, 3), [[4, 5], [4, 6]])
case("shrink_activations", lambda: fn(lambda s, x: F.hardshrink(x) + F.softshrink(x) + F.tanhshrink(x)
                                      + F.thresholded_relu(x) + F.celu(x) + F.selu(x) + F.log_sigmoid(x)), [[3, 7]])
case("cumulative", lambda: fn(lambda s, x: paddle.cummax(x, axis=1)[0] + paddle.cummin(x, axis=1)[0]
                              + paddle.logcumsumexp(x, axis=1) + paddle.cumprod(x, 1)), [[3, 6]])
case("masked_select_nonzero", lambda: fn(lambda s, x: paddle.masked_select(x, x > 0).sum()
                                         + paddle.nonzero(x > 0).astype("float32").sum()), [[4, 5]])
case("sort_topk", lambda: fn(lambda s, x: paddle.sort(x, axis=1) + paddle.argsort(x, axis=1).astype("float32")
                             + paddle.topk(x, 2)[0].sum()), [[4, 5]])
case("embedding_padding_idx", lambda: fn(lambda s, x: s.e(x).sum(axis=1), e=nn.Embedding(10, 4, padding_idx=0)),
     [[3, 6]], ["int64"], lambda k, shape, r: r.integers(0, 10, size=shape))
case("diagonal_trace", lambda: fn(lambda s, x: paddle.diagonal(x) + paddle.diag(paddle.diag(x)) + paddle.trace(x)),
     [[4, 4]])
case("einsum_bmm", lambda: fn(lambda s, x, y: paddle.einsum("bij,bjk->bik", x, y)), [[2, 3, 4], [2, 4, 5]])
case("index_select_take", lambda: fn(lambda s, x, i: paddle.index_select(x, i, axis=1)
                                     + paddle.take_along_axis(x, paddle.zeros([4, 3], "int64"), 1)),
     [[4, 6], [3]], ["float32", "int64"], lambda k, shape, r: np.array([0, 5, 2]) if k == 1 else r.uniform(-1, 1, shape))
case("roll_flip_rot90", lambda: fn(lambda s, x: paddle.roll(x, [1, -2], [0, 1]) + paddle.flip(x, [0])
                                   + paddle.rot90(x, 1, [0, 1]).T), [[4, 4]])
case("tril_triu", lambda: fn(lambda s, x: paddle.tril(x, -1) + paddle.triu(x, 1)), [[4, 4]])
case("clip_nan_to_num", lambda: fn(lambda s, x: paddle.clip(x, -0.5, 0.5) + paddle.nan_to_num(x)), [[4, 4]])
case("bucketize", lambda: fn(lambda s, x: paddle.bucketize(x, paddle.to_tensor([-0.5, 0., 0.5])).astype("float32")),
     [[4, 4]])
case("repeat_interleave", lambda: fn(lambda s, x: paddle.repeat_interleave(x, 2, axis=1)), [[3, 4]])
case("smooth_activations", lambda: fn(lambda s, x: F.hardsigmoid(x) + F.hardswish(x) + F.swish(x) + F.mish(x)
                                      + F.silu(x) + F.softsign(x)), [[3, 5]])
case("logsumexp_amax", lambda: fn(lambda s, x: paddle.logsumexp(x, axis=1) + paddle.amax(x, 1) + paddle.amin(x, 1)),
     [[3, 5]])
case("var_std_median_quantile", lambda: fn(lambda s, x: paddle.var(x, axis=1) + paddle.std(x, axis=1)
                                           + paddle.median(x, axis=1) + paddle.quantile(x, 0.3, axis=1)), [[3, 6]])
case("nanmean_nansum", lambda: fn(lambda s, x: paddle.nanmean(x, axis=1) + paddle.nansum(x, axis=1)), [[3, 6]])
case("cdist", lambda: fn(lambda s, x, y: paddle.cdist(x, y)), [[4, 3], [5, 3]])
case("outer_kron", lambda: fn(lambda s, x, y: paddle.outer(x, y) + paddle.kron(x.unsqueeze(1), y.unsqueeze(0))),
     [[3], [4]])
case("inverse_shifted", lambda: fn(lambda s, x: paddle.inverse(x + 3 * paddle.eye(4))), [[4, 4]])
case("pad_modes", lambda: fn(lambda s, x: F.pad(x, [1, 2, 2, 1], mode="reflect") + F.pad(x, [1, 2, 2, 1], mode="replicate")
                             + F.pad(x, [1, 2, 2, 1], mode="circular")), [[1, 2, 5, 5]])
case("cross_entropy_smoothing", lambda: fn(lambda s, x, l: F.cross_entropy(x, l, label_smoothing=0.1)),
     [[4, 5], [4]], ["float32", "int64"], ints(5))
case("regression_losses", lambda: fn(lambda s, x, y: F.kl_div(F.log_softmax(x), F.softmax(y)) + F.smooth_l1_loss(x, y)
                                     + F.l1_loss(x, y) + F.mse_loss(x, y) + F.soft_margin_loss(x, paddle.sign(y))),
     [[4, 5], [4, 5]])
case("nll_loss_mean", lambda: fn(lambda s, x, l: F.nll_loss(F.log_softmax(x), l)), [[4, 5], [4]], ["float32", "int64"],
     ints(5))
case("bce_focal", lambda: fn(lambda s, x, y: F.binary_cross_entropy_with_logits(x, y) + F.sigmoid_focal_loss(x, y)),
     [[4, 5], [4, 5]], None, lambda k, shape, r: r.integers(0, 2, size=shape) if k == 1 else r.uniform(-1, 1, shape))
case("margin_losses", lambda: fn(lambda s, x, y, l: F.margin_ranking_loss(x, y, l) + F.hinge_embedding_loss(x, l)
                                 + F.cosine_embedding_loss(x, y, l.squeeze())), [[4, 1], [4, 1], [4, 1]])
case("frobenius_norm", lambda: fn(lambda s, x: paddle.linalg.norm(x, p="fro") + paddle.linalg.norm(x, p=1, axis=1).sum()),
     [[4, 5]])
case("atan2_lerp_heaviside_fmax", lambda: fn(lambda s, x: paddle.atan2(x, x + 2) + paddle.lerp(x, x * 2, 0.3)
                                             + paddle.heaviside(x, x) + paddle.fmax(x, -x)), [[4, 5]])
case("bincount_histogram", lambda: fn(lambda s, x: paddle.histogram(x, bins=4, min=-1, max=1).astype("float32").sum()
                                      + paddle.bincount(paddle.argmax(x, axis=1), minlength=4).astype("float32").sum()
                                      + x), [[6, 4]])
case("se_block", lambda: fn(lambda s, x: x * F.hardsigmoid(s.c2(F.relu(s.c1(F.adaptive_avg_pool2d(x, 1))))),
                            c1=nn.Conv2D(8, 2, 1), c2=nn.Conv2D(2, 8, 1)), [[2, 8, 5, 5]])
case("se_scale_first", lambda: fn(lambda s, x: F.sigmoid(s.c1(F.adaptive_avg_pool2d(x, 1))) * x + x,
                                  c1=nn.Conv2D(8, 8, 1)), [[2, 8, 5, 5]])
case("layer_norm_residual", lambda: fn(lambda s, x: s.n(x + s.l(x)) * 2 - 1, n=nn.LayerNorm(16), l=nn.Linear(16, 16)),
     [[2, 5, 16]])
case("gelu_both", lambda: fn(lambda s, x: F.gelu(x, approximate=True) + F.gelu(x)), [[3, 7]])
case("softmax_where_mask", lambda: fn(lambda s, x, m: F.softmax(paddle.where(m > 0, x, paddle.full_like(x, -1e9)), axis=-1)),
     [[2, 4, 6], [2, 4, 6]])
case("row_normalize", lambda: fn(lambda s, x: x / paddle.norm(x, axis=-1, keepdim=True) + F.normalize(x, axis=1)), [[4, 6]])
case("min_max_scale", lambda: fn(lambda s, x: (x - x.min(axis=1, keepdim=True))
                                 / (x.max(axis=1, keepdim=True) - x.min(axis=1, keepdim=True))), [[4, 6]])
case("batch_standardize", lambda: fn(lambda s, x: (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-5)), [[6, 4]])
case("channel_stats", lambda: fn(lambda s, x: x * x.mean(axis=[2, 3], keepdim=True) + x.sum(axis=1, keepdim=True)),
     [[2, 3, 4, 5]])
case("softmax_by_hand", lambda: fn(lambda s, x: paddle.exp(x - x.max(axis=-1, keepdim=True))
                                   / paddle.exp(x - x.max(axis=-1, keepdim=True)).sum(axis=-1, keepdim=True)), [[3, 7]])
case("broadcast_chain", lambda: fn(lambda s, x, y: F.relu(x * y + y) - x / (y + 2)), [[2, 3, 4], [3, 1]])
case("scalar_chain", lambda: fn(lambda s, x, y: (x * y.sum() + y.mean()) * 0.5), [[3, 4], [2, 2]])
case("pixel_norm", lambda: fn(lambda s, x: x * paddle.rsqrt(paddle.mean(x * x, axis=1, keepdim=True) + 1e-8)),
     [[2, 4, 3, 3]])
case("swiglu", lambda: fn(lambda s, x: F.silu(s.a(x)) * s.b(x), a=nn.Linear(8, 12), b=nn.Linear(8, 12)), [[3, 8]])
case("rms_norm_by_hand", lambda: fn(lambda s, x: x * paddle.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * s.w,
                                    w=paddle.create_parameter([8], "float32")), [[3, 8]])
case("conv_bn_relu6_residual", lambda: fn(lambda s, x: F.relu6(s.b(s.c(x)) + x), c=nn.Conv2D(4, 4, 3, padding=1),
                                          b=nn.BatchNorm2D(4)), [[2, 4, 6, 6]])
case("slices_broadcast", lambda: fn(lambda s, x: x[:, 1:-1] * x[:, :1]), [[3, 6]])
case("outer_by_unsqueeze", lambda: fn(lambda s, x, y: x.unsqueeze(1) * y.unsqueeze(0)), [[3, 4], [5, 4]])
case("gather_rows", lambda: fn(lambda s, x, i: paddle.gather(x, i) * 2 + x.mean(0)), [[5, 4], [3]], ["float32", "int64"],
     lambda k, shape, r: np.array([4, 0, 2]) if k == 1 else r.uniform(-1, 1, shape))


def export(name):
    make, shapes, dtypes, values = CASES[name]
    paddle.disable_static()  # fixturelib leaves static mode on; layers are built and traced in dygraph
    paddle.seed(7)
    layer = make()
    layer.eval()
    r = np.random.default_rng(sum(map(ord, name)))
    arrays = [(values(k, s, r) if values else r.uniform(-1, 1, size=s)).astype(dt)
              for k, (s, dt) in enumerate(zip(shapes, dtypes))]
    specs = [paddle.static.InputSpec(s, dt, f"in{k}") for k, (s, dt) in enumerate(zip(shapes, dtypes))]
    d = fl.fresh_dir(OUT / name)
    with tempfile.TemporaryDirectory() as tmp:
        prefix = f"{tmp}/model"
        paddle.jit.save(layer, prefix, input_spec=specs)
        fl.sanitize_model_file(prefix + ".pdmodel")
        shutil.copy(prefix + ".pdmodel", d / "model.pdmodel")
        if Path(prefix + ".pdiparams").exists():
            shutil.copy(prefix + ".pdiparams", d / "model.pdiparams")
        # Paddle's reference: the saved program run by its static executor, as a deployment would run it.
        paddle.enable_static()
        try:
            exe = paddle.static.Executor(paddle.CPUPlace())
            prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
            assert len(fetches) == 1, f"{name}: one output per case ({len(fetches)})"
            (out,) = exe.run(prog, feed={f"in{k}": a for k, a in enumerate(arrays)}, fetch_list=fetches)
        finally:
            paddle.disable_static()
    for k, a in enumerate(arrays):
        fl.save_npy(d / f"in{k}_a.npy", a)
    fl.save_npy(d / "expected_a.npy", np.asarray(out))
    data = (d / "model.pdmodel").read_bytes()
    fl.write_json(d / "meta.json", {"script": fl.rel(__file__), "case": name, "ops": fl.op_types(data),
                                    "output_shape": list(np.asarray(out).shape), **fl.versions()})
    print(f"== {fl.rel(d)}: {', '.join(fl.op_types(data))}")


def main():
    names = sys.argv[1:] or list(CASES)
    for n in names:
        export(n)


if __name__ == "__main__":
    main()
