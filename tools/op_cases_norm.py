#!/usr/bin/env python3
"""Per-op Paddle references for the norm family (see tools/op_caselib.py):
batch_norm (training: batch statistics and the running mean/variance it
updates in place; test mode; NHWC), layer_norm, instance_norm, group_norm
(NCHW, NHWC) and dropout where it is deterministic (test mode under both
implementations; p = 0 in training, whose Mask is all ones).

  python3 tools/op_cases_norm.py   # rewrites test/fixtures/op_cases/norm/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.nn.functional as F
from paddle.base.layer_helper import LayerHelper

FAMILY = "norm"


def raw_op(op, inputs, outs, attrs, dtype="float32"):
    """One op with the given inputs; outs: {slot: dtype}. Returns the output
    variables by slot (for ops or attributes the functional API lacks)."""
    helper = LayerHelper(op)
    created = {s: helper.create_variable_for_type_inference(d) for s, d in outs.items()}
    helper.append_op(type=op, inputs=inputs, outputs={s: v for s, v in created.items()}, attrs=attrs)
    return created


def batch_norm_case(name, shape, layout, training, use_global_stats=None, notes=""):
    c = shape[1] if layout == "NCHW" else shape[-1]
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, low=-2, high=3)
        rm = p.input("running_mean", [c], grad=False)
        rv = p.input("running_var", [c], low=0.5, high=1.5, grad=False)
        w = p.input("scale", [c], low=0.5, high=1.5)
        b = p.input("bias", [c])
        y = F.batch_norm(x, rm, rv, w, b, training=training, momentum=0.8, epsilon=1e-4, data_format=layout,
                         use_global_stats=use_global_stats)
        bn = [op for op in p.main.global_block().ops if op.type == "batch_norm"][0]
        block = p.main.global_block()
        extra = [rm, rv]
        if training and not use_global_stats:
            extra += [block.var(bn.output("SavedMean")[0]), block.var(bn.output("SavedVariance")[0])]
        p.case(name, [y], extra=extra, notes=notes)


def main():
    oc.start(__file__, FAMILY)
    batch_norm_case("batch_norm_train_nchw", [4, 3, 3, 2], "NCHW", True,
                    notes="running_mean/running_var are fed and updated in place (MeanOut/VarianceOut)")
    batch_norm_case("batch_norm_train_nhwc", [3, 2, 3, 4], "NHWC", True)
    batch_norm_case("batch_norm_test_nchw", [2, 3, 2, 2], "NCHW", False)
    batch_norm_case("batch_norm_global_stats_train", [2, 3, 2, 2], "NCHW", True, use_global_stats=True)
    batch_norm_case("batch_norm_train_2d", [6, 4], "NCHW", True)

    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 4, 5], low=-2, high=2)
        w = p.input("scale", [20], low=0.5, high=1.5)
        b = p.input("bias", [20])
        y = F.layer_norm(x, [4, 5], w, b, epsilon=1e-5)
        ln = [op for op in p.main.global_block().ops if op.type == "layer_norm"][0]
        blk = p.main.global_block()
        p.case("layer_norm_axis1", [y], extra=[blk.var(ln.output("Mean")[0]), blk.var(ln.output("Variance")[0])])
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 3, 8], low=-2, high=2)
        w = p.input("scale", [8], low=0.5, high=1.5)
        b = p.input("bias", [8])
        p.case("layer_norm_last_axis", [F.layer_norm(x, 8, w, b)])
    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 3, 6], low=-2, high=2)
        p.case("layer_norm_no_affine", [F.layer_norm(x, [6])])

    with oc.program(FAMILY) as p:
        x = p.input("x", [2, 3, 4, 3], low=-2, high=2)
        w = p.input("scale", [3], low=0.5, high=1.5)
        b = p.input("bias", [3])
        p.case("instance_norm", [F.instance_norm(x, weight=w, bias=b, eps=1e-5)])

    for layout, shape in (("NCHW", [2, 6, 3, 2]), ("NHWC", [2, 3, 2, 6])):
        with oc.program(FAMILY) as p:
            x = p.input("x", shape, low=-2, high=2)
            w = p.input("scale", [6], low=0.5, high=1.5)
            b = p.input("bias", [6])
            o = raw_op("group_norm", {"X": x, "Scale": w, "Bias": b},
                       {"Y": "float32", "Mean": "float32", "Variance": "float32"},
                       {"groups": 3, "epsilon": 1e-5, "data_layout": layout})
            p.case(f"group_norm_{layout.lower()}", [o["Y"]], extra=[o["Mean"], o["Variance"]])

    for impl in ("downgrade_in_infer", "upscale_in_train"):
        with oc.program(FAMILY) as p:
            x = p.input("x", [3, 7])
            o = raw_op("dropout", {"X": x}, {"Out": "float32", "Mask": "uint8"},
                       {"dropout_prob": 0.35, "is_test": True, "dropout_implementation": impl, "fix_seed": False,
                        "seed": 0})
            p.case(f"dropout_test_{impl}", [o["Out"]])
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 7])
        o = raw_op("dropout", {"X": x}, {"Out": "float32", "Mask": "uint8"},
                   {"dropout_prob": 0.0, "is_test": False, "dropout_implementation": "upscale_in_train",
                    "fix_seed": False, "seed": 0})
        # The uint8 Mask is left out: the comparison tool reads float/int
        # arrays only (kernels.norm checks the mask).
        p.case("dropout_train_p0", [o["Out"]],
               notes="p = 0 keeps everything: the only training-mode dropout whose values do not depend on the RNG")
    oc.finish()


if __name__ == "__main__":
    main()
