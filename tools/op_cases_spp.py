#!/usr/bin/env python3
"""Per-op Paddle references for spp (Fluid 1.x spatial pyramid pooling, fluid.layers.spp's op; Paddle 2.6.2
has no Python function left for it, so the op is written with append_op), see tools/op_caselib.py: forward
and X@GRAD, max and average pooling, sizes that divide into the bins and sizes that need Paddle's padding
(odd, non-square), three and four levels, fp64. Inputs are distinct random values, so no max window ties.

  python3 tools/op_cases_spp.py   # rewrites test/fixtures/op_cases/spp/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
from paddle.base.layer_helper import LayerHelper

FAMILY = "spp"


def case(name, shape, levels, pooling, dtype="float32"):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, dtype=dtype, low=-2, high=2)
        helper = LayerHelper("spp")
        out = helper.create_variable_for_type_inference(dtype)
        helper.append_op(type="spp", inputs={"X": x}, outputs={"Out": out},
                         attrs={"pyramid_height": levels, "pooling_type": pooling})
        p.case(name, [out], notes=f"pyramid_height {levels}, {pooling}, X {shape}, {dtype}")


def main():
    oc.start(__file__, FAMILY)
    case("max_3_levels_even", [2, 3, 8, 8], 3, "max")
    case("avg_3_levels_padded", [2, 2, 5, 7], 3, "avg")
    case("max_4_levels_padded", [1, 2, 9, 11], 4, "max")
    case("avg_2_levels_fp64", [2, 3, 6, 5], 2, "avg", dtype="float64")
    oc.finish()


if __name__ == "__main__":
    main()
