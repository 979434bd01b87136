#!/usr/bin/env python3
"""Per-op Paddle references for the linear-chain CRF (see tools/op_caselib.py):
linear_chain_crf (LogLikelihood, and the Alpha / EmissionExps / TransitionExps
it records, with Emission@GRAD and Transition@GRAD), crf_decoding (with
and without Label) and chunk_eval (every scheme), on ragged LoD batches (lengths 1, 5, 3, and an empty
sequence, which Paddle allows) and in the padded form with Length.

Paddle 2.6's Python API no longer writes either op (they were paddle.fluid
layers), so the ops are appended by hand, as Fluid's layers did.

  python3 tools/op_cases_crf.py   # rewrites test/fixtures/op_cases/crf/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
from paddle.base.layer_helper import LayerHelper

FAMILY = "crf"
TAGS = 4


def crf(emission, transition, label, length=None):
    """Fluid's layers.linear_chain_crf: returns (LogLikelihood, [Alpha, EmissionExps, TransitionExps])."""
    helper = LayerHelper("linear_chain_crf")
    outs = {k: helper.create_variable_for_type_inference(emission.dtype)
            for k in ["Alpha", "EmissionExps", "TransitionExps", "LogLikelihood"]}
    ins = {"Emission": emission, "Transition": transition, "Label": label}
    if length is not None:
        ins["Length"] = length
    helper.append_op(type="linear_chain_crf", inputs=ins, outputs=outs)
    return outs["LogLikelihood"], [outs["Alpha"], outs["EmissionExps"], outs["TransitionExps"]]


def decode(emission, transition, label=None, length=None):
    """Fluid's layers.crf_decoding."""
    helper = LayerHelper("crf_decoding")
    path = helper.create_variable_for_type_inference("int64")
    ins = {"Emission": emission, "Transition": transition}
    if label is not None:
        ins["Label"] = label
    if length is not None:
        ins["Length"] = length
    helper.append_op(type="crf_decoding", inputs=ins, outputs={"ViterbiPath": path})
    return path


def chunk_eval(inference, label, scheme, excluded, seq_length=None):
    """Fluid's layers.chunk_eval: [Precision, Recall, F1-Score, NumInferChunks, NumLabelChunks, NumCorrectChunks]."""
    helper = LayerHelper("chunk_eval")
    names = ["Precision", "Recall", "F1-Score", "NumInferChunks", "NumLabelChunks", "NumCorrectChunks"]
    outs = {k: helper.create_variable_for_type_inference("float32" if i < 3 else "int64") for i, k in enumerate(names)}
    ins = {"Inference": inference, "Label": label}
    if seq_length is not None:
        ins["SeqLength"] = seq_length
    helper.append_op(type="chunk_eval", inputs=ins, outputs=outs,
                     attrs={"num_chunk_types": 3, "chunk_scheme": scheme, "excluded_chunk_types": excluded})
    return [outs[k] for k in names]


def main():
    oc.start(__file__, FAMILY)

    # LoD form: Emission [N, D], Label [N, 1] int64, both with the batch's LoD.
    for name, lens, dtype in [("crf_lod", [1, 5, 3], "float32"), ("crf_lod_empty_seq", [1, 5, 0, 3], "float32"),
                              ("crf_lod_fp64", [2, 4, 1], "float64")]:
        rows = sum(lens)
        with oc.program(FAMILY) as p:
            x = p.input("x", [rows, TAGS], dtype=dtype, low=-3, high=3, lod=[lens])
            w = p.input("w", [TAGS + 2, TAGS], dtype=dtype)
            y = p.input("y", [rows, 1], dtype="int64", low=0, high=TAGS, grad=False, lod=[lens])
            ll, extra = crf(x, w, y)
            tol = dict(rtol=1e-10, atol=1e-12) if dtype == "float64" else {}
            p.case(name, [ll], extra=extra, **tol)

    # Padded form: Emission [B, S, D], Label [B, S], Length [B] (an empty sequence included).
    padded = [1, 5, 0, 3]
    with oc.program(FAMILY) as p:
        x = p.input("x", [len(padded), 5, TAGS], low=-3, high=3)
        w = p.input("w", [TAGS + 2, TAGS])
        y = p.input("y", [len(padded), 5], dtype="int64", low=0, high=TAGS, grad=False)
        n = p.input("n", [len(padded)], dtype="int64", value=padded, grad=False)
        ll, extra = crf(x, w, y, n)
        p.case("crf_padded", [ll], extra=extra)

    for name, lod, with_label in [("decoding_lod", [1, 5, 0, 3], False), ("decoding_lod_label", [2, 6, 3], True)]:
        rows = sum(lod)
        with oc.program(FAMILY) as p:
            x = p.input("x", [rows, TAGS], low=-3, high=3, lod=[lod], grad=False)
            w = p.input("w", [TAGS + 2, TAGS], grad=False)
            y = p.input("y", [rows, 1], dtype="int64", low=0, high=TAGS, grad=False, lod=[lod]) if with_label else None
            p.case(name, [decode(x, w, y)], grads=False)

    for name, with_label in [("decoding_padded", False), ("decoding_padded_label", True)]:
        with oc.program(FAMILY) as p:
            x = p.input("x", [len(padded), 5, TAGS], low=-3, high=3, grad=False)
            w = p.input("w", [TAGS + 2, TAGS], grad=False)
            y = p.input("y", [len(padded), 5], dtype="int64", low=0, high=TAGS, grad=False) if with_label else None
            n = p.input("n", [len(padded)], dtype="int64", value=padded, grad=False)
            p.case(name, [decode(x, w, y, n)], grads=False)

    with oc.program(FAMILY) as p:  # Paddle's double kernel: the path from sums in float64
        x = p.input("x", [9, TAGS], dtype="float64", low=-3, high=3, lod=[[4, 5]], grad=False)
        w = p.input("w", [TAGS + 2, TAGS], dtype="float64", grad=False)
        p.case("decoding_lod_fp64", [decode(x, w)], grads=False)

    # chunk_eval (the taggers' metric): each scheme, excluded types, an empty sequence, the padded form.
    tags_per_type = {"IOB": 2, "IOE": 2, "IOBES": 4, "plain": 1}
    for name, scheme, excluded, lod in [("chunk_eval_iob", "IOB", [], [[6, 0, 9, 5]]),
                                        ("chunk_eval_ioe_excluded", "IOE", [1], [[6, 9, 5]]),
                                        ("chunk_eval_iobes", "IOBES", [], [[6, 9, 5]]),
                                        ("chunk_eval_plain", "plain", [0], [[6, 9, 5]])]:
        top = 3 * tags_per_type[scheme]  # 3 chunk types; the value `top` is outside every chunk
        rows = sum(lod[0])
        with oc.program(FAMILY) as p:
            inf = p.input("inf", [rows, 1], dtype="int64", low=0, high=top + 1, grad=False, lod=lod)
            lab = p.input("lab", [rows, 1], dtype="int64", low=0, high=top + 1, grad=False, lod=lod)
            p.case(name, chunk_eval(inf, lab, scheme, excluded), grads=False)
    with oc.program(FAMILY) as p:
        inf = p.input("inf", [3, 7], dtype="int64", low=0, high=5, grad=False)
        lab = p.input("lab", [3, 7], dtype="int64", low=0, high=5, grad=False)
        n = p.input("n", [3], dtype="int64", value=[7, 0, 4], grad=False)
        p.case("chunk_eval_padded", chunk_eval(inf, lab, "IOB", [], n), grads=False)

    oc.finish()


if __name__ == "__main__":
    main()
