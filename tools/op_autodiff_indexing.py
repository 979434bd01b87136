#!/usr/bin/env python3
"""References for fluidc's OWN backward pass through set_value, einsum, grid_sampler,
deformable_conv and index_put: test/fixtures/op_autodiff/<case>/.

The op cases (tools/op_cases_*.py) run Paddle's backward ops; these check the
gradient ops fluidc's autodiff transpiler writes itself from a forward-only
program. Each case: the op(s) on parameters (created by the startup program,
uniform [-1, 1) with a fixed seed) and fed inputs; loss = sum(out * wt) with a
fed random weight wt.

  forward.pdmodel   main program, forward only (no backward, no feed/fetch ops)
  init.pdiparams    the parameters after the startup program (combined, name-sorted)
  inputs/<feed>.npy fed arrays
  expected/<param>@GRAD.npy  Paddle's gradients (paddle.static.gradients on a clone)
  loss              the loss variable's name
  tolerance         "RTOL ATOL" (the op cases' 1e-4 / 1e-5)

  python3 tools/op_autodiff_indexing.py   # rewrites test/fixtures/op_autodiff/
"""

import hashlib

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
import paddle.nn.functional as F

OUT = fl.FIXTURES / "op_autodiff"


def rng(name):
    return np.random.default_rng(int(hashlib.sha256(name.encode()).hexdigest()[:8], 16))


def case(name, build):
    """build(param, feed) -> output; param(name, shape) makes a parameter,
    feed(name, shape, dtype, value=None) a fed input."""
    feeds = {}
    with fl.new_programs() as (main, startup):
        r = rng(name)

        def param(pname, shape):
            init = paddle.nn.initializer.Assign(r.uniform(-1, 1, size=shape).astype("float32"))
            return paddle.create_parameter(shape, "float32", name=pname, default_initializer=init)

        def feed(fname, shape, dtype="float32", value=None):
            v = paddle.static.data(fname, shape, dtype)
            feeds[fname] = (r.uniform(-1, 1, size=shape) if value is None else np.asarray(value)).astype(dtype)
            return v

        out = build(param, feed)
        wt = feed("opcase_wt", [int(d) for d in out.shape])
        loss = paddle.sum(paddle.multiply(out, wt))
        fl.sanitize_program(main)
        forward = fl.serialize(main)
        params = [v for v in fl.persistable_vars(main)]
        grad_prog = main.clone()
        with paddle.static.program_guard(grad_prog, startup):
            gl = grad_prog.global_block().var(loss.name)
            grads = paddle.static.gradients([gl], [grad_prog.global_block().var(p.name) for p in params])
        exe = paddle.static.Executor(paddle.CPUPlace())
        scope = paddle.static.global_scope()
        exe.run(startup)
        d = fl.fresh_dir(OUT / name)
        fl.save_persistables(exe, main, d / "init.pdiparams", scope)
        values = exe.run(grad_prog, feed=feeds, fetch_list=grads)
    (d / "forward.pdmodel").write_bytes(forward)
    for f, arr in feeds.items():
        fl.save_npy(d / "inputs" / f"{f}.npy", arr)
    for p, g in zip(params, values):
        fl.save_npy(d / "expected" / f"{p.name}@GRAD.npy", np.asarray(g))
    (d / "loss").write_text(loss.name + "\n")
    (d / "tolerance").write_text("0.0001 1e-05\n")
    fl.write_json(d / "meta.json", {"script": fl.rel(__file__), "case": name, "ops": fl.op_types(forward),
                                    "params": [p.name for p in params], **fl.versions()})
    print(f"== op_autodiff/{name}: {fl.op_types(forward)}")


def main():
    case("einsum_attention", lambda param, feed: paddle.einsum(
        "bhqd,bhkd->bhqk", feed("q", [2, 2, 3, 4]), param("k", [2, 2, 5, 4])))
    case("set_value_rows", lambda param, feed: paddle.static.setitem(
        paddle.scale(param("x", [4, 6]), 2.0), (slice(3, 0, -2), slice(1, 5)), param("v", [1, 4])))
    case("grid_sampler_reflection", lambda param, feed: F.grid_sample(
        param("img", [1, 2, 4, 5]), param("grid", [1, 3, 3, 2]) * 1.2, padding_mode="reflection",
        align_corners=False))
    case("index_put_accumulate", lambda param, feed: paddle.index_put(
        param("x", [4, 3]), (feed("i", [3], "int64", [2, 0, 2]),), param("v", [1, 3]), accumulate=True))
    case("deformable_conv_v2", lambda param, feed: paddle.vision.ops.deform_conv2d(
        feed("x", [1, 2, 4, 5]), param("off", [1, 18, 4, 5]) * 1.5, param("w", [3, 2, 3, 3]), padding=1,
        mask=F.sigmoid(param("m", [1, 9, 4, 5]))))


if __name__ == "__main__":
    main()
