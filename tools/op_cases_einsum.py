#!/usr/bin/env python3
"""Per-op Paddle references for einsum (see tools/op_caselib.py): forward and
einsum_grad's Operands@GRAD for the equations models write (batched products,
attention scores, transposes, dot products, sums), broadcasting "...",
implicit output, diagonals and traces (repeated labels), upper-case labels, fp64,
and products big enough for the kernel's batched-product (GEMM) path.

  python3 tools/op_cases_einsum.py   # rewrites test/fixtures/op_cases/einsum/
"""

import op_caselib as oc  # noqa: E402  (imports fixturelib: threads/env before paddle)
import paddle

FAMILY = "einsum"


def case(name, equation, *shapes, dtype="float32", notes=""):
    with oc.program(FAMILY) as p:
        xs = [p.input(f"x{k}", s, dtype=dtype) for k, s in enumerate(shapes)]
        p.case(name, [paddle.einsum(equation, *xs)], notes=notes or equation)


def main():
    oc.start(__file__, FAMILY)
    case("batched_matmul", "bij,bjk->bik", [2, 3, 4], [2, 4, 5])
    case("attention_scores", "bhqd,bhkd->bhqk", [2, 2, 3, 4], [2, 2, 5, 4])
    case("attention_context", "bhqk,bhkd->bqhd", [1, 2, 3, 5], [1, 2, 5, 4])
    case("transpose", "ij->ji", [3, 4])
    case("dot", "i,i->", [6], [6])
    case("sum_all", "ij->", [3, 4])
    case("row_sum", "ij->i", [3, 4])
    case("implicit_matmul", "ij,jk", [3, 4], [4, 2], notes="no '->': labels used once, sorted")
    case("implicit_sorted", "ba,ca", [2, 3], [4, 3], notes="implicit output is 'bc'")
    case("broadcast_ellipsis", "...ij,...jk->...ik", [2, 1, 3, 4], [5, 4, 2], notes="... broadcast 2x1 with 5")
    case("outer_keep", "ij,kj->ikj", [2, 3], [4, 3])
    case("diagonal", "ii->i", [4, 4])
    case("trace", "ii", [3, 3])
    case("upper_case", "Ab,bc->Ac", [2, 3], [3, 4])
    case("bilinear_fp64", "bn,anm,bm->ba", [2, 3], [4, 3, 2], [2, 2], dtype="float64",
         notes="three operands in one einsum op")
    # Big enough (>= 32K multiply-adds) for the kernel's batched-product path, forward and gradients.
    case("attention_scores_gemm", "bhqd,bhkd->bhqk", [2, 2, 16, 32], [2, 2, 24, 32])
    case("broadcast_gemm_fp64", "...ij,...jk->...ik", [3, 1, 12, 20], [4, 20, 16], dtype="float64")
    case("permuted_gemm", "kbi,bjk->jbi", [24, 3, 30], [3, 18, 24], notes="summed label first, output transposed")
    oc.finish()


if __name__ == "__main__":
    main()
