#!/usr/bin/env python3
"""Per-op Paddle references for prelu (see tools/op_caselib.py): forward,
X@GRAD and Alpha@GRAD in each mode (all: one slope; channel: per channel,
channel-first and channel-last, ranks 2 to 5; element: per element of an
item, as paddle.static.nn.prelu(mode="element") writes it), fp32 and fp64.
Inputs span both signs, so both sides of the kink are covered.

  python3 tools/op_cases_prelu.py   # rewrites test/fixtures/op_cases/prelu/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.nn.functional as F
from paddle.base.layer_helper import LayerHelper

FAMILY = "prelu"


def raw_prelu(x, alpha, mode, data_format="NCHW"):
    """A prelu op in a mode F.prelu never writes (element)."""
    helper = LayerHelper("prelu")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="prelu", inputs={"X": x, "Alpha": alpha}, outputs={"Out": out},
                     attrs={"mode": mode, "data_format": data_format})
    return out


def one(name, xshape, ashape, fn, dtype="float32"):
    with oc.program(FAMILY) as p:
        x = p.input("x", xshape, dtype=dtype)
        a = p.input("alpha", ashape, dtype=dtype, low=0.05, high=0.6)
        p.case(name, [fn(x, a)])


def main():
    oc.start(__file__, FAMILY)
    one("all", [2, 3, 4], [1], lambda x, a: F.prelu(x, a))
    one("channel_nchw", [2, 3, 4, 5], [3], lambda x, a: F.prelu(x, a))
    one("channel_nhwc", [2, 4, 5, 3], [3], lambda x, a: F.prelu(x, a, data_format="NHWC"))
    one("channel_nc_rank2", [5, 4], [4], lambda x, a: F.prelu(x, a, data_format="NC"))
    one("channel_ncdhw", [1, 3, 2, 3, 4], [3], lambda x, a: F.prelu(x, a, data_format="NCDHW"))
    one("channel_nlc_fp64", [2, 5, 3], [3], lambda x, a: F.prelu(x, a, data_format="NLC"), dtype="float64")
    one("element", [2, 3, 4], [1, 3, 4], lambda x, a: raw_prelu(x, a, "element"))
    one("element_nhwc", [2, 3, 4, 2], [1, 3, 4, 2], lambda x, a: raw_prelu(x, a, "element", "NHWC"))
    oc.finish()


if __name__ == "__main__":
    main()
