#!/usr/bin/env python3
"""Per-op Paddle references for the shuffle family (see tools/op_caselib.py):
pixel_shuffle, pixel_unshuffle and channel_shuffle (both data formats) and
maxout (channel axis first and last), forward and X@GRAD.

  python3 tools/op_cases_shuffle.py   # rewrites test/fixtures/op_cases/shuffle/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle.nn.functional as F

FAMILY = "shuffle"


def one(name, shape, fn):
    with oc.program(FAMILY) as p:
        x = p.input("x", shape, low=-5, high=5)
        p.case(name, [fn(x)])


def main():
    oc.start(__file__, FAMILY)
    one("pixel_shuffle_nchw", [2, 8, 3, 2], lambda x: F.pixel_shuffle(x, 2))
    one("pixel_shuffle_nhwc", [1, 2, 3, 18], lambda x: F.pixel_shuffle(x, 3, data_format="NHWC"))
    one("pixel_unshuffle_nchw", [2, 2, 4, 6], lambda x: F.pixel_unshuffle(x, 2))
    one("pixel_unshuffle_nhwc", [1, 6, 3, 2], lambda x: F.pixel_unshuffle(x, 3, data_format="NHWC"))
    one("channel_shuffle_nchw", [2, 6, 2, 3], lambda x: F.channel_shuffle(x, 3))
    one("channel_shuffle_nhwc", [2, 3, 2, 8], lambda x: F.channel_shuffle(x, 2, data_format="NHWC"))
    one("maxout_axis1", [2, 6, 3, 2], lambda x: F.maxout(x, 3, axis=1))
    one("maxout_axis_last", [2, 3, 2, 4], lambda x: F.maxout(x, 2, axis=-1))
    oc.finish()


if __name__ == "__main__":
    main()
