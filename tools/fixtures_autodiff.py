#!/usr/bin/env python3
"""Fixtures test/fixtures/autodiff/*: references for fluidc's autodiff transpiler (a
FORWARD-ONLY program + a loss var in, backward + optimizer ops appended by fluidc).

Training cases (forward.pdmodel = main program with the loss computed, no backward, no
optimizer, no feed/fetch ops, serialised before anything touched it; startup.pdmodel):
  mlp_ce      digits x[-1,64] -> nn.Linear(64,32) -> relu -> nn.Linear(32,10);
              F.cross_entropy(logits, label) (mean); batch 8.
  fit_a_line  housing x[-1,13] -> static.nn.fc(x, 1); paddle.mean(F.square_error_cost); batch 20.
  ops_mix     x[-1,8], y[-1,1]; h = matmul(x, w_in[6,8], transpose_y); a = tanh(h + b_in);
              u = a * sigmoid(a * s_gate) (a used twice -> summed grads);
              d = u / scale(square(q_div), 1, bias 1) (elementwise_div broadcast [-1,6]/[6]);
              sm = softmax(d); t = scale(a, 0.5, 0.1) stop_gradient; side = tanh(x @ w_side)
              stop_gradient (w_side is reachable only through it); z = sm * (t + side);
              r = sum(z, axis=1, keepdim); pred = scale(r, 3, -0.5); loss = mean(square(pred - y));
              batch 16.
  each: init.pdiparams (parameters after the seeded startup, name-sorted combined file),
  data/<feed>.npy (batch*20 rows), grads/<param>.npy (append_backward on a clone, first
  batch, from init), losses_{sgd,momentum,adam}.npy (minimize on a fresh clone, 20 steps).
Fine-tune case:
  fine_tune   the mlp_ce network trained 1 epoch (Adam 0.01, batch 50, 1500 rows) exported with
              save_inference_model (fetch = softmax probabilities) -> model.pdmodel/.pdiparams;
              reference: load_inference_model, mark its persistables is_parameter (the exported
              desc has lost that flag, so plain Paddle would train nothing: meta
              naive_paddle_finetune), drop its feed/fetch ops, append label = static.data [-1,1]
              int64, loss = mean(F.cross_entropy(probs, label, use_softmax=False,
              reduction='none')) (= softmax_with_cross_entropy(use_softmax=false) + reduce_mean),
              SGD(0.1) / Adam(0.01), 20 steps -> losses_finetune_{sgd,adam}.npy; grads/ of the
              first batch; batch 8.
Every case's gradients are checked against central finite differences of a float64
build of the same network (stop_gradient vars frozen = fed as constants); meta grad_check.
meta.json (kind "autodiff" / "autodiff_finetune", so tools/verify_fixtures.py skips them)
records the forward ops, the exact ops append_backward appends (slots, attrs), the ops and
startup ops each optimizer appends, stop_gradient vars, feeds in order.

  python3 tools/fixtures_autodiff.py            # (re)write test/fixtures/autodiff/*
  python3 tools/fixtures_autodiff.py --verify   # recompute grads/losses from the files only

Re-executes itself with PYTHONHASHSEED=0 (like fixtures_control_flow.py)."""

import json
import os
import sys
from pathlib import Path

if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, os.path.abspath(__file__)] + sys.argv[1:])

import numpy as np  # noqa: E402

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle  # noqa: E402
import paddle.nn.functional as F  # noqa: E402
from paddle.base.proto import framework_pb2  # noqa: E402

SCRIPT = __file__
SUB = "autodiff"
PLACE = paddle.CPUPlace()

OPTIMIZERS = {
    "sgd": (lambda: paddle.optimizer.SGD(learning_rate=0.1),
            {"type": "sgd", "call": "paddle.optimizer.SGD(learning_rate=0.1)", "learning_rate": 0.1,
             "weight_decay": None, "grad_clip": None}),
    "momentum": (lambda: paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9),
                 {"type": "momentum", "call": "paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9)",
                  "learning_rate": 0.05, "momentum": 0.9, "use_nesterov": False, "weight_decay": None,
                  "grad_clip": None, "rescale_grad": 1.0, "multi_precision": False}),
    "adam": (lambda: paddle.optimizer.Adam(learning_rate=0.01),
             {"type": "adam", "call": "paddle.optimizer.Adam(learning_rate=0.01)", "learning_rate": 0.01,
              "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "lazy_mode": False, "weight_decay": None,
              "grad_clip": None, "multi_precision": False}),
}

_ATTR_FIELD = {"INT": "i", "FLOAT": "f", "STRING": "s", "INTS": "ints", "FLOATS": "floats",
               "STRINGS": "strings", "BOOLEAN": "b", "BOOLEANS": "bools", "BLOCK": "block_idx",
               "LONG": "l", "BLOCKS": "blocks_idx", "LONGS": "longs", "FLOAT64S": "float64s",
               "VAR": "var_name", "VARS": "vars_name", "FLOAT64": "float64"}
# bookkeeping attributes left out of the op records in meta.json
_SKIP_ATTRS = {"op_callstack", "op_device", "op_namescope", "with_quant_attr"}


# --------------------------------------------------------------------------
# program facts
# --------------------------------------------------------------------------

def _attr(a):
    t = framework_pb2.AttrType.Name(a.type)
    v = getattr(a, _ATTR_FIELD[t])
    if not isinstance(v, (str, bool, int, float)):
        v = list(v)
    return [t, v]


def op_records(data, start=0, stop=None, block=0):
    """Ops [start:stop) of a serialised program: type, slots, attrs ([TYPE, value])."""
    pd = framework_pb2.ProgramDesc.FromString(data)
    out = []
    for op in list(pd.blocks[block].ops)[start:stop]:
        out.append({
            "type": op.type,
            "inputs": {i.parameter: list(i.arguments) for i in sorted(op.inputs, key=lambda s: s.parameter)},
            "outputs": {o.parameter: list(o.arguments) for o in sorted(op.outputs, key=lambda s: s.parameter)},
            "attrs": {a.name: _attr(a) for a in sorted(op.attrs, key=lambda a: a.name)
                      if a.name not in _SKIP_ATTRS},
        })
    return out


def var_records(data, names, block=0):
    pd = framework_pb2.ProgramDesc.FromString(data)
    vs = {v.name: v for v in pd.blocks[block].vars}
    out = {}
    for n in names:
        v = vs[n]
        td = v.type.lod_tensor.tensor
        out[n] = {"dtype": framework_pb2.VarType.Type.Name(td.data_type), "shape": list(td.dims),
                  "persistable": v.persistable, "stop_gradient": v.stop_gradient,
                  "is_parameter": v.is_parameter}
    return out


def _dumps(o, ind):
    """json.dumps(indent=1, sort_keys=True) except that op records and short scalar
    lists sit on one line each (keeps meta.json small and readable)."""
    pad, pad1 = " " * ind, " " * (ind + 1)
    if isinstance(o, dict) and not ("type" in o and "attrs" in o) and o:
        items = [f'{pad1}{json.dumps(k)}: {_dumps(v, ind + 1)}' for k, v in sorted(o.items())]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(o, list) and o and not all(isinstance(v, (int, float, str, bool)) or v is None for v in o):
        return "[\n" + ",\n".join(pad1 + _dumps(v, ind + 1) for v in o) + "\n" + pad + "]"
    return json.dumps(o, sort_keys=True)


def write_json(path, obj):
    text = _dumps(obj, 0) + "\n"
    assert json.loads(text) == json.loads(json.dumps(obj))
    Path(path).write_text(text)


def stop_gradient_vars(data, block=0):
    pd = framework_pb2.ProgramDesc.FromString(data)
    return sorted(v.name for v in pd.blocks[block].vars if v.stop_gradient)


def num_ops(program):
    return len(program.global_block().ops)


def save_program_dump(tag, program):
    data = fl.serialize(program)
    fl.dump_text(tag, data)
    return data


# --------------------------------------------------------------------------
# scope helpers
# --------------------------------------------------------------------------

def set_params(scope, params, dtype=None):
    for n, a in params.items():
        a = a.astype(dtype) if dtype else a
        scope.var(n).get_tensor().set(np.ascontiguousarray(a), PLACE)


def batch(arrays, i, B, dtype=None):
    out = {}
    for k, a in arrays.items():
        s = a[i * B:(i + 1) * B]
        if dtype and s.dtype.kind == "f":
            s = s.astype(dtype)
        out[k] = s
    return out


def load_params(path, names):
    recs = fl.read_combined(path)
    assert len(recs) == len(names)
    return {n: arr.copy() for n, (_, _, arr) in zip(names, recs)}


# --------------------------------------------------------------------------
# references computed on clones
# --------------------------------------------------------------------------

def gradient_reference(prog_in, loss_name, params, feed, tag, feed_names):
    """append_backward(loss) on a clone of prog_in; run it once on `feed` from `params`.
    Returns grads {param: ndarray}, loss value, facts for meta.json."""
    prog = prog_in.clone()
    n0 = num_ops(prog)
    with paddle.static.program_guard(prog, paddle.static.Program()), paddle.utils.unique_name.guard():
        pg = paddle.static.append_backward(prog.global_block().var(loss_name))
    data = save_program_dump(f"{tag}.append_backward", prog)
    pairs = [(p.name, g.name) for p, g in pg]
    exe = paddle.static.Executor(PLACE)
    with paddle.static.scope_guard(paddle.static.Scope()):
        set_params(paddle.static.global_scope(), params)
        res = exe.run(prog, feed=feed, fetch_list=[loss_name] + [g for _, g in pairs])
    grads = {p: np.asarray(r, np.float32) for (p, _), r in zip(pairs, res[1:])}
    pd = framework_pb2.ProgramDesc.FromString(data)
    grad_vars = sorted(v.name for v in pd.blocks[0].vars if "@GRAD" in v.name)
    ops = op_records(data, n0)
    facts = {
        "call": "paddle.static.append_backward(loss) on program.clone() (parameter_list=None, no_grad_set=None)",
        "returned_pairs": pairs,
        "ops": ops,
        "ops_sequence": [o["type"] for o in ops],
        "grad_vars": grad_vars,
        "feed_grads_created": sorted(g for g in grad_vars if g.split("@")[0] in feed_names),
        "renamed_grad_vars": sorted(g for g in grad_vars if "@RENAME" in g),
    }
    return grads, np.float32(res[0]), facts


def train_reference(prog_in, startup_in, loss_name, opt_key, params, arrays, B, tag, steps=fl.STEPS,
                    startup_ops_to_skip=None):
    """minimize() on fresh clones; run the (cloned) startup with the fixture seed, then overwrite
    every parameter with `params`; `steps` steps on consecutive batches."""
    make_opt, settings = OPTIMIZERS[opt_key]
    prog, sp = prog_in.clone(), startup_in.clone()
    n0, s0 = num_ops(prog), num_ops(sp)
    with paddle.static.program_guard(prog, sp), paddle.utils.unique_name.guard():
        make_opt().minimize(prog.global_block().var(loss_name))
    data = save_program_dump(f"{tag}.{opt_key}.main", prog)
    sdata = save_program_dump(f"{tag}.{opt_key}.startup", sp)
    exe = paddle.static.Executor(PLACE)
    losses = []
    with paddle.static.scope_guard(paddle.static.Scope()):
        paddle.seed(fl.SEED)
        exe.run(sp)
        set_params(paddle.static.global_scope(), params)
        for i in range(steps):
            (l,) = exe.run(prog, feed=batch(arrays, i, B), fetch_list=[loss_name])
            losses.append(np.float32(l))
    ops = op_records(data, n0)
    opt_ops = [o for o in ops if o["attrs"]["op_role"][1] & 2]
    return np.array(losses, np.float32), {
        **settings,
        "ops_appended_sequence": [o["type"] for o in ops],
        "optimizer_ops": opt_ops,
        "startup_ops_appended": op_records(sdata, s0),
    }


# --------------------------------------------------------------------------
# finite-difference check in float64
# --------------------------------------------------------------------------

def fd_check(build64, loss_name, params, feed32, grads32, frozen=None, eps=1e-6, unfrozen_probe=None):
    """Central differences of a float64 build of the network (same parameter names).
    frozen: {stop_gradient var in the full build: data var of the frozen build} -- the
    frozen build reads those as feeds holding their unperturbed values (stop_gradient
    semantics: treated as constants).  Also compares Paddle's float64 append_backward."""
    feed64 = {k: (a.astype(np.float64) if a.dtype.kind == "f" else a) for k, a in feed32.items()}
    exe = paddle.static.Executor(PLACE)
    scope = paddle.static.Scope()
    paddle.set_default_dtype("float64")
    try:
        with fl.new_programs() as (full, _):
            build64("float64", False)
        if frozen:
            with fl.new_programs() as (fdp, _):
                build64("float64", True)
        else:
            fdp = full
    finally:
        paddle.set_default_dtype("float32")
    with paddle.static.scope_guard(scope):
        set_params(scope, params, np.float64)
        fd_feed = dict(feed64)
        if frozen:
            vals = exe.run(full, feed=feed64, fetch_list=list(frozen))
            fd_feed.update({frozen[k]: v for k, v in zip(frozen, vals)})
        (l_full,) = exe.run(full, feed=feed64, fetch_list=[loss_name])
        (l_fd,) = exe.run(fdp, feed=fd_feed, fetch_list=[loss_name])
        assert float(l_full) == float(l_fd), (l_full, l_fd)

        def numeric(prog, fd, names):
            out = {}
            for n in names:
                t = scope.find_var(n).get_tensor()
                base = params[n].astype(np.float64)
                num = np.zeros(base.size)
                for k in range(base.size):
                    v = []
                    for sgn in (1, -1):
                        p = base.copy().reshape(-1)
                        p[k] += sgn * eps
                        t.set(p.reshape(base.shape), PLACE)
                        (l,) = exe.run(prog, feed=fd, fetch_list=[loss_name])
                        v.append(float(l))
                    num[k] = (v[0] - v[1]) / (2 * eps)
                t.set(base, PLACE)
                out[n] = num.reshape(base.shape)
            return out

        names = sorted(params)
        num = numeric(fdp, fd_feed, names)
        # Paddle's own float64 backward on the FULL float64 build (stop_gradient as built)
        g64p = full.clone()
        with paddle.static.program_guard(g64p, paddle.static.Program()), paddle.utils.unique_name.guard():
            pg = paddle.static.append_backward(g64p.global_block().var(loss_name))
        pairs = [(p.name, g.name) for p, g in pg]
        res = exe.run(g64p, feed=feed64, fetch_list=[g for _, g in pairs])
        g64 = {p: r for (p, _), r in zip(pairs, res)}
        probe = numeric(full, feed64, unfrozen_probe) if unfrozen_probe else {}

    def rel(g, n):
        return float(np.abs(g - n).max() / max(np.abs(n).max(), 1e-12))

    per = {}
    for n in names:
        d = {"entries": int(params[n].size), "max_abs_fd": float("%.6g" % np.abs(num[n]).max())}
        if n in grads32:
            d["rel_err_f32_append_backward"] = float("%.3g" % rel(grads32[n].astype(np.float64), num[n]))
            d["rel_err_f64_append_backward"] = float("%.3g" % rel(g64[n], num[n]))
        else:
            assert n not in g64, n
            assert not np.any(num[n]), (n, "has no Paddle gradient but the frozen loss depends on it")
            d["no_gradient"] = "append_backward returns none; FD of the frozen loss is exactly 0"
        per[n] = d
    worst32 = max(d.get("rel_err_f32_append_backward", 0) for d in per.values())
    worst64 = max(d.get("rel_err_f64_append_backward", 0) for d in per.values())
    assert worst32 < 1e-3 and worst64 < 1e-6, per
    out = {
        "method": f"float64 build of the same network, parameters = init (cast), first batch; central "
                  f"differences eps={eps} over every entry of every parameter; rel err = "
                  f"max|g - fd| / max|fd| per parameter; g = the float32 grads/ files and Paddle's "
                  f"append_backward on the float64 build",
        "max_rel_err_f32": worst32, "max_rel_err_f64": worst64, "per_param": per,
        "loss_f64": float(l_full),
    }
    if frozen:
        out["frozen"] = {k: v for k, v in frozen.items()}
        out["frozen_note"] = ("the FD program reads each stop_gradient var as a feed holding its value "
                              "from the unfrozen run (a constant), i.e. what stop_gradient means")
    if probe:
        out["without_freezing"] = {
            n: {"max_abs_fd": float("%.6g" % np.abs(probe[n]).max()),
                "rel_diff_to_append_backward": (float("%.3g" % rel(g64[n], probe[n])) if n in g64 else None)}
            for n in unfrozen_probe}
    print(f"  grad check: f32 {worst32:.3g}  f64 {worst64:.3g}")
    return out


# --------------------------------------------------------------------------
# networks (dtype-parametrised so the FD check can rebuild them in float64)
# --------------------------------------------------------------------------

def build_mlp_ce(dtype="float32", frozen=False):
    x = paddle.static.data("x", [-1, 64], dtype)
    label = paddle.static.data("label", [-1, 1], "int64")
    h = F.relu(paddle.nn.Linear(64, 32)(x))
    logits = paddle.nn.Linear(32, 10)(h)
    loss = F.cross_entropy(logits, label)
    return {"feeds": [x, label], "loss": loss, "logits": logits}


def build_fit_a_line(dtype="float32", frozen=False):
    x = paddle.static.data("x", [-1, 13], dtype)
    y = paddle.static.data("y", [-1, 1], dtype)
    pred = paddle.static.nn.fc(x, 1)
    loss = paddle.mean(F.square_error_cost(pred, y))
    return {"feeds": [x, y], "loss": loss}


def build_ops_mix(dtype="float32", frozen=False):
    x = paddle.static.data("x", [-1, 8], dtype)
    y = paddle.static.data("y", [-1, 1], dtype)
    w_in = paddle.create_parameter([6, 8], dtype, name="w_in")
    b_in = paddle.create_parameter([6], dtype, name="b_in", is_bias=True,
                                   default_initializer=paddle.nn.initializer.Constant(0.1))
    s_gate = paddle.create_parameter([6], dtype, name="s_gate",
                                     default_initializer=paddle.nn.initializer.Uniform(0.5, 1.5))
    q_div = paddle.create_parameter([6], dtype, name="q_div",
                                    default_initializer=paddle.nn.initializer.Normal(0.0, 0.5))
    w_side = paddle.create_parameter([8, 6], dtype, name="w_side")
    h = paddle.matmul(x, w_in, transpose_y=True)            # matmul_v2 trans_y
    a = paddle.tanh(h + b_in)                                # elementwise_add, tanh
    g = F.sigmoid(a * s_gate)                                # elementwise_mul [-1,6]*[6], sigmoid
    u = a * g                                                # a used twice
    dv = paddle.scale(paddle.square(q_div), scale=1.0, bias=1.0)
    d = u / dv                                               # elementwise_div [-1,6]/[6]
    sm = F.softmax(d, axis=-1)
    if frozen:
        t = paddle.static.data("frozen_t", [-1, 6], dtype)
        side = paddle.static.data("frozen_side", [-1, 6], dtype)
    else:
        t = paddle.scale(a, scale=0.5, bias=0.1)
        t.stop_gradient = True                               # a's third use: no gradient through here
        side = paddle.tanh(paddle.matmul(x, w_side))
        side.stop_gradient = True                            # w_side only reachable through here
    z = sm * (t + side)
    r = paddle.sum(z, axis=1, keepdim=True)                  # reduce_sum dim=[1]
    pred = paddle.scale(r, scale=3.0, bias=-0.5)
    loss = paddle.mean(paddle.square(pred - y))              # elementwise_sub, square, reduce_mean
    return {"feeds": [x, y], "loss": loss, "stop_gradient_set": [t, side]}


def build_finetune_f64(dtype="float64", frozen=False):
    """float64 twin of the fine-tune program (for the FD check only): the exported forward
    (Linear, relu, Linear, softmax, scale 1.0) + the appended loss."""
    x = paddle.static.data("x", [-1, 64], dtype)
    label = paddle.static.data("label", [-1, 1], "int64")
    h = F.relu(paddle.nn.Linear(64, 32)(x))
    probs = paddle.scale(F.softmax(paddle.nn.Linear(32, 10)(h)), 1.0)
    loss = paddle.mean(F.cross_entropy(probs, label, use_softmax=False, reduction="none"))
    return {"feeds": [x, label], "loss": loss}


# --------------------------------------------------------------------------
# the training-case recipe
# --------------------------------------------------------------------------

def make_case(name, build, data, B, notes, steps=fl.STEPS):
    full = f"{SUB}/{name}"
    out = fl.fresh_dir(fl.FIXTURES / full)
    with fl.new_programs() as (main, startup):
        built = build()
    feeds, loss = built["feeds"], built["loss"]
    fl.sanitize_program(main)
    fl.sanitize_program(startup)
    fwd_bytes, startup_bytes = fl.serialize(main), fl.serialize(startup)
    (out / "forward.pdmodel").write_bytes(fwd_bytes)
    (out / "startup.pdmodel").write_bytes(startup_bytes)
    fl.dump_text(f"{full}.forward", fwd_bytes)
    fl.dump_text(f"{full}.startup", startup_bytes)
    assert not {"feed", "fetch"} & set(fl.op_types(fwd_bytes)) and not any(
        t.endswith("_grad") for t in fl.op_types(fwd_bytes))

    rows = B * steps
    arrays = {}
    for v in feeds:
        arr = np.ascontiguousarray(data[v.name][:rows])
        assert arr.shape[0] == rows and arr.dtype == np.dtype(fl.var_dtype_name(v)), (v.name, arr.shape)
        fl.save_npy(out / "data" / f"{v.name}.npy", arr)
        arrays[v.name] = arr

    exe = paddle.static.Executor(PLACE)
    with paddle.static.scope_guard(paddle.static.Scope()):
        paddle.seed(fl.SEED)
        exe.run(startup)
        info = fl.save_persistables(exe, main, out / "init.pdiparams", paddle.static.global_scope())
    pnames = [n for n, _, _ in info]
    param_names = sorted(p.name for p in main.all_parameters())
    assert pnames == param_names, (pnames, param_names)
    params = load_params(out / "init.pdiparams", pnames)

    feed_names = [v.name for v in feeds]
    first = batch(arrays, 0, B)
    grads, loss0, bw = gradient_reference(main, loss.name, params, first, full, feed_names)
    for n, g in sorted(grads.items()):
        assert g.shape == params[n].shape
        fl.save_npy(out / "grads" / f"{n}.npy", g)

    losses, opts = {}, {}
    for key in OPTIMIZERS:
        losses[key], opts[key] = train_reference(main, startup, loss.name, key, params, arrays, B, full, steps)
        assert losses[key][0].tobytes() == loss0.tobytes(), (key, losses[key][0], loss0)
        fl.save_npy(out / f"losses_{key}.npy", losses[key])
    assert fl.serialize(main) == fwd_bytes and fl.serialize(startup) == startup_bytes

    frozen = None
    if built.get("stop_gradient_set"):
        frozen = {v.name: f"frozen_{'t' if i == 0 else 'side'}" for i, v in enumerate(built["stop_gradient_set"])}
    check = fd_check(build, loss.name, params, first, grads, frozen=frozen,
                     unfrozen_probe=param_names if frozen else None)

    sg = stop_gradient_vars(fwd_bytes)
    meta = {
        "kind": "autodiff",
        "name": full,
        "script": fl.rel(SCRIPT),
        **fl.versions(),
        "seed": fl.SEED,
        "batch_size": B,
        "steps": steps,
        "feeding": "step i feeds rows [i*batch_size, (i+1)*batch_size) of each data/<feed>.npy, no shuffle; "
                   "the gradients use step 0's batch",
        "feeds": [{"name": v.name, **fl.feed_info(v)} for v in feeds],
        "data_files": {v.name: f"data/{v.name}.npy" for v in feeds},
        "loss": loss.name,
        "loss_shape": [int(d) for d in loss.shape],
        "first_batch_loss": float(loss0),
        "parameters": param_names,
        "persistables": pnames,
        "persistable_info": {n: {"dtype": dt, "shape": dims} for n, dt, dims in info},
        "params_file_format": "Paddle combined tensor records (save_combine via paddle.static.io.save_vars), "
                              "one record per name in `persistables` order (sorted by name), no names stored",
        "grads": {p: f"grads/{p}.npy" for p in sorted(grads)},
        "params_without_grad": [p for p in param_names if p not in grads],
        "stop_gradient_vars": sg,
        "stop_gradient_non_feed_vars": [n for n in sg if n not in feed_names],
        "ops_forward": fl.op_types(fwd_bytes),
        "ops_forward_sequence": fl.op_types(fwd_bytes, unique=False),
        "ops_startup_sequence": fl.op_types(startup_bytes, unique=False),
        "forward_ops": op_records(fwd_bytes),
        "program_forward": fl.program_facts(fwd_bytes),
        "append_backward": bw,
        "optimizers": opts,
        "losses": {k: [float(x) for x in v] for k, v in losses.items()},
        "loss_files": {k: f"losses_{k}.npy" for k in losses},
        "training": "for each optimizer: optimizer.minimize(loss) on fresh clones of forward + startup "
                    "(unique_name.guard()), startup clone run with paddle.seed(seed) (creates the "
                    "accumulators), every parameter then set from init.pdiparams, 20 steps; fetched loss "
                    "per step (before that step's update)",
        "grad_check": check,
        "op_callstack": "absolute paths rewritten: repo root stripped, site-packages -> '<site-packages>/'",
        "notes": notes,
    }
    meta["files"] = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) + ["meta.json"]
    write_json(out / "meta.json", meta)
    print(f"{full}: fwd={meta['ops_forward_sequence']}\n  bw={bw['ops_sequence']}\n  "
          + "  ".join(f"{k} {v[0]:.5f}->{v[-1]:.5f}" for k, v in losses.items()))
    return meta


# --------------------------------------------------------------------------
# fine_tune
# --------------------------------------------------------------------------

FT_B = 8
EPOCH_B = 50


def naive_finetune_facts(model_prefix, exe):
    """What plain Paddle does with the loaded inference program: its persistables come back as
    plain Variables (save_inference_model does not keep VarDesc.is_parameter), so
    append_backward / minimize find no parameters."""
    with paddle.static.scope_guard(paddle.static.Scope()):
        prog, _, fetch_targets = paddle.static.load_inference_model(model_prefix, exe)
        blk = prog.global_block()
        for i in reversed(range(num_ops(prog))):
            if blk.ops[i].type in ("feed", "fetch"):
                blk._remove_op(i)
        n0 = num_ops(prog)
        pers = sorted(v.name for v in prog.list_vars() if v.persistable and v.name not in ("feed", "fetch"))
        with paddle.static.program_guard(prog, paddle.static.Program()), paddle.utils.unique_name.guard():
            label = paddle.static.data("label", [-1, 1], "int64")
            loss = paddle.mean(F.cross_entropy(fetch_targets[0], label, use_softmax=False, reduction="none"))
            res = paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
        ops = [op.type for op in prog.global_block().ops[n0:]]
        facts = {
            "persistables_loaded_as": sorted({type(prog.global_block().var(n)).__name__ for n in pers}),
            "all_parameters": [p.name for p in prog.all_parameters()],
            "minimize_params_grads": [(p.name, g.name) for p, g in res[1]],
            "ops_appended_by_loss_and_minimize": ops,
            "optimizer_ops_appended": [t for t in ops if t in ("sgd", "momentum", "adam")],
            "persistable_grad_vars_created": sorted(n + "@GRAD" for n in pers
                                                    if prog.global_block().has_var(n + "@GRAD")),
        }
    with paddle.static.scope_guard(paddle.static.Scope()):
        prog, _, fetch_targets = paddle.static.load_inference_model(model_prefix, exe)
        try:
            paddle.optimizer.SGD(learning_rate=0.1, parameters=[prog.global_block().var(n) for n in pers])
            for i in reversed(range(num_ops(prog))):
                if prog.global_block().ops[i].type in ("feed", "fetch"):
                    prog.global_block()._remove_op(i)
            with paddle.static.program_guard(prog, paddle.static.Program()), paddle.utils.unique_name.guard():
                label = paddle.static.data("label", [-1, 1], "int64")
                loss = paddle.mean(F.cross_entropy(fetch_targets[0], label, use_softmax=False, reduction="none"))
                paddle.optimizer.SGD(learning_rate=0.1,
                                     parameters=[prog.global_block().var(n) for n in pers]).minimize(loss)
            facts["with_parameters_argument"] = "ok"
        except Exception as e:  # noqa: BLE001
            facts["with_parameters_argument"] = f"{type(e).__name__}: {e}"
    assert not facts["all_parameters"] and not facts["optimizer_ops_appended"], facts
    return facts


def finetune_program(model_prefix, exe):
    """load_inference_model into the current scope, drop its feed/fetch ops, mark its
    persistables as parameters (VarDesc.is_parameter, re-parse), append the loss.
    Returns (program, loss name, facts)."""
    prog0, feed_names, fetch_targets = paddle.static.load_inference_model(model_prefix, exe)
    pers = sorted(v.name for v in prog0.list_vars() if v.persistable and v.name not in ("feed", "fetch"))
    for n in pers:
        prog0.desc.block(0).find_var(n.encode()).set_is_parameter(True)
    prog = paddle.static.Program.parse_from_string(prog0.desc.serialize_to_string())
    assert sorted(p.name for p in prog.all_parameters()) == pers
    probs = prog.global_block().var(fetch_targets[0].name)
    blk = prog.global_block()
    removed = []
    for i in reversed(range(num_ops(prog))):
        if blk.ops[i].type in ("feed", "fetch"):
            removed.append({"index": i, "type": blk.ops[i].type,
                            "inputs": {k: blk.ops[i].input(k) for k in blk.ops[i].input_names},
                            "outputs": {k: blk.ops[i].output(k) for k in blk.ops[i].output_names}})
            blk._remove_op(i)
    prog._sync_with_cpp()
    n0 = num_ops(prog)
    before = {v.name for v in prog.list_vars()}
    with paddle.static.program_guard(prog, paddle.static.Program()), paddle.utils.unique_name.guard():
        label = paddle.static.data("label", [-1, 1], "int64")
        ce = F.cross_entropy(probs, label, use_softmax=False, reduction="none")
        loss = paddle.mean(ce)
    new_vars = sorted({v.name for v in prog.list_vars()} - before)
    data = fl.serialize(prog)
    facts = {
        "feed_names_loaded": feed_names,
        "marked_as_parameters": pers,
        "fetch_target": probs.name,
        "removed_ops": removed[::-1],
        "label": {"name": label.name, "dtype": "int64", "shape": [-1, 1],
                  "call": "paddle.static.data('label', [-1, 1], 'int64')"},
        "loss_call": "loss = paddle.mean(F.cross_entropy(probs, label, use_softmax=False, reduction='none'))",
        "loss_ops": op_records(data, n0),
        "loss_ops_sequence": [o["type"] for o in op_records(data, n0)],
        "new_vars": var_records(data, new_vars),
        "loss": loss.name,
        "trainable_parameters": sorted(p.name for p in prog.all_parameters()),
    }
    return prog, loss.name, facts


def finetune_losses(model_prefix, key, arrays, B, steps, tag):
    """Fresh scope, fresh load + loss, optimizer.minimize with a new startup program (only the
    optimizer's fill_constant ops), that startup run, `steps` steps from the model's params."""
    make_opt, settings = OPTIMIZERS[key]
    exe = paddle.static.Executor(PLACE)
    with paddle.static.scope_guard(paddle.static.Scope()):
        prog, loss_name, _ = finetune_program(model_prefix, exe)
        n0 = num_ops(prog)
        sp = paddle.static.Program()
        with paddle.static.program_guard(prog, sp), paddle.utils.unique_name.guard():
            make_opt().minimize(prog.global_block().var(loss_name))
        data = save_program_dump(f"{tag}.{key}.main", prog)
        sdata = save_program_dump(f"{tag}.{key}.startup", sp)
        exe.run(sp)
        ls = []
        for i in range(steps):
            (l,) = exe.run(prog, feed=batch(arrays, i, B), fetch_list=[loss_name])
            ls.append(np.float32(l))
    ops = op_records(data, n0)
    return np.array(ls, np.float32), {
        **settings, "ops_appended_sequence": [o["type"] for o in ops],
        "optimizer_ops": [o for o in ops if o["attrs"]["op_role"][1] & 2],
        "startup_ops": op_records(sdata)}


def make_fine_tune(d):
    full = f"{SUB}/fine_tune"
    out = fl.fresh_dir(fl.FIXTURES / full)
    # ---- 1 epoch of the mlp_ce network, exported with softmax probabilities ----
    with fl.new_programs() as (main, startup):
        built = build_mlp_ce()
        test_program = main.clone(for_test=True)
        with paddle.static.program_guard(test_program):
            prob = F.softmax(test_program.global_block().var(built["logits"].name))
        paddle.optimizer.Adam(learning_rate=0.01).minimize(built["loss"])
    exe = paddle.static.Executor(PLACE)
    scope = paddle.static.Scope()
    epoch = {"x": d["train_x"], "label": d["train_label"]}
    n_ep = epoch["x"].shape[0] // EPOCH_B
    assert n_ep * EPOCH_B == epoch["x"].shape[0]
    ep_losses = []
    with paddle.static.scope_guard(scope):
        paddle.seed(fl.SEED)
        exe.run(startup)
        for i in range(n_ep):
            (l,) = exe.run(main, feed=batch(epoch, i, EPOCH_B), fetch_list=[built["loss"]])
            ep_losses.append(float(np.float32(l)))
        paddle.static.save_inference_model(str(out / "model"), [test_program.global_block().var("x")],
                                           [prob], exe, program=test_program)
    fl.sanitize_model_file(out / "model.pdmodel")
    model_bytes = (out / "model.pdmodel").read_bytes()
    fl.dump_text(f"{full}.model", model_bytes)

    rows = FT_B * fl.STEPS
    arrays = {"x": np.ascontiguousarray(d["train_x"][:rows]), "label": np.ascontiguousarray(d["train_label"][:rows])}
    for k, a in arrays.items():
        fl.save_npy(out / "data" / f"{k}.npy", a)
    first = batch(arrays, 0, FT_B)

    # ---- parameters as stored in model.pdiparams ----
    with paddle.static.scope_guard(paddle.static.Scope()):
        iprog, _, _ = paddle.static.load_inference_model(str(out / "model"), exe)
        pnames = [v.name for v in fl.persistable_vars(iprog)]
        params = {n: np.array(paddle.static.global_scope().find_var(n).get_tensor()).copy() for n in pnames}
    for n, a in load_params(out / "model.pdiparams", pnames).items():
        assert a.tobytes() == params[n].tobytes(), n

    # ---- gradients of the first batch ----
    with paddle.static.scope_guard(paddle.static.Scope()):
        prog, loss_name, facts = finetune_program(str(out / "model"), exe)
        save_program_dump(f"{full}.finetune_forward", prog)
        feed_names = ["x", "label"]
        grads, loss0, bw = gradient_reference(prog, loss_name, params, first, full, feed_names)
    for n, g in sorted(grads.items()):
        fl.save_npy(out / "grads" / f"{n}.npy", g)

    # ---- fine-tuning references ----
    losses, opts = {}, {}
    for key in ("sgd", "adam"):
        losses[key], opts[key] = finetune_losses(str(out / "model"), key, arrays, FT_B, fl.STEPS, full)
        assert losses[key][0].tobytes() == loss0.tobytes(), (key, losses[key][0], loss0)
        fl.save_npy(out / f"losses_finetune_{key}.npy", losses[key])

    check = fd_check(build_finetune_f64, loss_name, params, first, grads)
    naive = naive_finetune_facts(str(out / "model"), exe)
    meta = {
        "kind": "autodiff_finetune",
        "name": full,
        "script": fl.rel(SCRIPT),
        **fl.versions(),
        "seed": fl.SEED,
        "model": {"program": "model.pdmodel", "params": "model.pdiparams"},
        "export": {
            "network": "mlp_ce's network (x[-1,64] -> nn.Linear(64,32) -> relu -> nn.Linear(32,10)), "
                       "clone(for_test=True) + F.softmax(logits) as fetch",
            "trained": f"1 epoch: Adam(learning_rate=0.01) on F.cross_entropy(logits, label), batch {EPOCH_B}, "
                       f"{n_ep} steps over all {epoch['x'].shape[0]} rows of examples/mlp_classifier/data/"
                       "train_{x,label}.npy in order, from the seeded startup (paddle.seed(2024))",
            "epoch_losses_first_last": [ep_losses[0], ep_losses[-1]],
            "call": "paddle.static.save_inference_model(prefix, [x], [probs], exe, program=test_program)",
        },
        "fetch_target": facts["fetch_target"],
        "output_var": facts["fetch_target"],
        "label_feed": "label",
        "feeds": [{"name": "x", "dtype": "float32", "shape": [-1, 64]},
                  {"name": "label", "dtype": "int64", "shape": [-1, 1]}],
        "data_files": {k: f"data/{k}.npy" for k in arrays},
        "batch_size": FT_B,
        "steps": fl.STEPS,
        "feeding": "step i feeds rows [i*batch_size, (i+1)*batch_size) of each data/<feed>.npy, no shuffle; "
                   "the gradients use step 0's batch (the first 160 training rows, also seen in the epoch)",
        "persistables": pnames,
        "persistable_info": {n: {"dtype": str(a.dtype), "shape": list(a.shape)} for n, a in params.items()},
        "parameters": facts["trainable_parameters"],
        "ops_model_sequence": fl.op_types(model_bytes, unique=False),
        "model_ops": op_records(model_bytes),
        "program_model": fl.program_facts(model_bytes),
        "finetune_program": {
            "recipe": "paddle.static.load_inference_model(prefix, exe) (loads model.pdiparams into the scope); "
                      "set VarDesc.is_parameter on every persistable (save_inference_model drops it, see "
                      "naive_paddle_finetune) and re-parse the desc (Program.parse_from_string) so they become "
                      "trainable Parameters; "
                      "remove the program's feed and fetch ops (the Executor refuses a feed dict / fetch list "
                      "that does not match existing feed/fetch ops); in program_guard(program, new startup) "
                      "and a fresh unique_name.guard(): label = paddle.static.data('label', [-1,1], 'int64'); "
                      "loss = paddle.mean(F.cross_entropy(probs, label, use_softmax=False, reduction='none')) "
                      "with probs = the loaded fetch target",
            **facts,
        },
        "naive_paddle_finetune": naive,
        "loss": loss_name,
        "first_batch_loss": float(loss0),
        "grads": {p: f"grads/{p}.npy" for p in sorted(grads)},
        "params_without_grad": [p for p in pnames if p not in grads],
        "append_backward": bw,
        "optimizers": opts,
        "losses": {k: [float(x) for x in v] for k, v in losses.items()},
        "loss_files": {k: f"losses_finetune_{k}.npy" for k in losses},
        "training": "for each optimizer: a fresh scope and a fresh load + loss as above, "
                    "optimizer.minimize(loss) with a new startup program (holds only the optimizer's "
                    "fill_constant ops), that startup run, then 20 steps from model.pdiparams",
        "grad_check": check,
        "op_callstack": "absolute paths rewritten: repo root stripped, site-packages -> '<site-packages>/'",
        "notes": "F.cross_entropy(..., use_softmax=False) emits softmax_with_cross_entropy(use_softmax=false); "
                 "its default reduction='mean' already appends reduce_mean, so paddle.mean(F.cross_entropy(...)) "
                 "with the default would append a SECOND reduce_mean on the 0-D value; reduction='none' + "
                 "paddle.mean gives exactly softmax_with_cross_entropy + reduce_mean.",
    }
    meta["files"] = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) + ["meta.json"]
    write_json(out / "meta.json", meta)
    print(f"{full}: loss ops={facts['loss_ops_sequence']} params={facts['trainable_parameters']}\n  "
          f"bw={bw['ops_sequence']}\n  "
          + "  ".join(f"{k} {v[0]:.5f}->{v[-1]:.5f}" for k, v in losses.items()))


def verify():
    """Recompute every reference from the case's own files only (parsed programs, init /
    model params, data) and require bit-identical grads and losses."""
    ok = True
    for mp in sorted((fl.FIXTURES / SUB).glob("*/meta.json")):
        d, meta = mp.parent, json.loads(mp.read_text())
        arrays = {f["name"]: np.load(d / meta["data_files"][f["name"]]) for f in meta["feeds"]}
        B = meta["batch_size"]
        first = batch(arrays, 0, B)
        exe = paddle.static.Executor(PLACE)
        try:
            if meta["kind"] == "autodiff":
                fwd = paddle.static.Program.parse_from_string((d / "forward.pdmodel").read_bytes())
                sp = paddle.static.Program.parse_from_string((d / "startup.pdmodel").read_bytes())
                assert sorted(p.name for p in fwd.all_parameters()) == meta["parameters"]
                params = load_params(d / "init.pdiparams", meta["persistables"])
                grads, loss0, _ = gradient_reference(fwd, meta["loss"], params, first, f"verify/{d.name}",
                                                     list(arrays))
                for key, f in meta["loss_files"].items():
                    ls, _ = train_reference(fwd, sp, meta["loss"], key, params, arrays, B, f"verify/{d.name}",
                                            meta["steps"])
                    assert ls.tobytes() == np.load(d / f).tobytes(), (key, ls)
            else:
                with paddle.static.scope_guard(paddle.static.Scope()):
                    prog, loss_name, _ = finetune_program(str(d / "model"), exe)
                    params = {n: np.array(paddle.static.global_scope().find_var(n).get_tensor()).copy()
                              for n in meta["persistables"]}
                    grads, loss0, _ = gradient_reference(prog, loss_name, params, first, f"verify/{d.name}",
                                                         list(arrays))
                for key, f in meta["loss_files"].items():
                    ls, _ = finetune_losses(str(d / "model"), key, arrays, B, meta["steps"], f"verify/{d.name}")
                    assert ls.tobytes() == np.load(d / f).tobytes(), (key, ls)
            assert float(loss0) == meta["first_batch_loss"]
            assert sorted(grads) == sorted(meta["grads"])
            for n, f in meta["grads"].items():
                assert grads[n].tobytes() == np.load(d / f).tobytes(), n
            print(f"ok   {SUB}/{d.name}")
        except AssertionError as e:
            ok = False
            print(f"FAIL {SUB}/{d.name}: {e}")
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ["--verify"]:
        (fl.DUMP_DIR / "verify").mkdir(parents=True, exist_ok=True)
        sys.exit(verify())
    (fl.DUMP_DIR / SUB).mkdir(parents=True, exist_ok=True)
    d = fl.load_digits()
    make_case("mlp_ce", build_mlp_ce, {"x": d["train_x"], "label": d["train_label"]}, 8,
              "nn.Linear emits matmul_v2 + elementwise_add(axis=-1); F.cross_entropy emits "
              "softmax_with_cross_entropy(soft_label=false, axis=-1) + reduce_mean(reduce_all).")
    h = fl.load_housing()
    make_case("fit_a_line", build_fit_a_line, {"x": h["train_x"], "y": h["train_y"]}, 20,
              "static.nn.fc emits mul(x_num_col_dims=1) + elementwise_add(axis=1); square_error_cost "
              "emits elementwise_sub + square; paddle.mean emits reduce_mean(reduce_all).")
    rng = np.random.RandomState(fl.SEED + 10)
    xm = (rng.randn(16 * fl.STEPS, 8) * 0.8).astype(np.float32)
    ym = (np.tanh(xm[:, :1]) + 0.3 * xm[:, 1:2] * xm[:, 2:3]).astype(np.float32)
    make_case("ops_mix", build_ops_mix, {"x": xm, "y": ym}, 16,
              "x, y ~ RandomState(2024+10): x = randn(320,8)*0.8, y = tanh(x0) + 0.3*x1*x2.  Stop-gradient "
              "vars are plain scale/tanh outputs with stop_gradient=True set on the Python var (desc "
              "stop_gradient); Tensor.detach() was NOT used because in static mode it emits share_data.")
    make_fine_tune(d)


if __name__ == "__main__":
    main()
