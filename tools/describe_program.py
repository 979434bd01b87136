#!/usr/bin/env python3
"""Print the op signatures of a serialised ProgramDesc (.pdmodel):
one line per distinct (op type, slots, attribute names/types), plus the vars
that are not plain LOD_TENSOR or have unusual shapes.  Needs only protobuf and
Paddle's framework_pb2 (shipped inside the paddlepaddle wheel).

  python3 tools/describe_program.py test/fixtures/mlp_adam/main.pdmodel [--values] [--op adam]
"""

import argparse
import sys

from google.protobuf import text_format  # noqa: F401  (ensures protobuf is importable)
from paddle.base.proto import framework_pb2

ATTR_VALUE = {"INT": "i", "FLOAT": "f", "STRING": "s", "INTS": "ints", "FLOATS": "floats",
              "STRINGS": "strings", "BOOLEAN": "b", "BOOLEANS": "bools", "BLOCK": "block_idx",
              "LONG": "l", "BLOCKS": "blocks_idx", "LONGS": "longs", "FLOAT64S": "float64s",
              "VAR": "var_name", "VARS": "vars_name", "FLOAT64": "float64", "SCALAR": "scalar",
              "SCALARS": "scalars"}


def attr_value(a):
    t = framework_pb2.AttrType.Name(a.type)
    if t == "STRINGS" and a.name == "op_callstack":
        return f"<{len(a.strings)} lines>"
    v = getattr(a, ATTR_VALUE[t])
    if hasattr(v, "__len__") and not isinstance(v, str):
        v = list(v)
    return repr(v) if not isinstance(v, str) else repr(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pdmodel")
    ap.add_argument("--values", action="store_true", help="print attribute values too")
    ap.add_argument("--op", action="append", help="only these op types")
    args = ap.parse_args()
    pd = framework_pb2.ProgramDesc.FromString(open(args.pdmodel, "rb").read())
    seen = set()
    for b in pd.blocks:
        for op in b.ops:
            if args.op and op.type not in args.op:
                continue
            ins = " ".join(f"{i.parameter}={list(i.arguments)}" for i in op.inputs)
            outs = " ".join(f"{o.parameter}={list(o.arguments)}" for o in op.outputs)
            attrs = ", ".join(
                f"{a.name}:{framework_pb2.AttrType.Name(a.type)}" + (f"={attr_value(a)}" if args.values else "")
                for a in sorted(op.attrs, key=lambda a: a.name))
            key = (op.type, ins, outs, attrs) if args.values else (
                op.type, tuple(i.parameter for i in op.inputs), tuple(o.parameter for o in op.outputs), attrs)
            if key in seen:
                continue
            seen.add(key)
            print(f"[block {b.idx}] {op.type}\n  in:  {ins}\n  out: {outs}\n  attrs: {attrs}")
    for b in pd.blocks:
        for v in b.vars:
            t = framework_pb2.VarType.Type.Name(v.type.type)
            if t != "LOD_TENSOR":
                print(f"[block {b.idx}] var {v.name}: {t} persistable={v.persistable}")
    print(f"version={pd.version.version} op_version_map entries={len(pd.op_version_map.pair)}")


if __name__ == "__main__":
    sys.exit(main())
