#!/usr/bin/env python3
"""Per-op Paddle references for the Fluid 1.x decoding ops (see tools/op_caselib.py): beam_search, one step on
ragged two-level LoD batches (beam sizes 1 and 3, ended prefixes, a source whose every beam ended and is
dropped, an empty source, is_accumulated true and false, ids absent, ties; float32 only, as Paddle 2.6.2 reads its scores), and beam_search_decode on
arrays written from a few steps' beam_search outputs (write_to_array must keep each element's LoD); and
what a decoder's loop also needs: top_k / top_k_v2 keep their input's LoD, is_empty. Forward
only: Paddle has no gradient for either. Every output's LoD is recorded and compared exactly.

Paddle 2.6's Python API writes neither op, so each is appended with block.append_op (slot and attribute
names from its OpProto).

  python3 tools/op_cases_beam_search.py   # rewrites test/fixtures/op_cases/beam_search/
"""

import numpy as np

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle
from fixturelib import append_op as append  # noqa: E402

FAMILY = "beam_search"
END = 0  # end_id of every case


def column(values, dtype):
    return np.asarray(values, dtype=dtype).reshape(-1, 1)


def step_case(name, lod, pre_ids, pre_scores, scores, beam_size, accumulated=True, ids=None, dtype="float32",
              notes=""):
    """One beam_search step: `lod` (recursive lengths, two levels) on every input; one row per prefix."""
    with oc.program(FAMILY) as p:
        pi = p.input("pre_ids", [len(pre_ids), 1], "int64", value=column(pre_ids, "int64"), lod=lod, grad=False)
        ps = p.input("pre_scores", [len(pre_ids), 1], dtype, value=column(pre_scores, dtype), lod=lod, grad=False)
        sc = np.asarray(scores, dtype=dtype)
        s = p.input("scores", list(sc.shape), dtype, value=sc, lod=lod, grad=False)
        inputs = {"pre_ids": pi, "pre_scores": ps, "scores": s}
        if ids is not None:
            iv = np.asarray(ids, dtype="int64")
            inputs["ids"] = p.input("ids", list(iv.shape), "int64", value=iv, lod=lod, grad=False)
        # Paddle 2.6.2 declares parent_idx dispensable but its shape rule needs it.
        outputs = {"selected_ids": "int64", "selected_scores": dtype, "parent_idx": "int32"}
        o = append("beam_search", inputs, outputs,
                   {"level": 0, "beam_size": beam_size, "end_id": END, "is_accumulated": accumulated})
        tol = {"rtol": 1e-12, "atol": 0} if dtype == "float64" else {"rtol": 1e-6, "atol": 0}
        p.case(name, list(o.values()), grads=False, notes=notes, **tol)


def beam_search_cases():
    # Three sources of 2, 1 and 3 prefixes (a later step's layout: level 1 counts each prefix's one row),
    # width 4 candidates each. Prefix 1 (src 0) and prefix 4 (src 2) have ended (pre_id 0 = END).
    lod = [[2, 1, 3], [1, 1, 1, 1, 1, 1]]
    pre_ids = [5, END, 7, 3, END, 9]
    pre_scores = [-1.0, -0.25, -2.0, -1.5, -0.75, -3.0]
    ids = [[11, 12, 13, 14], [21, 22, 23, 24], [31, END, 33, 34], [41, 42, END, 44], [51, 52, 53, 54],
           [61, 62, 63, 64]]
    acc = [[-1.5, -1.25, -4.0, -2.0], [-9.0, -9.0, -9.0, -9.0], [-2.5, -2.25, -3.0, -2.75],
           [-1.75, -2.0, -0.5, -4.0], [-9.0, -9.0, -9.0, -9.0], [-3.5, -3.25, -0.5, -5.0]]
    step_case("beam3_accumulated", lod, pre_ids, pre_scores, acc, 3, ids=ids,
              notes="ended prefixes offer (end, pre_score) only")
    step_case("beam1_accumulated", lod, pre_ids, pre_scores, acc, 1, ids=ids)
    # Probabilities: the op adds log(p) to pre_scores; no ids (candidate = column number).
    rng = np.random.default_rng(7)
    probs = rng.dirichlet(np.ones(5), size=6)
    step_case("beam3_probabilities_no_ids", lod, pre_ids, pre_scores, probs, 3, accumulated=False)
    step_case("beam2_probabilities_ids", lod, pre_ids, pre_scores, probs[:, :4], 2, accumulated=False, ids=ids)
    # Source 0's best three all continue ended prefixes: it is dropped (no rows). Source 1 ends only now
    # (its prefix was not ended): kept. Source 2 has one prefix of no rows (empty).
    step_case("beam3_source_all_ended", [[3, 1, 1], [1, 1, 1, 1, 0]], [END, END, END, 4], [-0.5, -0.75, -1.0, -2.0],
              [[-9.0, -9.0], [-9.0, -9.0], [-9.0, -9.0], [-1.0, -2.5]], 3, ids=[[1, 2], [3, 4], [5, 6], [END, 8]])
    # Step 0's layout (one prefix per source) and ties: equal scores rank the later prefix first; within a
    # prefix the earlier column, except that a tie for a full beam's last place goes to the later one.
    step_case("beam2_ties", [[1, 2], [1, 1, 1]], [1, 1, 1], [0.0, 0.0, 0.0],
              [[-1.0, -1.0, -1.0, -2.0], [-1.0, -3.0, -3.0, -3.0], [-2.0, -1.0, -3.0, -1.0]], 2,
              ids=[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])


def decode_case(name, steps, beam_size, dtype="float32", notes=""):
    """beam_search_decode on arrays written from fed steps: (ids, scores, recursive lengths) each."""
    with oc.program(FAMILY) as p:
        ids_array = paddle.tensor.create_array("int64")
        scores_array = paddle.tensor.create_array(dtype)
        for k, (ids, scores, lod) in enumerate(steps):
            i = p.input(f"ids{k}", [len(ids), 1], "int64", value=column(ids, "int64"), lod=lod, grad=False)
            s = p.input(f"scores{k}", [len(ids), 1], dtype, value=column(scores, dtype), lod=lod, grad=False)
            at = paddle.full([1], k, "int64")
            paddle.tensor.array_write(i, at, ids_array)
            paddle.tensor.array_write(s, at, scores_array)
        o = append("beam_search_decode", {"Ids": ids_array, "Scores": scores_array},
                   {"SentenceIds": "int64", "SentenceScores": dtype}, {"beam_size": beam_size, "end_id": END})
        tol = {"rtol": 1e-12, "atol": 0} if dtype == "float64" else {"rtol": 1e-6, "atol": 0}
        p.case(name, list(o.values()), grads=False, notes=notes, **tol)


def beam_search_decode_cases():
    # Two sources, beam 2. Step 0: one prefix each; step 1: four prefixes; step 2: source 0's first branch
    # repeats its end, source 1's prefix 2 has no candidates and prefix 3 has two.
    s0 = ([4, 5, 6, 7], [-1.0, -2.0, -0.5, -0.75], [[1, 1], [2, 2]])
    s1 = ([END, 8, 9, 3], [-1.5, -2.125, -0.875, -1.0], [[2, 2], [1, 1, 1, 1]])
    s2 = ([END, 2, END, 1], [-1.5, -3.0, -2.0, -1.125], [[2, 2], [1, 1, 0, 2]])
    decode_case("decode_three_steps", [s0, s1, s2], 2, notes="repeated end ids count once; sorted by final score")
    decode_case("decode_one_step", [s0], 2)
    decode_case("decode_fp64", [s0, s1, s2], 2, dtype="float64")
    # Source 1 was dropped at step 2 (all its beams ended): its sentences end at step 1.
    s2_dropped = ([END, 2], [-1.5, -3.0], [[2, 2], [1, 1, 0, 0]])
    decode_case("decode_source_dropped", [s0, s1, s2_dropped], 2)
    # Beam 3 with three sentences per source, three sources (one prefix at step 0 each).
    t0 = ([1, 2, 3, 4, 5, 6, 7, 8, 9], [-0.5, -1.0, -1.5, -0.25, -0.5, -2.0, -1.0, -1.25, -1.75],
          [[1, 1, 1], [3, 3, 3]])
    t1 = ([END, 10, 11, 12, 13, END, 14, 15, 16], [-0.5, -1.25, -1.375, -0.5, -0.625, -2.0, -1.5, -1.625, -1.875],
          [[3, 3, 3], [1, 2, 0, 1, 1, 1, 2, 1, 0]])
    decode_case("decode_beam3", [t0, t1], 3)


def decoder_helper_cases():
    """What a Fluid decoder's loop also relies on: top_k (both forms) keeps its input's LoD on Out and
    Indices (beam_search reads the scores' LoD); is_empty is the loop's stop test."""
    lod = [[2, 1], [1, 1, 1]]
    with oc.program(FAMILY) as p:
        x = p.input("x", [3, 5], lod=lod, grad=False)
        values, indices = paddle.topk(x, k=2)
        o = append("top_k", {"X": x}, {"Out": "float32", "Indices": "int64"}, {"k": 3})
        p.case("topk_keeps_lod", [values, indices, o["Out"], o["Indices"]], grads=False)
    for name, rows in [("is_empty_false", 3), ("is_empty_true", 0)]:
        with oc.program(FAMILY) as p:
            x = p.input("x", [rows, 2], grad=False)
            p.case(name, [paddle.is_empty(x)], grads=False)


def main():
    oc.start(__file__, FAMILY)
    beam_search_cases()
    beam_search_decode_cases()
    decoder_helper_cases()
    oc.finish()


if __name__ == "__main__":
    main()
