"""Shared helpers for the Paddle reference-fixture scripts in tools/.

Every fixture script imports this module *first*: it pins the thread counts
before Paddle is imported, so that CPU results are reproducible run to run.

The helpers here cover the whole life of a training fixture:
  build (main + startup, fresh unique-name scope) -> sanitise op_callstack ->
  serialise -> run startup with a fixed seed -> save init.pdiparams ->
  train N steps on consecutive slices -> save final.pdiparams -> meta.json.
"""

import os

# Must happen before paddle / numpy spin up their thread pools.
for _k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_k, "1")
os.environ.setdefault("FLAGS_cpu_deterministic", "1")
os.environ.setdefault("GLOG_minloglevel", "2")

import contextlib
import json
import struct
import sys
import warnings
from pathlib import Path

import numpy as np
import paddle
from paddle.base import core
from paddle.base.proto import framework_pb2
from google.protobuf import text_format

warnings.filterwarnings("ignore")

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "test" / "fixtures"
EXAMPLES = REPO / "examples"
DUMP_DIR = Path(os.environ.get("FIXTURE_DUMP_DIR", "/tmp/fixture_dumps"))
SITE_PACKAGES = str(Path(paddle.__file__).resolve().parents[1])

SEED = 2024
STEPS = 20

paddle.enable_static()
paddle.set_device("cpu")
np.random.seed(SEED)


# --------------------------------------------------------------------------
# datasets (already converted to .npy by tools/prepare_datasets.py)
# --------------------------------------------------------------------------

def load_housing():
    d = EXAMPLES / "fit_a_line" / "data"
    return {k: np.load(d / f"{k}.npy") for k in ("train_x", "train_y", "test_x", "test_y")}


def load_digits():
    d = EXAMPLES / "mlp_classifier" / "data"
    return {k: np.load(d / f"{k}.npy") for k in ("train_x", "train_label", "test_x", "test_label")}


# --------------------------------------------------------------------------
# programs
# --------------------------------------------------------------------------

@contextlib.contextmanager
def new_programs():
    """Fresh (main, startup) with a fresh unique-name generator, so variable
    names (fc_0.w_0, linear_1.b_0, ...) do not depend on what ran before."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        yield main, startup


def _rewrite_frame(s):
    # '  File "/abs/path/x.py", line N, in f' -> repo-relative / <site-packages>/
    root = str(REPO) + os.sep
    s = s.replace(root, "")
    s = s.replace(SITE_PACKAGES + os.sep, "<site-packages>/")
    return s


def sanitize_desc(desc):
    """Rewrite absolute paths inside every op's `op_callstack` attribute, in
    place, so that the serialised bytes do not depend on where the checkout or
    the Python installation lives.  Nothing else is touched; the attribute keeps
    its type (STRINGS) and its number of entries."""
    for b in range(desc.num_blocks()):
        blk = desc.block(b)
        for i in range(blk.op_size()):
            op = blk.op(i)
            if op.has_attr("op_callstack"):
                cs = op.attr("op_callstack")
                op._set_strs_attr("op_callstack", [_rewrite_frame(s) for s in cs])
    desc.flush()


def sanitize_program(program):
    sanitize_desc(program.desc)


def sanitize_model_file(path):
    """Same rewrite for a .pdmodel written by paddle.static.save_inference_model."""
    path = Path(path)
    desc = core.ProgramDesc(path.read_bytes())
    sanitize_desc(desc)
    path.write_bytes(desc.serialize_to_string())


def append_op(op_type, inputs, outputs, attrs):
    """Appends `op_type` to the current block with a fresh variable per output slot ({slot: dtype}), for ops
    paddle.static has no layer for; returns the variables by slot."""
    from paddle.base.layer_helper import LayerHelper
    helper = LayerHelper(op_type)
    outs = {slot: helper.create_variable_for_type_inference(dtype) for slot, dtype in outputs.items()}
    helper.append_op(type=op_type, inputs=inputs, outputs=outs, attrs=attrs)
    return outs


def serialize(program):
    return program.desc.serialize_to_string()


def dump_text(name, data):
    """Protobuf text form of a serialised ProgramDesc into DUMP_DIR (not the repo)."""
    DUMP_DIR.mkdir(parents=True, exist_ok=True)
    pd = framework_pb2.ProgramDesc.FromString(data)
    (DUMP_DIR / f"{name}.pbtxt").write_text(text_format.MessageToString(pd))


def op_types(program_or_bytes, unique=True):
    if isinstance(program_or_bytes, (bytes, bytearray)):
        pd = framework_pb2.ProgramDesc.FromString(program_or_bytes)
        ops = [op.type for b in pd.blocks for op in b.ops]
    else:
        ops = [op.type for b in program_or_bytes.blocks for op in b.ops]
    return sorted(set(ops)) if unique else ops


def program_facts(data):
    """Version facts of a serialised ProgramDesc for meta.json."""
    pd = framework_pb2.ProgramDesc.FromString(data)
    used = {op.type for b in pd.blocks for op in b.ops}
    full = {p.op_name: p.op_version.version for p in pd.op_version_map.pair}
    return {
        "version": pd.version.version,
        "num_blocks": len(pd.blocks),
        # Paddle writes its whole registry of op versions (every op type whose
        # version > 0), not only the ops in this program; keep the relevant part.
        "op_version_map_entries": len(full),
        "op_version_map_for_ops_used": {k: v for k, v in sorted(full.items()) if k in used},
    }


# --------------------------------------------------------------------------
# persistables and Paddle's combined tensor file
# --------------------------------------------------------------------------

_SKIP_TYPES = {
    core.VarDesc.VarType.FEED_MINIBATCH,
    core.VarDesc.VarType.FETCH_LIST,
    core.VarDesc.VarType.RAW,
    core.VarDesc.VarType.READER,
}


def persistable_vars(program):
    vs = [v for v in program.list_vars() if v.persistable and v.type not in _SKIP_TYPES]
    return sorted(vs, key=lambda v: v.name)


_PB_DTYPE = {
    framework_pb2.VarType.BOOL: np.bool_,
    framework_pb2.VarType.INT8: np.int8,
    framework_pb2.VarType.UINT8: np.uint8,
    framework_pb2.VarType.INT16: np.int16,
    framework_pb2.VarType.INT32: np.int32,
    framework_pb2.VarType.INT64: np.int64,
    framework_pb2.VarType.FP16: np.float16,
    framework_pb2.VarType.FP32: np.float32,
    framework_pb2.VarType.FP64: np.float64,
}


def read_combined(path):
    """Parse a combined .pdiparams file: a list of (dtype_name, dims, ndarray).

    Record layout (Paddle's SerializeToStream for a LoDTensor):
      uint32 version(0); uint64 lod_level; per level: uint64 nbytes + data;
      uint32 version(0); int32 desc_size; TensorDesc proto; raw data."""
    buf = Path(path).read_bytes()
    off, out = 0, []
    while off < len(buf):
        (ver,) = struct.unpack_from("<I", buf, off); off += 4
        assert ver == 0, ver
        (lod_level,) = struct.unpack_from("<Q", buf, off); off += 8
        for _ in range(lod_level):
            (n,) = struct.unpack_from("<Q", buf, off); off += 8 + n
        (ver,) = struct.unpack_from("<I", buf, off); off += 4
        assert ver == 0, ver
        (dsz,) = struct.unpack_from("<i", buf, off); off += 4
        td = framework_pb2.VarType.TensorDesc.FromString(buf[off:off + dsz]); off += dsz
        dt = np.dtype(_PB_DTYPE[td.data_type])
        dims = list(td.dims)
        n = int(np.prod(dims)) if dims else 1
        arr = np.frombuffer(buf, dtype=dt, count=n, offset=off).reshape(dims)
        off += n * dt.itemsize
        out.append((dt.name, dims, arr))
    return out


def save_persistables(exe, program, path, scope):
    """Write all persistables of `program` (sorted by name) as one combined file
    with paddle.static.io.save_vars (-> one save_combine op), then read the file
    back and check that record k is exactly the tensor of names[k] in `scope`.
    Returns [(name, dtype, dims)] in file order."""
    path = Path(path)
    vs = persistable_vars(program)
    paddle.static.io.save_vars(exe, str(path.parent), program, vars=vs, filename=path.name)
    recs = read_combined(path)
    names = [v.name for v in vs]
    assert len(recs) == len(names), (len(recs), names)
    info = []
    for name, (dt, dims, arr) in zip(names, recs):
        ref = np.array(scope.find_var(name).get_tensor())
        assert ref.dtype == arr.dtype and list(ref.shape) == dims, (name, ref.dtype, ref.shape, dt, dims)
        assert ref.tobytes() == arr.tobytes(), name
        info.append((name, dt, dims))
    return info


# --------------------------------------------------------------------------
# misc writers
# --------------------------------------------------------------------------

def save_npy(path, arr):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # ascontiguousarray alone turns a 0-D array into shape (1,): keep the shape.
    arr = np.asarray(arr)
    np.save(path, np.ascontiguousarray(arr).reshape(arr.shape))


def write_json(path, obj):
    Path(path).write_text(json.dumps(obj, indent=1, sort_keys=True) + "\n")


def rel(path):
    return str(Path(path).resolve().relative_to(REPO))


def versions():
    return {"paddle_version": paddle.__version__, "numpy_version": np.__version__,
            "python_version": "%d.%d" % sys.version_info[:2]}


def var_dtype_name(var):
    return {
        core.VarDesc.VarType.FP32: "float32",
        core.VarDesc.VarType.FP64: "float64",
        core.VarDesc.VarType.INT64: "int64",
        core.VarDesc.VarType.INT32: "int32",
        core.VarDesc.VarType.BOOL: "bool",
    }[var.dtype]


def feed_info(var):
    return {"dtype": var_dtype_name(var), "shape": [int(d) for d in var.shape]}


def fresh_dir(path):
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    for p in sorted(path.rglob("*"), reverse=True):
        if p.is_file():
            p.unlink()
        else:
            p.rmdir()
    return path


# --------------------------------------------------------------------------
# the training-fixture recipe
# --------------------------------------------------------------------------

def make_training_fixture(name, script, build, data, batch_size, optimizer,
                          steps=STEPS, notes=None, extra_meta=None):
    """Build, serialise, initialise, train and record one training fixture.

    build() runs inside new_programs() and returns a dict with
      feeds: [Variable]  (in feed order), loss: Variable,
      and optionally test_program / infer_fetch (forward-only clone made
      before minimize, for inference fixtures).
    data: {feed_name: ndarray with >= batch_size*steps rows}.
    Returns a dict with main, startup, scope, exe and the build result so the
    caller can export an inference model from the trained state."""
    out = fresh_dir(FIXTURES / name)
    with new_programs() as (main, startup):
        built = build()
    feeds, loss = built["feeds"], built["loss"]
    sanitize_program(main)
    sanitize_program(startup)
    main_bytes, startup_bytes = serialize(main), serialize(startup)
    (out / "main.pdmodel").write_bytes(main_bytes)
    (out / "startup.pdmodel").write_bytes(startup_bytes)
    dump_text(f"{name}.main", main_bytes)
    dump_text(f"{name}.startup", startup_bytes)

    rows = batch_size * steps
    feed_arrays = {}
    for v in feeds:
        arr = np.ascontiguousarray(data[v.name][:rows])
        assert arr.shape[0] == rows, (v.name, arr.shape)
        assert arr.dtype == np.dtype(var_dtype_name(v)), (v.name, arr.dtype)
        save_npy(out / "data" / f"{v.name}.npy", arr)
        feed_arrays[v.name] = arr

    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    losses = []
    with paddle.static.scope_guard(scope):
        paddle.seed(SEED)
        exe.run(startup)
        init_info = save_persistables(exe, main, out / "init.pdiparams", scope)
        for i in range(steps):
            feed = {k: a[i * batch_size:(i + 1) * batch_size] for k, a in feed_arrays.items()}
            (l,) = exe.run(main, feed=feed, fetch_list=[loss])
            losses.append(np.float32(l))
        final_info = save_persistables(exe, main, out / "final.pdiparams", scope)
    assert [n for n, _, _ in init_info] == [n for n, _, _ in final_info]
    # Running must not have changed the program we serialised.
    assert serialize(main) == main_bytes, "executor mutated main program"
    losses = np.array(losses, dtype=np.float32)
    save_npy(out / "losses.npy", losses)

    meta = {
        "kind": "training",
        "name": name,
        "script": rel(script),
        **versions(),
        "seed": SEED,
        "batch_size": batch_size,
        "steps": steps,
        "feeding": "step i feeds rows [i*batch_size, (i+1)*batch_size) of each data/<feed>.npy, no shuffle",
        "feeds": {v.name: feed_info(v) for v in feeds},
        "feed_order": [v.name for v in feeds],
        "data_files": {v.name: f"data/{v.name}.npy" for v in feeds},
        "loss": loss.name,
        "loss_shape": [int(d) for d in loss.shape],
        "losses": [float(x) for x in losses],
        "optimizer": optimizer,
        "learning_rate": optimizer["learning_rate"],
        "persistables": [n for n, _, _ in init_info],
        "persistable_info": {n: {"dtype": dt, "shape": dims} for n, dt, dims in init_info},
        "params_file_format": "Paddle combined tensor records (save_combine via paddle.static.io.save_vars), "
                              "one record per name in `persistables` order (sorted by name), no names stored",
        "ops_main": op_types(main_bytes),
        "ops_startup": op_types(startup_bytes),
        "ops_main_sequence": op_types(main_bytes, unique=False),
        "ops_startup_sequence": op_types(startup_bytes, unique=False),
        "program_main": program_facts(main_bytes),
        "program_startup": program_facts(startup_bytes),
        "op_callstack": "absolute paths rewritten: repo root stripped, site-packages -> '<site-packages>/'",
        "files": ["main.pdmodel", "startup.pdmodel", "init.pdiparams", "final.pdiparams", "losses.npy"]
                 + [f"data/{v.name}.npy" for v in feeds],
    }
    if notes:
        meta["notes"] = notes
    if extra_meta:
        meta.update(extra_meta)
    write_json(out / "meta.json", meta)
    print(f"{name}: ops_main={len(meta['ops_main_sequence'])} losses {losses[0]:.5f} -> {losses[-1]:.5f}")
    return {"main": main, "startup": startup, "scope": scope, "exe": exe, "built": built,
            "meta": meta, "dir": out}


def make_inference_fixture(name, script, trained, inputs, source_fixture, notes=None):
    """Export the forward clone of a trained fixture as an inference model and
    record Paddle's outputs for the given inputs.

    trained: the dict returned by make_training_fixture; its build result must
      hold test_program (forward clone made before minimize) and infer_fetch
      (a Variable of test_program).
    inputs: {tag: {feed_name: ndarray}} e.g. {"b1": {"x": ...}, "b64": {...}}."""
    out = fresh_dir(FIXTURES / name)
    built = trained["built"]
    prog = built["test_program"]
    feeds = [prog.global_block().var(v.name) for v in built["feeds_infer"]]
    fetch = built["infer_fetch"]
    with paddle.static.scope_guard(trained["scope"]):
        paddle.static.save_inference_model(str(out / "model"), feeds, [fetch], trained["exe"], program=prog)
    sanitize_model_file(out / "model.pdmodel")
    model_bytes = (out / "model.pdmodel").read_bytes()
    dump_text(f"{name}.model", model_bytes)

    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    records = {}
    with paddle.static.scope_guard(scope):
        iprog, feed_names, fetch_targets = paddle.static.load_inference_model(str(out / "model"), exe)
        fetch_names = [t.name for t in fetch_targets]
        params = read_combined(out / "model.pdiparams")
        for tag, feed in inputs.items():
            for k, a in feed.items():
                save_npy(out / f"{k}_{tag}.npy", a)
            (res,) = exe.run(iprog, feed=feed, fetch_list=fetch_targets)
            save_npy(out / f"expected_{tag}.npy", res)
            records[tag] = {"inputs": {k: f"{k}_{tag}.npy" for k in feed},
                            "expected": f"expected_{tag}.npy",
                            "expected_shape": list(res.shape), "expected_dtype": str(res.dtype)}
    # persistables of the inference program, in file order (sorted by name)
    pnames = [v.name for v in persistable_vars(iprog)]
    assert len(pnames) == len(params), (pnames, len(params))
    meta = {
        "kind": "inference",
        "name": name,
        "script": rel(script),
        **versions(),
        "source_fixture": source_fixture,
        "model": {"program": "model.pdmodel", "params": "model.pdiparams"},
        "feed_names": feed_names,
        "fetch_names": fetch_names,
        "feeds": {v.name: feed_info(v) for v in feeds},
        "cases": records,
        "persistables": pnames,
        "persistable_info": {n: {"dtype": dt, "shape": dims} for n, (dt, dims, _) in zip(pnames, params)},
        "ops": op_types(model_bytes),
        "ops_sequence": op_types(model_bytes, unique=False),
        "program": program_facts(model_bytes),
        "op_callstack": "absolute paths rewritten: repo root stripped, site-packages -> '<site-packages>/'",
    }
    if notes:
        meta["notes"] = notes
    write_json(out / "meta.json", meta)
    print(f"{name}: ops={meta['ops_sequence']} fetch={fetch_names}")
    return meta
