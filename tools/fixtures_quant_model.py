#!/usr/bin/env python3
"""Quantized inference programs as Paddle 2.6.2 users make them: a small conv net (conv2d +
batch_norm + relu + pool2d, twice, then fc) rewritten by paddle.static.quantization's
QuantizationTransformPassV2 (quantize_linear/dequantize_linear pairs: channel_wise_abs_max weights,
moving_average_abs_max activations) and saved by save_inference_model, with references on
synthesized weights (tools/synth_weights.py; fixtures_real_models.write_reference).

  quant_convnet        the pass's output as is: fp32 weights, each through its quantize_linear +
                       dequantize_linear at run time
  quant_convnet_int8   then QuantWeightPass (save_int_weight, PaddleSlim's saved form): int8 weights
                       feeding dequantize_linear, the weights' quantize_linear gone. This fixture
                       declares those weights INT8, which Paddle runs the same (weights synthesized).
  test/fixtures/quant_int8_saved/   the same QuantWeightPass program exactly as Paddle saves it: the
                       weights declared float32 in the program while model.pdiparams holds int8 (Paddle's
                       loader takes the record's dtype, and so does fluidc's for a weight only
                       dequantize_linear reads), the weights and scales synthesized before the pass;
                       x_b2.npy and Paddle's expected_b2.npy (test/e2e/infer_case.sh).

The pass declares its zero points int32 (synthesized as 0; no kernel reads them). Scales are
synthesized like every 1-D tensor (0.5 + u); int8 weights as floor(255 u) - 127.

  test/fixtures/models/<name>/model.pdmodel   the program (op_callstack sanitised)
  test/fixtures/models/<name>/reference/      input, fetch, output.npy, meta.json

  python3 tools/fixtures_quant_model.py
"""
import contextlib
import tempfile
from pathlib import Path

import numpy as np

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
from paddle.base import core, framework
from paddle.static.quantization import QuantWeightPass, QuantizationTransformPassV2

from fixtures_real_models import write_reference
import synth_weights as sw

DIMS = [1, 3, 16, 16]


def build(x):
    y = x
    for i, c in enumerate((8, 8)):
        y = paddle.static.nn.conv2d(y, c, 3, padding=1, bias_attr=False, name=f"conv{i}")
        y = paddle.static.nn.batch_norm(y, is_test=True, name=f"bn{i}")
        y = paddle.nn.functional.relu(y)
        y = paddle.nn.functional.max_pool2d(y, 2)
    y = paddle.flatten(y, 1)
    return paddle.static.nn.fc(y, 10, name="fc")


@contextlib.contextmanager
def quantized_net(int_weights, synthesize=False):
    """The net after QuantizationTransformPassV2 (then QuantWeightPass with int_weights), inside its scope:
    yields (program, x, y, executor, scope). synthesize: the float persistables set by the synthesis
    formula first, so that the int8 weights come from them."""
    place = paddle.CPUPlace()
    scope = paddle.static.Scope()
    with fl.new_programs() as (main_prog, startup), paddle.static.scope_guard(scope):
        x = paddle.static.data("x", [-1] + DIMS[1:], "float32")
        y = build(x)
        exe = paddle.static.Executor(place)
        exe.run(startup)
        graph = framework.IrGraph(core.Graph(main_prog.desc), for_test=True)
        QuantizationTransformPassV2(scope=scope, place=place, weight_quantize_type="channel_wise_abs_max",
                                    activation_quantize_type="moving_average_abs_max").apply(graph)
        if synthesize:
            synthesize_scope(graph.to_program(), scope, place)
        if int_weights:
            QuantWeightPass(scope, place).apply(graph)
        yield graph.to_program(), x, y, exe, scope


def synthesize_scope(prog, scope, place):
    """Every float persistable of `prog` set by the synthesis formula (tools/synth_weights.py)."""
    for v in prog.global_block().vars.values():
        t = scope.find_var(v.name) if v.persistable else None
        if t is not None and t.get_tensor()._is_initialized() and np.array(t.get_tensor()).dtype == np.float32:
            t.get_tensor().set(sw.synth(v.name, list(np.array(t.get_tensor()).shape)), place)


def export_saved(dirname):
    """The QuantWeightPass program and its .pdiparams exactly as Paddle saves them, with Paddle's output."""
    place = paddle.CPUPlace()
    with quantized_net(int_weights=True, synthesize=True) as (quant_prog, x, y, exe, _):
        d = fl.fresh_dir(fl.FIXTURES / dirname)
        block = quant_prog.global_block()
        paddle.static.save_inference_model(str(d / "model"), [block.var(x.name)], [block.var(y.name)], exe,
                                           program=quant_prog)
        fl.sanitize_model_file(str(d / "model.pdmodel"))
    feed = sw.synth("x", [2] + DIMS[1:], input=True)
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor(place)
        prog, feeds, fetches = paddle.static.load_inference_model(str(d / "model"), exe)
        (out,) = exe.run(prog, feed={feeds[0]: feed}, fetch_list=fetches)
    np.save(d / "x_b2.npy", feed)
    np.save(d / "expected_b2.npy", np.asarray(out))
    data = (d / "model.pdmodel").read_bytes()
    int8 = [v.name for v in prog.global_block().vars.values()
            if v.persistable and v.type == core.VarDesc.VarType.LOD_TENSOR and scope.find_var(v.name) is not None
            and np.array(scope.find_var(v.name).get_tensor()).dtype == np.int8]
    fl.write_json(d / "meta.json", {"script": fl.rel(__file__), "ops": fl.op_types(data),
                                    "int8_weights_declared_float32": int8, **fl.versions()})
    print(f"   {dirname}: int8 weights under float32 VarDescs: {', '.join(int8)}")


def export(name, int_weights):
    with quantized_net(int_weights) as (quant_prog, x, y, exe, scope):
        if int_weights:
            # QuantWeightPass leaves the weights' VarDescs float32 while the scope (and so the
            # .pdiparams Paddle saves) holds int8; declare what the data is (see the docstring).
            for v in quant_prog.global_block().vars.values():
                t = scope.find_var(v.name) if v.persistable else None
                if t is not None and np.array(t.get_tensor()).dtype == np.int8:
                    v.desc.set_dtype(core.VarDesc.VarType.INT8)
        with tempfile.TemporaryDirectory() as tmp:
            prefix = str(Path(tmp) / "model")
            block = quant_prog.global_block()
            paddle.static.save_inference_model(prefix, [block.var(x.name)], [block.var(y.name)], exe,
                                               program=quant_prog)
            fl.sanitize_model_file(prefix + ".pdmodel")
            data = Path(prefix + ".pdmodel").read_bytes()
    d = fl.FIXTURES / "models" / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "model.pdmodel").write_bytes(data)
    write_reference(data, DIMS, d / "reference", fl.rel(d / "model.pdmodel"))
    print(f"   ops: {', '.join(fl.op_types(data))}")


def main():
    export("quant_convnet", int_weights=False)
    export("quant_convnet_int8", int_weights=True)
    export_saved("quant_int8_saved")


if __name__ == "__main__":
    main()
