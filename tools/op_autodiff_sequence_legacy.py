#!/usr/bin/env python3
"""References for fluidc's OWN backward pass through the Fluid 1.x LoD sequence ops
(tools/op_cases_sequence_legacy.py checks their kernels against Paddle's own backward): one
forward-only chain lod_reset -> sequence_pad -> sequence_unpad -> sequence_slice ->
sequence_reshape -> sequence_scatter, whose gradient ops fluidc's autodiff writes from the op
table's generic rule (slots by name). The harness feeds dense tensors, so lod_reset gives the
parameter its ragged LoD (lengths 1, 5, 0) and the ids Y's LoD. Written like
tools/op_autodiff_indexing.py (test/fixtures/op_autodiff/<case>/).

  python3 tools/op_autodiff_sequence_legacy.py
"""

import numpy as np

from paddle import scale

from op_autodiff_indexing import case  # noqa: E402  (imports fixturelib first)
from fixturelib import append_op as op  # noqa: E402


def sequence_legacy_chain(param, feed):
    x = op("lod_reset", {"X": param("x", [6, 3])}, {"Out": "float32"}, {"target_lod": [0, 1, 6, 6]})["Out"]
    padded = op("sequence_pad", {"X": x, "PadValue": feed("pv", [1])}, {"Out": "float32", "Length": "int64"},
                {"padded_length": 6})
    seq = op("sequence_unpad", {"X": scale(padded["Out"], 2.0), "Length": padded["Length"]}, {"Out": "float32"},
             {})["Out"]
    # Rows [0, 1) of sequence 0 and [1, 4) of sequence 1: 4 rows, lengths 1, 3, 0.
    sliced = op("sequence_slice", {"X": seq, "Offset": feed("off", [3, 1], "int64", [[0], [1], [0]]),
                                   "Length": feed("len", [3, 1], "int64", [[1], [3], [0]])}, {"Out": "float32"},
                {})["Out"]
    upd = op("sequence_reshape", {"X": sliced}, {"Out": "float32"}, {"new_dim": 1})["Out"]  # 12 rows: 3, 9, 0
    ids = feed("ids", [-1, 1], "int64", np.asarray([[1], [4], [1], [0], [7], [7], [2], [3], [5], [6], [0], [1]]))
    ids = op("lod_reset", {"X": ids, "Y": upd}, {"Out": "int64"}, {})["Out"]
    return op("sequence_scatter", {"X": param("table", [3, 8]), "Ids": ids, "Updates": upd}, {"Out": "float32"},
              {})["Out"]


def main():
    case("sequence_legacy_chain", sequence_legacy_chain)


if __name__ == "__main__":
    main()
