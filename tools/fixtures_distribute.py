#!/usr/bin/env python3
"""Fixtures test/fixtures/distribute/<case>: what Paddle 2.6.2's own distributed
transpilers write, for fluidc's `distribute` pass to match (CTest
distribute.structure.<case>, test/unit/transpilers/distribute_structure_test.cc).

For each case the script builds a small training program (forward, backward,
optimizer: Paddle's minimize), saves it as the pass's input (main.pdmodel,
startup.pdmodel), then runs
  - pserver cases: paddle.distributed.transpiler.DistributeTranspiler
    (get_pserver_programs for every endpoint, then get_trainer_program), or
  - collective cases: paddle.distributed.transpiler.collective.GradAllReduce,
and writes a canonical description of every program it produced to
expected/<program>.txt (format: describe() below; the C++ test writes the same
text for fluidc's output). The options given to both sides are in `args`.

Paddle 2.6.2 no longer runs these programs and needs small patches to write
them (as issue 14 notes); each is listed in patch_paddle() with its reason.
None changes what the transpiler decides: slicing, placement, op order and
attributes are Paddle's own.

  /tmp/pd/bin/python tools/fixtures_distribute.py            # write the fixtures
  /tmp/pd/bin/python tools/fixtures_distribute.py --check-fluidc build/bin/fluidc
      # also run `fluidc opt ... distribute` on each case, load every program
      # it writes with Paddle (Program.parse_from_string) and compare the
      # descriptions: fluidc's output is readable by Paddle and matches it.
"""

import argparse
import re
import subprocess
import tempfile
from pathlib import Path

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
from paddle.base import core, framework
from paddle.base.proto import framework_pb2

OUT = fl.FIXTURES / "distribute"
A = framework_pb2.AttrType


# --------------------------------------------------------------------------
# patches: what 2.6.2 needs to run its own (deprecated) transpiler
# --------------------------------------------------------------------------

# Op protos the transpiler needs: split_byref and recv are no longer
# registered in 2.6.2; the registered send proto lost the attributes the
# transpiler sets (epmap, sections). Without a proto attribute, Operator()
# silently drops the value, so the stubs list what the transpiler writes.
_COMMON = (("op_role", A.INT), ("op_role_var", A.STRINGS), ("op_namescope", A.STRING),
           ("op_callstack", A.STRINGS), ("op_device", A.STRING))
STUBS = {
    "split_byref": (["X"], ["Out"], [("sections", A.INTS), ("num", A.INT), ("axis", A.INT)]),
    "recv": (["X"], ["Out"], [("epmap", A.STRINGS), ("recv_varnames", A.STRINGS), ("trainer_id", A.INT)]),
    "send": (["X"], ["Out"], [("epmap", A.STRINGS), ("sections", A.INTS), ("merge_add", A.BOOLEAN),
                              ("use_send_handler", A.BOOLEAN)]),
}
UNREGISTERED = {"split_byref", "recv"}


def patch_paddle():
    orig_proto = framework.OpProtoHolder.get_op_proto

    def get_op_proto(self, type):
        if type not in STUBS:
            return orig_proto(self, type)
        ins, outs, attrs = STUBS[type]
        p = framework_pb2.OpProto()
        if type in UNREGISTERED:
            p.type, p.comment = type, "stub"
            attrs = list(_COMMON) + attrs
        else:
            p.CopyFrom(orig_proto(self, type))
        have = {v.name for v in p.inputs}, {v.name for v in p.outputs}, {a.name for a in p.attrs}
        for n in ins:
            if n not in have[0]:
                v = p.inputs.add(); v.name, v.comment, v.duplicable, v.dispensable = n, "", True, True
        for n in outs:
            if n not in have[1]:
                v = p.outputs.add(); v.name, v.comment, v.duplicable, v.dispensable = n, "", True, True
        for n, t in attrs:
            if n not in have[2]:
                a = p.attrs.add(); a.name, a.type, a.comment = n, t, ""
        return p

    framework.OpProtoHolder.get_op_proto = get_op_proto
    # The C++ side has no OpInfo for the unregistered ops: skip its attribute
    # check and shape inference for them (they have no kernel either).
    orig_check = core.OpDesc.check_attrs

    def check_attrs(self):
        if self.type() not in UNREGISTERED:
            orig_check(self)

    core.OpDesc.check_attrs = check_attrs
    framework.Operator.OP_WITHOUT_KERNEL_SET |= UNREGISTERED


def drop_empty_slots(program):
    """The transpiler reads op.input(key)[0] for every optimizer input slot;
    2.6.2 writes empty optional slots (MasterParam, SkipUpdate...)."""
    for block in program.blocks:
        for op in block.ops:
            for n in list(op.desc.input_names()):
                if not op.desc.input(n):
                    op.desc.remove_input(n)
            for n in list(op.desc.output_names()):
                if not op.desc.output(n):
                    op.desc.remove_output(n)


# --------------------------------------------------------------------------
# the canonical description (the C++ test writes the same text)
# --------------------------------------------------------------------------

KEY_ATTRS = {
    "send": ["epmap", "sections", "op_role"],
    "recv": ["epmap", "trainer_id", "op_role"],
    "send_barrier": ["endpoints", "trainer_id", "half_async", "op_role"],
    "fetch_barrier": ["endpoints", "trainer_id", "op_role"],
    "split_byref": ["sections", "op_role"],
    "concat": ["axis"],
    "listen_and_serv": ["endpoint", "pserver_id", "Fanin", "distributed_mode", "grad_to_block_id",
                        "optimize_blocks", "lr_decay_block_id"],
    "scale": ["scale"],
    "c_allreduce_sum": ["ring_id", "op_role"],
    "c_broadcast": ["ring_id", "root", "op_role"],
    "c_sync_calc_stream": ["op_role"],
    "c_sync_comm_stream": ["ring_id", "op_role"],
    "uniform_random": ["shape"],
    "gaussian_random": ["shape"],
    "truncated_gaussian_random": ["shape"],
    "fill_constant": ["shape"],
}
CONTROL = "__control_var@"


def attr_str(name, a):
    t = a.type
    if t in (A.INT,):
        return str(a.i)
    if t == A.LONG:
        return str(a.l)
    if t == A.FLOAT:
        return "%.6g" % a.f
    if t == A.FLOAT64:
        return "%.6g" % a.float64
    if t == A.BOOLEAN:
        return "true" if a.b else "false"
    if t == A.STRING:
        return a.s
    if t == A.INTS:
        return "[" + ",".join(str(v) for v in a.ints) + "]"
    if t == A.LONGS:
        return "[" + ",".join(str(v) for v in a.longs) + "]"
    if t == A.STRINGS:
        vals = sorted(a.strings) if name == "grad_to_block_id" else list(a.strings)
        return "[" + ",".join(vals) + "]"
    if t == A.BLOCK:
        return str(a.block_idx)
    if t == A.BLOCKS:
        return "[" + ",".join(str(v) for v in a.blocks_idx) + "]"
    return "?"


def describe(data):
    """Text of a serialised ProgramDesc: per block its ops (non-empty slots,
    key attributes) and its variables; `__control_var@<random>` names become
    @C0, @C1... in order of first use."""
    pd = framework_pb2.ProgramDesc.FromString(data)
    control = {}

    def name(n):
        if n.startswith(CONTROL):
            control.setdefault(n, "@C%d" % len(control))
            return control[n]
        return n

    lines = []
    for b in pd.blocks:
        lines.append("block %d parent %d" % (b.idx, b.parent_idx))
        for op in b.ops:
            def slots(vs):
                return ";".join("%s=[%s]" % (v.parameter, ",".join(name(a) for a in v.arguments))
                                for v in sorted(vs, key=lambda v: v.parameter) if len(v.arguments) > 0)
            ins, outs = slots(op.inputs), slots(op.outputs)
            attrs = {a.name: a for a in op.attrs}
            keys = [k for k in KEY_ATTRS.get(op.type, []) if k in attrs]
            lines.append("  op %s in{%s} out{%s} attrs{%s}" % (
                op.type, ins, outs, ";".join("%s=%s" % (k, attr_str(k, attrs[k])) for k in keys)))
        for v in sorted(b.vars, key=lambda v: v.name):
            if v.name.startswith(CONTROL):
                continue
            t = v.type
            if t.type == framework_pb2.VarType.LOD_TENSOR:
                td = t.lod_tensor.tensor
                desc = "dtype=%d dims=[%s]" % (td.data_type, ",".join(str(d) for d in td.dims))
            else:
                desc = "type=%d" % t.type
            lines.append("  var %s %s persistable=%d" % (v.name, desc, 1 if v.persistable else 0))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# cases
# --------------------------------------------------------------------------

def mlp(in_dim, hidden, optimizer):
    x = paddle.static.data("x", [-1, in_dim], "float32")
    y = paddle.static.data("y", [-1, 1], "float32")
    h = paddle.static.nn.fc(x, hidden, activation="relu")
    p = paddle.static.nn.fc(h, 1)
    loss = paddle.mean(paddle.nn.functional.square_error_cost(p, y))
    optimizer.minimize(loss)


def linear(optimizer):
    x = paddle.static.data("x", [-1, 13], "float32")
    y = paddle.static.data("y", [-1, 1], "float32")
    p = paddle.static.nn.fc(x, 1)
    loss = paddle.mean(paddle.nn.functional.square_error_cost(p, y))
    optimizer.minimize(loss)


def conv(optimizer):
    x = paddle.static.data("x", [-1, 64, 8, 8], "float32")
    h = paddle.static.nn.conv2d(x, 64, 3, padding=1, act="relu")
    loss = paddle.mean(h)
    optimizer.minimize(loss)


TWO = "127.0.0.1:6170,127.0.0.1:6171"
THREE = "127.0.0.1:6170,127.0.0.1:6171,127.0.0.1:6172"
CASES = {
    # fc_0.w_0 is 200x100 = 20000 elements: two row blocks of 100 (min block 8192).
    "fc_sgd": dict(build=lambda: mlp(200, 100, paddle.optimizer.SGD(0.01)),
                   mode="pserver", pservers=TWO, trainers=2, trainer_id=0, sync=True),
    # Adam: its moments are sliced with the parameter; beta powers stay [1].
    "fc_adam": dict(build=lambda: mlp(200, 100, paddle.optimizer.Adam(0.01)),
                    mode="pserver", pservers=TWO, trainers=2, trainer_id=1, sync=True),
    # Nothing reaches the minimum block size: whole variables, round robin.
    "noslice": dict(build=lambda: linear(paddle.optimizer.SGD(0.05)),
                    mode="pserver", pservers=TWO, trainers=2, trainer_id=0, sync=True),
    # 250x100 over three servers: blocks of 84, 84, 82 rows.
    "three_servers": dict(build=lambda: mlp(250, 100, paddle.optimizer.SGD(0.01)),
                          mode="pserver", pservers=THREE, trainers=3, trainer_id=2, sync=True),
    # A larger minimum block size (Paddle refuses one under 8192) keeps the 20000 elements whole.
    "min_block": dict(build=lambda: mlp(200, 100, paddle.optimizer.SGD(0.01)),
                      mode="pserver", pservers=TWO, trainers=2, trainer_id=0, sync=True, min_block_size=16384),
    # Asynchronous: no barriers, no per-trainer gradients on the servers.
    "async": dict(build=lambda: mlp(200, 100, paddle.optimizer.SGD(0.01)),
                  mode="pserver", pservers=TWO, trainers=2, trainer_id=0, sync=False),
    # One trainer: gradients keep their names.
    "one_trainer": dict(build=lambda: mlp(200, 100, paddle.optimizer.SGD(0.01)),
                        mode="pserver", pservers=TWO, trainers=1, trainer_id=0, sync=True),
    # Weight decay: its scale + sum move to the parameter's server, before the update.
    "fc_l2": dict(build=lambda: mlp(200, 100, paddle.optimizer.SGD(0.01, weight_decay=paddle.regularizer.L2Decay(0.01))),
                  mode="pserver", pservers=TWO, trainers=2, trainer_id=1, sync=True),
    # Momentum: the velocity is sliced with its parameter.
    "fc_momentum": dict(build=lambda: mlp(200, 100, paddle.optimizer.Momentum(0.01, momentum=0.9)),
                        mode="pserver", pservers=TWO, trainers=2, trainer_id=0, sync=True),
    # A 64x64x3x3 convolution filter: two blocks of 32 whole rows (64*3*3 elements each).
    "conv": dict(build=lambda: conv(paddle.optimizer.SGD(0.01)),
                 mode="pserver", pservers=TWO, trainers=2, trainer_id=0, sync=True),
    # Collective (GradAllReduce, two rings as Paddle's default).
    "collective": dict(build=lambda: mlp(32, 16, paddle.optimizer.SGD(0.01)), mode="collective", nranks=2),
    "collective_adam": dict(build=lambda: mlp(32, 16, paddle.optimizer.Adam(0.01)), mode="collective", nranks=4),
}


# Programs other fixtures already hold (test/fixtures/<source>/{main,startup}.pdmodel), loaded
# from their files as Paddle would load them: the case directory names its source instead of
# copying it. A collective startup loaded from a file lists its parameters in the file's
# (sorted) variable order, where fluidc follows the order of their initialisers, as Paddle
# does for a program built in Python (case `collective`): that startup is not compared.
REAL_CASES = {
    "resnet18": dict(source="resnet18_train", mode="pserver", pservers=THREE, trainers=3, trainer_id=1, sync=True),
    "bert_tiny": dict(source="bert_tiny", mode="pserver", pservers=TWO, trainers=4, trainer_id=3, sync=True),
    "lstm_collective": dict(source="lstm_classifier", mode="collective", nranks=2,
                            not_compared={"trainer.startup": "broadcast order: the file's variable order"}),
}


def fluidc_args(c):
    """The `fluidc opt` flags for case c (one per line in `args`)."""
    if c["mode"] == "collective":
        return ["--collective", "--nranks", str(c["nranks"])]
    a = ["--pservers", c["pservers"], "--trainers", str(c["trainers"]), "--trainer-id", str(c["trainer_id"]),
         "--sync" if c["sync"] else "--async"]
    if "min_block_size" in c:
        a += ["--min-block-size", str(c["min_block_size"])]
    return a


def transpile(c, main, startup):
    """Paddle's transpiler on (main, startup): {program name: serialised bytes}."""
    out = {}
    if c["mode"] == "collective":
        from paddle.distributed.transpiler.collective import GradAllReduce
        eps = ["127.0.0.1:%d" % (6170 + i) for i in range(c["nranks"])]
        GradAllReduce(2).transpile(startup_program=startup, main_program=main, rank=0, endpoints=eps,
                                   current_endpoint=eps[0], wait_port=False)
        out["trainer"] = main.desc.serialize_to_string()
        out["trainer.startup"] = startup.desc.serialize_to_string()
        return out
    from paddle.distributed.transpiler import DistributeTranspiler, DistributeTranspilerConfig
    cfg = DistributeTranspilerConfig()
    if "min_block_size" in c:
        cfg.min_block_size = c["min_block_size"]
    t = DistributeTranspiler(cfg)
    if not c["sync"]:
        # transpile(sync_mode=False) leaves distributed_mode at SYNC (read from
        # the config in __init__): its servers would wait for barriers that async
        # trainers never send. Paddle's config-driven async path sets ASYNC (1),
        # as fluidc writes; set it the same here.
        from paddle.distributed.transpiler.distribute_transpiler import DistributedMode
        t.distributed_mode = DistributedMode.ASYNC
    t.transpile(c["trainer_id"], program=main, pservers=c["pservers"], trainers=c["trainers"],
                sync_mode=c["sync"], startup_program=startup)
    # Servers first: get_trainer_program deletes the optimizer's initialisers
    # from the startup program that the server startups are cut from.
    # get_startup_program also writes each server's slice shape into the
    # `shape` attribute of the trainer's own initialisers (it edits the shared
    # startup's ops in place): a side effect on the trainer startup, undone here.
    shapes = [(op, op.attr("shape")) for op in startup.global_block().ops if op.has_attr("shape")]
    for i, ep in enumerate(c["pservers"].split(",")):
        pmain, pstartup = t.get_pserver_programs(ep)
        out["pserver%d" % i] = pmain.desc.serialize_to_string()
        out["pserver%d.startup" % i] = pstartup.desc.serialize_to_string()
    for op, shape in shapes:
        op._set_attr("shape", shape)
    trainer = t.get_trainer_program(wait_port=False)
    out["trainer"] = trainer.desc.serialize_to_string()
    out["trainer.startup"] = startup.desc.serialize_to_string()
    return out


def make_case(name, c):
    with fl.new_programs() as (main, startup):
        c["build"]()
    fl.sanitize_program(main)
    fl.sanitize_program(startup)
    d = OUT / name
    fl.fresh_dir(d)
    (d / "main.pdmodel").write_bytes(fl.serialize(main))
    (d / "startup.pdmodel").write_bytes(fl.serialize(startup))
    (d / "args").write_text("\n".join(fluidc_args(c)) + "\n")
    drop_empty_slots(main)
    drop_empty_slots(startup)
    progs = transpile(c, main, startup)
    (d / "expected").mkdir()
    for prog, data in progs.items():
        (d / "expected" / (prog + ".txt")).write_text(describe(data))
    print("%-16s %s" % (name, ", ".join(sorted(progs))))


def make_real_case(name, c):
    src = fl.FIXTURES / c["source"]
    main = paddle.static.Program.parse_from_string((src / "main.pdmodel").read_bytes())
    startup = paddle.static.Program.parse_from_string((src / "startup.pdmodel").read_bytes())
    d = OUT / name
    fl.fresh_dir(d)
    (d / "source").write_text(c["source"] + "\n")
    (d / "args").write_text("\n".join(fluidc_args(c)) + "\n")
    drop_empty_slots(main)
    drop_empty_slots(startup)
    progs = transpile(c, main, startup)
    (d / "expected").mkdir()
    skipped = c.get("not_compared", {})
    for prog, data in progs.items():
        if prog not in skipped:
            (d / "expected" / (prog + ".txt")).write_text(describe(data))
    if skipped:
        (d / "not_compared").write_text("".join("%s: %s\n" % kv for kv in skipped.items()))
    print("%-16s %s (from %s)" % (name, ", ".join(sorted(progs)), c["source"]))


def check_fluidc(fluidc):
    """Runs fluidc on every case; Paddle parses each program it writes, and
    the description matches Paddle's."""
    bad = 0
    for name in list(CASES) + list(REAL_CASES):
        d = OUT / name
        src = fl.FIXTURES / (d / "source").read_text().strip() if (d / "source").exists() else d
        args = (d / "args").read_text().split()
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "trainer.pdmodel"
            cmd = [fluidc, "opt", str(src / "main.pdmodel"), "--startup", str(src / "startup.pdmodel"),
                   "--passes=distribute", "-o", str(out), "--startup-out", str(Path(tmp) / "trainer.startup.pdmodel")]
            subprocess.run(cmd + args, check=True)
            for exp in sorted((d / "expected").iterdir()):
                prog = exp.name[:-len(".txt")]
                # trainer -> OUT, trainer.startup -> --startup-out, pserverI[.startup] -> OUT.pserverI[.startup]
                path = Path(tmp) / ((prog if prog.startswith("trainer") else "trainer." + prog) + ".pdmodel")
                data = path.read_bytes()
                paddle.static.Program.parse_from_string(data)  # Paddle reads it
                same = describe(data) == exp.read_text()
                bad += not same
                print("%-16s %-18s parsed by Paddle, %s" % (name, prog, "matches" if same else "DIFFERS"))
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check-fluidc", metavar="FLUIDC")
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args()
    patch_paddle()
    if args.check_fluidc:
        raise SystemExit(1 if check_fluidc(args.check_fluidc) else 0)
    for name, c in CASES.items():
        if not args.cases or name in args.cases:
            make_case(name, c)
    for name, c in REAL_CASES.items():
        if not args.cases or name in args.cases:
            make_real_case(name, c)


if __name__ == "__main__":
    main()
