#!/usr/bin/env python3
"""Per-op Paddle references for strided_slice (see tools/op_caselib.py):
forward and Input@GRAD for what Python indexing writes (x[:, ::2, 1::3],
reversed and negative steps, an integer index with a step elsewhere:
decrease_axis, x[-1, ::2], forward only as Paddle cannot differentiate it), paddle.strided_slice with bounds past the end and
negative starts, bounds given as tensors (StartsTensor/EndsTensor/
StridesTensor) and as lists of tensors (the *TensorList inputs), an int64
input.

  python3 tools/op_cases_strided_slice.py   # rewrites test/fixtures/op_cases/strided_slice/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "strided_slice"


def one(name, shape, fn, dtype="float32", notes="", grads=True):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, dtype=dtype, low=-5, high=5)
        p.case(name, [fn(x)], grads=grads and dtype == "float32", notes=notes)


def ints(values):
    return paddle.assign(np.array(values, dtype="int32"))


def main():
    oc.start(__file__, FAMILY)
    one("index_steps", [2, 5, 7], lambda x: x[:, ::2, 1::3])
    one("index_reverse", [3, 6], lambda x: x[:, ::-1])
    one("index_negative_steps", [4, 6], lambda x: x[::-1, 4:0:-3])
    one("index_from_last_step_neg2", [3, 6], lambda x: x[:, -1::-2])
    # Forward only: Paddle 2.6.2's strided_slice_grad fails on a decrease_axis
    # ("Input dimension size should be equal to 1"); kernels.strided_slice checks that gradient.
    nograd = "forward only: Paddle's strided_slice_grad fails with decrease_axis"
    one("index_decrease", [3, 6], lambda x: x[1, ::2], grads=False, notes=nograd)
    one("index_last_decrease", [3, 6], lambda x: x[-1, ::2], grads=False, notes=nograd)
    one("index_ellipsis", [2, 3, 5], lambda x: x[..., 1::2])
    one("api_past_end_negative_start", [4, 9],
        lambda x: paddle.strided_slice(x, axes=[0, 1], starts=[-3, 1], ends=[100, -2], strides=[2, 3]))
    one("api_negative_end", [5, 7],
        lambda x: paddle.strided_slice(x, axes=[1], starts=[6], ends=[-8], strides=[-2]),
        notes="end -8 + 7 = -1 clamps at 0: index 0 is excluded")
    one("tensor_bounds", [3, 8],
        lambda x: paddle.strided_slice(x, axes=[1], starts=ints([7]), ends=ints([0]), strides=ints([-3])),
        notes="StartsTensor, EndsTensor, StridesTensor")
    one("tensor_list_bounds", [4, 8],
        lambda x: paddle.strided_slice(x, axes=[0, 1], starts=[ints([1]), 2], ends=[4, ints([8])],
                                       strides=[ints([2]), 2]),
        notes="StartsTensorList, EndsTensorList, StridesTensorList")
    one("int64", [3, 6], lambda x: x[::2, 5:0:-2], dtype="int64")
    oc.finish()


if __name__ == "__main__":
    main()
