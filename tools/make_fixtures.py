#!/usr/bin/env python3
"""Regenerate every Paddle reference file: the datasets' .npy arrays, the
fixtures under test/fixtures/ (except test/fixtures/runtime/, which is not
made here) and the program/parameter files of examples/fit_a_line and
examples/mlp_classifier.  Each family runs in its own Python process so that
global Paddle state (unique names, RNG) starts fresh; the output is
byte-identical from run to run with the same paddle/numpy versions.

  python3 tools/make_fixtures.py            # everything
  python3 tools/make_fixtures.py mlp        # only scripts whose name contains 'mlp'
"""

import json
import os
import subprocess
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
REPO = TOOLS.parent
FIXTURES = REPO / "test" / "fixtures"

SCRIPTS = [
    "prepare_datasets.py",      # raw CSV -> examples/*/data/*.npy (inputs of all below)
    "fixtures_fit_a_line.py",   # fit_a_line_sgd, infer_fit_a_line
    "fixtures_mlp.py",          # mlp_adam, mlp_momentum, infer_mlp
    "fixtures_ops_mix.py",      # mlp_ops_mix
    "fixtures_legacy_ops.py",   # legacy_ops
    "fixtures_variants.py",     # variants/* (other widths, depths, losses, optimizer settings)
    "fixtures_control_flow.py", # control_flow/*: cond / while / switch_case / tensor arrays (multi-block)
    "fixtures_autodiff.py",     # autodiff/*: forward-only programs + Paddle's append_backward grads / optimizer losses
    "fixtures_autodiff_lod.py", # autodiff_lod/*: forward-only programs on LoD input + Paddle's gradients
    "make_examples.py",         # examples/fit_a_line, examples/mlp_classifier
    "make_example_image_classifier.py",  # examples/image_classifier (a CNN trained on digits)
    "fixtures_cnn_train.py",    # lenet_digits (conv/pool/batch_norm training)
    "fixtures_transformer_train.py",  # bert_tiny (a BERT-tiny-shaped encoder classifier, 20 SGD steps)
    "fixtures_rnn_train.py",    # gru_dense, lstm_classifier (the fused rnn op in training)
    "fixtures_real_models.py",  # real_models/reference/*: Paddle on the real programs with synthesized weights
    "fixtures_models.py",       # models/*: ResNet-18, MobileNetV2, an encoder saved by Paddle 2.6.2 + references
    "fixtures_resnet_train.py", # resnet18_train: one ResNet-18 training step at batch 4 on synthesized weights
    "fixtures_sparse_train.py", # embedding_sparse_{momentum,sgd}: sparse (SELECTED_ROWS) embedding gradients
    "op_autodiff_indexing.py",  # op_autodiff/*: fluidc's own backward through set_value, einsum, grid_sampler, ...
    "op_autodiff_unary.py",     # op_autodiff/unary_*: fluidc's own backward through brelu ... atanh, round, trunc
    "op_autodiff_misc.py",      # op_autodiff/*: fluidc's own backward through unbind and meshgrid
    "op_autodiff_vision.py",    # op_autodiff/*: fluidc's own backward through bilinear, roi_align, 5-D grid_sampler
    "op_autodiff_vision_legacy.py",  # op_autodiff/vision_legacy_chain: affine_channel ... index_sample (Fluid 1.x)
    "op_autodiff_vision_legacy2.py",  # op_autodiff/vision_legacy2_chain: bicubic_interp v1 ... row_conv (issue 16)
    "fixtures_crf_tagger.py",   # crf_tagger, crf_tagger_infer: BiGRU-CRF on LoD input (linear_chain_crf, crf_decoding)
    "fixtures_beam_decoder.py", # beam_decoder_infer: a Fluid 1.x While + beam_search + beam_search_decode decoder
    "fixtures_lod_lstm_train.py",  # lod_lstm_classifier: dynamic_lstm + sequence_pool training
    "fixtures_crf_autodiff.py", # autodiff_lod/crf_tagger: fluidc's backward through linear_chain_crf
    "fixtures_yolov3.py",       # detect/yolov3: Darknet + FPN + yolo_box + multiclass_nms3, as PaddleDetection exports
    "fixtures_ssd.py",          # detect/ssd: prior_box + box_coder + multiclass_nms (Fluid's multi_box_head)
    "fixtures_bisenet.py",      # detect/bisenet: BiSeNet V1 segmenter, bilinear_interp_v2 + argmax (PaddleSeg)
    "fixtures_quant_model.py",  # models/quant_convnet: conv net through QuantizationTransformPassV2 (quantize_linear)
]
# Per-op references, one script per op family (tools/op_caselib.py): test/fixtures/op_cases/<family>/.
SCRIPTS += sorted(p.name for p in TOOLS.glob("op_cases_*.py"))

# The op list the fixtures are meant to cover between them (forward ops; their
# *_grad ops come from Paddle's backward pass).
WANTED = ["feed", "fetch", "fill_constant", "assign", "uniform_random", "gaussian_random", "scale",
          "cast", "mul", "matmul", "matmul_v2", "elementwise_add", "elementwise_sub",
          "elementwise_mul", "elementwise_div", "relu", "sigmoid", "tanh", "softmax",
          "softmax_with_cross_entropy", "cross_entropy2", "mean", "reduce_mean", "reduce_sum",
          "square", "sum", "fill_any_like", "fill_zeros_like", "sgd", "momentum", "adam"]


def coverage():
    where = {}
    for meta_path in sorted(FIXTURES.rglob("meta.json")):
        meta = json.loads(meta_path.read_text())
        name = str(meta_path.parent.relative_to(FIXTURES))
        ops = set(meta.get("ops_main", [])) | set(meta.get("ops_startup", [])) | set(meta.get("ops", []))
        for op in ops:
            where.setdefault(op, []).append(name)
    missing = [op for op in WANTED if op not in where]
    summary = {"script": "tools/make_fixtures.py",
               "ops": {op: where[op] for op in sorted(where)},
               "wanted_missing": missing}
    (FIXTURES / "ops_coverage.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return where, missing


def main():
    only = sys.argv[1:]
    env = dict(os.environ, PYTHONHASHSEED="0")
    for s in SCRIPTS:
        if only and not any(o in s for o in only):
            continue
        print(f"== {s}", flush=True)
        subprocess.check_call([sys.executable, str(TOOLS / s)], cwd=REPO, env=env)
    where, missing = coverage()
    print(f"== {len(where)} op types across fixtures; wanted but missing: {missing or 'none'}")
    mine = [p for p in FIXTURES.iterdir() if p.is_dir() and p.name != "runtime"]
    size = sum(f.stat().st_size for d in mine for f in d.rglob("*") if f.is_file())
    print(f"== fixtures size: {size / 1e6:.2f} MB")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
