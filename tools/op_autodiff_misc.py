#!/usr/bin/env python3
"""References for fluidc's OWN backward pass through unbind (its gradient is a
stack) and meshgrid (meshgrid_grad, whose slot Paddle names outputs@GRAD): both
gradients are written by grad makers in compiler/ops/tensor_manip_misc.cc, not
by the generic rule. The *_partial cases leave some outputs out of the loss:
Paddle's backward gives those outputs gradients of zeros, and so must fluidc's
(split's concat, unbind's stack and meshgrid_grad read every output's
gradient). Same layout as tools/op_autodiff_indexing.py, whose
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


def split_partial(param, feed):
    a, _, c = paddle.split(param("x", [2, 6]), num_or_sections=3, axis=1)
    return paddle.multiply(a, paddle.tanh(c))


def unbind_partial(param, feed):
    a, _, c = paddle.unbind(param("x", [3, 4]), axis=0)
    return paddle.scale(a, 2.0) + paddle.sin(c)


def meshgrid_partial(param, feed):
    gx, _ = paddle.meshgrid(param("x", [3]), param("y", [4]))
    return paddle.tanh(gx)


def main():
    case("unbind_restacked", unbind_restacked)
    case("meshgrid_product", meshgrid_product)
    case("split_partial", split_partial)
    case("unbind_partial", unbind_partial)
    case("meshgrid_partial", meshgrid_partial)


if __name__ == "__main__":
    main()
