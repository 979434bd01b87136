#!/usr/bin/env python3
"""tools/gen_scaling_programs.py - writes large synthetic programs (protobuf text) for compiler-scaling checks.

  gen_scaling_programs.py deep N OUT.pbtxt   N conditional_blocks nested N deep; the innermost reads block 0's x
  gen_scaling_programs.py chain N OUT.pbtxt  an N-op elementwise chain (relu/scale/tanh/sigmoid in turn) on x

Both are inference programs with one feed x [-1, 8] and one fetch, so `fluidc build` compiles them too.
"""
import sys

TENSOR = 'type {{ type: LOD_TENSOR lod_tensor {{ tensor {{ data_type: {} dims: {} }} }} }}'


def var(name, dtype="FP32", dims="-1 dims: 8", persistable=False):
    return 'vars {{ name: "{}" {}{} }}'.format(name, TENSOR.format(dtype, dims), " persistable: true" if persistable else "")


def feed_fetch(x, out):
    return [
        'vars { name: "feed" type { type: FEED_MINIBATCH } persistable: true }',
        'vars { name: "fetch" type { type: FETCH_LIST } persistable: true }',
        'ops { type: "feed" inputs { parameter: "X" arguments: "feed" } outputs { parameter: "Out" arguments: "%s" }'
        ' attrs { name: "col" type: INT i: 0 } }' % x,
    ], ('ops { type: "fetch" inputs { parameter: "X" arguments: "%s" } outputs { parameter: "Out" arguments: "fetch" }'
        ' attrs { name: "col" type: INT i: 0 } }' % out)


def op(kind, x, out, attrs=""):
    return 'ops {{ type: "{}" inputs {{ parameter: "X" arguments: "{}" }} outputs {{ parameter: "Out" arguments: "{}" }}{} }}'.format(
        kind, x, out, attrs)


def chain(n):
    head, fetch = feed_fetch("x", "t%d" % n)
    lines = head + [var("x")] + [var("t%d" % i) for i in range(1, n + 1)]
    kinds = ["relu", "scale", "tanh", "sigmoid"]
    for i in range(1, n + 1):
        k = kinds[i % len(kinds)]
        attrs = (' attrs { name: "scale" type: FLOAT f: 0.5 } attrs { name: "bias" type: FLOAT f: 0.25 }'
                 if k == "scale" else "")
        lines.append(op(k, "x" if i == 1 else "t%d" % (i - 1), "t%d" % i, attrs))
    lines.append(fetch)
    return "blocks {\n  idx: 0 parent_idx: -1\n  " + "\n  ".join(lines) + "\n}\n"


def deep(n):
    head, fetch = feed_fetch("x", "y")
    b0 = head + [var("x"), var("y"), var("c", "BOOL", "1"),
                 'ops { type: "fill_constant" outputs { parameter: "Out" arguments: "c" }'
                 ' attrs { name: "shape" type: LONGS longs: 1 } attrs { name: "dtype" type: INT i: 0 }'
                 ' attrs { name: "value" type: FLOAT f: 1.0 } }',
                 op("relu", "x", "y")]
    blocks = []

    def cond_block(parent, child):
        return ('ops { type: "conditional_block" inputs { parameter: "Cond" arguments: "c" }'
                ' inputs { parameter: "Input" arguments: "x" } outputs { parameter: "Out" arguments: "y" }'
                ' outputs { parameter: "Scope" arguments: "scope%d" }'
                ' attrs { name: "sub_block" type: BLOCK block_idx: %d }'
                ' attrs { name: "is_scalar_condition" type: BOOLEAN b: true } }' % (parent, child))

    b0 += ['vars { name: "scope0" type { type: STEP_SCOPES } }', cond_block(0, 1), fetch]
    blocks.append("blocks {\n  idx: 0 parent_idx: -1\n  " + "\n  ".join(b0) + "\n}")
    for b in range(1, n + 1):
        body = [var("v%d" % b)]
        if b < n:
            body += ['vars { name: "scope%d" type { type: STEP_SCOPES } }' % b, cond_block(b, b + 1)]
        else:
            body += [op("scale", "x", "y", ' attrs { name: "scale" type: FLOAT f: 2.0 }')]
        blocks.append("blocks {\n  idx: %d parent_idx: %d\n  " % (b, b - 1) + "\n  ".join(body) + "\n}")
    return "\n".join(blocks) + "\n"


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("deep", "chain"):
        sys.exit(__doc__)
    n = int(sys.argv[2])
    text = deep(n) if sys.argv[1] == "deep" else chain(n)
    with open(sys.argv[3], "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
