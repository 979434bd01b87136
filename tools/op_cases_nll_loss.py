#!/usr/bin/env python3
"""Per-op Paddle references for nll_loss (paddle.nn.functional.nll_loss) and
its gradient, see tools/op_caselib.py: log-probabilities [N, C] and
[N, C, H, W], mean (Total_weight in the divisor), sum and none reductions,
class weights, ignored labels, fp64.

Ignored labels appear only with reduction none: Paddle 2.6.2's CPU nll_loss
corrupts its heap for mean and sum when a label is ignored (glibc aborts the
run: "corrupted size vs. prev_size", "free(): invalid pointer"; 2-D and 4-D,
with and without weights), so those have no reference here; the unit test
(test/unit/kernels/nll_loss_test.cc) checks them against worked values.

  python3 tools/op_cases_nll_loss.py   # rewrites test/fixtures/op_cases/nll_loss/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
import paddle.nn.functional as F

FAMILY = "nll_loss"


def nll_case(name, xshape, dtype="float32", weighted=False, **kw):
    r = np.random.default_rng(sum(map(ord, name)))
    lshape = [xshape[0]] + xshape[2:]
    labels = r.integers(0, xshape[1], size=lshape)
    if "ignore_index" in kw:
        labels.reshape(-1)[::3] = kw["ignore_index"]
    with oc.program(FAMILY) as p:
        x = p.input("x", xshape, dtype=dtype, low=-3, high=0)
        label = p.input("label", lshape, dtype="int64", value=labels)
        w = p.input("w", [xshape[1]], dtype=dtype, low=0.5, high=2, grad=False) if weighted else None
        p.case(name, [F.nll_loss(x, label, weight=w, **kw)], notes=f"nll_loss X {xshape} {dtype} weighted={weighted} {kw}")


def main():
    oc.start(__file__, FAMILY)
    nll_case("mean", [6, 4])
    nll_case("mean_weighted", [8, 5], weighted=True)
    nll_case("sum_fp64", [5, 3], dtype="float64", reduction="sum")
    nll_case("none_weighted", [6, 4], weighted=True, reduction="none", ignore_index=0)
    nll_case("image_mean", [2, 3, 4, 5], weighted=True)
    nll_case("image_none_ignored", [2, 3, 2, 3], reduction="none", ignore_index=1)
    oc.finish()


if __name__ == "__main__":
    main()
