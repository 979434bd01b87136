#!/usr/bin/env python3
"""Which pd_ops lack a row in compiler/ir/pir_ops.cc: Paddle 3.x's own translator
(paddle.pir.translate_to_pir) turns every op case's Fluid program
(test/fixtures/op_cases/*/*/program.pdmodel) into PIR, and each forward pd_op it
writes is looked up among kSpecs' rows. Programs the translator itself refuses
are counted by its reason. Needs Paddle 3.x (e.g. paddlepaddle==3.3.1).

  python3 tools/pir_row_gaps.py
"""

import collections
import re
from pathlib import Path

import paddle
from paddle.base import core

REPO = Path(__file__).resolve().parent.parent
# Lowered by the translator itself (pir_translate.cc), not by a row.
STRUCTURAL = {"data", "fetch", "feed", "full", "full_int_array", "full_with_tensor", "shape", "shape64", "set_value"}


def main():
    text = (REPO / "compiler/ir/pir_ops.cc").read_text()
    rows = set(re.findall(r'^\s*\{"(\w+)", "', text, re.M))
    seen = collections.defaultdict(set)
    refused = collections.Counter()
    for f in sorted((REPO / "test/fixtures/op_cases").glob("*/*/program.pdmodel")):
        family = f.parent.parent.name
        try:
            program = paddle.pir.translate_to_pir(core.ProgramDesc(f.read_bytes()))
        except Exception as e:  # noqa: BLE001 (the translator raises many kinds)
            refused[str(e).strip().splitlines()[-1][:100]] += 1
            continue
        for op in program.global_block().ops:
            name = op.name()
            if name.startswith("pd_op."):
                seen[name[len("pd_op."):].rstrip("_")].add(family)
    gaps = {k: v for k, v in seen.items() if k not in rows and k not in STRUCTURAL and not k.endswith("_grad")}
    print(f"{len(seen)} pd_ops written by the translator; {len(gaps)} without a row:")
    for k in sorted(gaps):
        print(f"  {k}  (op cases: {', '.join(sorted(gaps[k])[:3])})")
    print(f"{sum(refused.values())} op-case programs the translator refused:")
    for reason, n in refused.most_common():
        print(f"  {n:3d}  {reason}")


if __name__ == "__main__":
    main()
