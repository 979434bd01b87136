#!/usr/bin/env python3
"""Per-op Paddle references for bincount and histogram (no gradients), see
tools/op_caselib.py: bincount with and without minlength, fp32, fp64 and
int32 weights (whose sums come out fp64), int32 and int64 X; histogram over a
given range with values outside it and on its upper edge, over X's own range,
over a range of one value (widened by one each side), and int64 X.

  python3 tools/op_cases_histogram.py   # rewrites test/fixtures/op_cases/histogram/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "histogram"


def bincount_case(name, x, weights_dtype=None, minlength=0, xdtype="int64"):
    r = np.random.default_rng(sum(map(ord, name)))
    with oc.program(FAMILY) as p:
        xv = p.input("x", [len(x)], dtype=xdtype, value=np.array(x), grad=False)
        w = None
        if weights_dtype:
            wv = r.integers(1, 5, size=len(x)) if weights_dtype.startswith("int") else r.uniform(-1, 2, size=len(x))
            w = p.input("w", [len(x)], dtype=weights_dtype, value=wv, grad=False)
        p.case(name, [paddle.bincount(xv, weights=w, minlength=minlength)], grads=False,
               notes=f"bincount of {x} weights {weights_dtype} minlength {minlength}")


def histogram_case(name, x, dtype="float32", **kw):
    with oc.program(FAMILY) as p:
        xv = p.input("x", list(np.shape(x)), dtype=dtype, value=np.array(x), grad=False)
        p.case(name, [paddle.histogram(xv, **kw)], grads=False, notes=f"histogram of {dtype} {kw}")


def main():
    oc.start(__file__, FAMILY)
    bincount_case("bincount_counts", [1, 1, 3, 0, 7, 3])
    bincount_case("bincount_minlength_int32", [2, 0, 2], minlength=6, xdtype="int32")
    bincount_case("bincount_weights_fp32", [1, 1, 3, 4, 1], weights_dtype="float32")
    bincount_case("bincount_weights_fp64_minlength", [0, 2, 2], weights_dtype="float64", minlength=5)
    bincount_case("bincount_weights_int32", [1, 1, 3], weights_dtype="int32")
    histogram_case("histogram_range", [0., 1., 1., 2.5, 3., -1., 4., 3., 0.7], bins=4, min=0, max=3)
    histogram_case("histogram_own_range", [[0.5, -2.], [1.25, 3.5], [3.5, 0.]], bins=5)
    histogram_case("histogram_one_value_fp64", [2., 2., 2.], dtype="float64", bins=3)
    histogram_case("histogram_int64", [1, 2, 2, 5, 9, 0], dtype="int64", bins=4, min=1, max=5)
    oc.finish()


if __name__ == "__main__":
    main()
