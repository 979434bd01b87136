#!/usr/bin/env python3
"""test/fixtures/autodiff_lod/crf_tagger: fluidc's own backward pass (--passes=autodiff) through linear_chain_crf,
on the forward-only BiGRU-CRF tagger of tools/fixtures_crf_tagger.py (one bi-GRU layer), against Paddle 2.6.2's
gradients of every parameter (the Transition 'crfw' included) on one ragged batch of 5 sentences (lengths
3, 0, 7, 1, 5). The recipe and layout are tools/fixtures_autodiff_lod.py's (test/e2e/autodiff_lod_case.sh).

  python3 tools/fixtures_crf_autodiff.py
"""

import numpy as np

import fixtures_autodiff_lod as ad  # noqa: E402  (imports fixturelib first: threads/env before paddle)
import fixtures_crf_tagger as ct
import paddle

LENGTHS = [3, 0, 7, 1, 5]


def crf_tagger():
    words = paddle.static.data("words", [-1, 1], "int64", lod_level=1)
    target = paddle.static.data("target", [-1, 1], "int64", lod_level=1)
    feature = ct.embedding_v1(words)
    fwd = ct.dynamic_gru(ct.fc(feature, 3 * ct.HIDDEN, "pre_fwd"), False, "gru_fwd")
    bwd = ct.dynamic_gru(ct.fc(feature, 3 * ct.HIDDEN, "pre_bwd"), True, "gru_bwd")
    emission = ct.fc(paddle.concat([fwd, bwd], axis=1), ct.TAGS, "emission")
    transition = paddle.static.create_parameter([ct.TAGS + 2, ct.TAGS], "float32", name="crfw")
    loss = paddle.mean(ct.linear_chain_crf(emission, target, transition))
    rng = np.random.default_rng(16)
    rows = sum(LENGTHS)
    feeds = {"words": rng.integers(0, ct.VOCAB, (rows, 1)).astype("int64"),
             "target": rng.integers(0, ct.TAGS, (rows, 1)).astype("int64")}
    return loss, feeds, {"words": LENGTHS, "target": LENGTHS}


def main():
    ad.SCRIPT = __file__  # make_fixture records the script that wrote the fixture
    ad.make_fixture("crf_tagger", crf_tagger)


if __name__ == "__main__":
    main()
