#!/usr/bin/env python3
"""References for fluidc's OWN backward pass through unbind (its gradient is a
stack) and meshgrid (meshgrid_grad, whose slot Paddle names outputs@GRAD): both
gradients are written by grad makers in compiler/ops/tensor_manip_misc.cc, not
by the generic rule. Same layout as tools/op_autodiff_indexing.py, whose
case() writes test/fixtures/op_autodiff/<case>/.

  python3 tools/op_autodiff_misc.py
"""

import paddle

from op_autodiff_indexing import case  # noqa: E402  (imports fixturelib first)


def unbind_restacked(param, feed):
    a, b, c = paddle.unbind(param("x", [3, 4]), axis=0)
    return paddle.stack([c, paddle.scale(a, 2.0), b], axis=1)


def meshgrid_product(param, feed):
    gx, gy = paddle.meshgrid(param("x", [3]), param("y", [4]))
    return paddle.multiply(gx, paddle.tanh(gy))


def main():
    case("unbind_restacked", unbind_restacked)
    case("meshgrid_product", meshgrid_product)


if __name__ == "__main__":
    main()
