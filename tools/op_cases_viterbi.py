#!/usr/bin/env python3
"""Per-op Paddle references for viterbi_decode (paddle.text.viterbi_decode, the decoder of
PaddleNLP's taggers; see tools/op_caselib.py): with and without the start/stop tags, float32 and
float64, lengths at, below and (all) short of the padded width, and a zero length (Paddle gives
that row the first step's score and a zero path).

  python3 tools/op_cases_viterbi.py   # rewrites test/fixtures/op_cases/viterbi/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "viterbi"


def main():
    oc.start(__file__, FAMILY)
    for name, lengths, steps, tags, with_tags, dtype in [
            ("bos_eos", [6, 3, 1, 4], 6, 5, True, "float32"),
            ("no_bos_eos", [6, 3, 1, 4], 6, 5, False, "float32"),
            ("bos_eos_fp64", [2, 5, 5], 5, 7, True, "float64"),
            ("all_short", [2, 3, 1], 6, 4, True, "float32"),
            ("zero_length", [0, 3, 2], 4, 4, True, "float32"),
            ("zero_length_no_bos_eos", [3, 0], 3, 3, False, "float32")]:
        with oc.program(FAMILY) as p:
            x = p.input("x", [len(lengths), steps, tags], dtype=dtype, low=-3, high=3, grad=False)
            w = p.input("w", [tags, tags], dtype=dtype, low=-2, high=2, grad=False)
            n = p.input("n", [len(lengths)], dtype="int64", value=lengths, grad=False)
            scores, path = paddle.text.viterbi_decode(x, w, n, include_bos_eos_tag=with_tags)
            tol = dict(rtol=1e-12, atol=1e-12) if dtype == "float64" else {}
            p.case(name, [scores, path], grads=False, **tol)
    oc.finish()


if __name__ == "__main__":
    main()
