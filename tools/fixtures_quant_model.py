#!/usr/bin/env python3
"""A quantized inference program as Paddle 2.6.2 users make one: a small conv net (conv2d + batch_norm
+ relu + pool2d, twice, then fc) rewritten by paddle.static.quantization.QuantizationTransformPassV2
(quantize_linear/dequantize_linear pairs: channel_wise_abs_max weights, moving_average_abs_max
activations) and saved by save_inference_model, with a reference on synthesized weights
(tools/synth_weights.py; fixtures_real_models.write_reference).

The weights stay float32 (no QuantWeightPass): the synthesized-weights scheme fills fp32 tensors
only, so each weight goes through its quantize_linear + dequantize_linear at run time rather than
being stored as int8 (the int8 form is covered by the op case quant/dql_int8_axis0). The pass
declares its zero points int32; they are never read by either kernel, so this script stores them as
fp32 for the same reason. The scales are synthesized like every 1-D tensor (0.5 + u), which makes
them plausible: weights of magnitude < 0.5 land on a few dozen levels.

  test/fixtures/models/quant_convnet/model.pdmodel   the program (op_callstack sanitised)
  test/fixtures/models/quant_convnet/reference/      input, fetch, output.npy, meta.json

  python3 tools/fixtures_quant_model.py
"""
import tempfile
from pathlib import Path

import fixturelib as fl  # noqa: E402  (sets threads/env before paddle)
import paddle
from paddle.base import core, framework
from paddle.static.quantization import QuantizationTransformPassV2

from fixtures_real_models import write_reference

NAME = "quant_convnet"
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


def main():
    place = paddle.CPUPlace()
    scope = paddle.static.global_scope()
    with fl.new_programs() as (main_prog, startup):
        x = paddle.static.data("x", [-1] + DIMS[1:], "float32")
        y = build(x)
        exe = paddle.static.Executor(place)
        exe.run(startup)
        graph = framework.IrGraph(core.Graph(main_prog.desc), for_test=True)
        QuantizationTransformPassV2(scope=scope, place=place, weight_quantize_type="channel_wise_abs_max",
                                    activation_quantize_type="moving_average_abs_max").apply(graph)
        quant_prog = graph.to_program()
        for v in quant_prog.global_block().vars.values():
            if v.persistable and v.dtype == paddle.int32:
                v.desc.set_dtype(core.VarDesc.VarType.FP32)
        with tempfile.TemporaryDirectory() as tmp:
            prefix = str(Path(tmp) / "model")
            yv = quant_prog.global_block().var(y.name)
            xv = quant_prog.global_block().var(x.name)
            for v in quant_prog.global_block().vars.values():
                if v.persistable and scope.find_var(v.name) is None:
                    scope.var(v.name).get_tensor().set(paddle.zeros(v.shape, "float32").numpy(), place)
            paddle.static.save_inference_model(prefix, [xv], [yv], exe, program=quant_prog)
            fl.sanitize_model_file(prefix + ".pdmodel")
            data = Path(prefix + ".pdmodel").read_bytes()
    d = fl.FIXTURES / "models" / NAME
    d.mkdir(parents=True, exist_ok=True)
    (d / "model.pdmodel").write_bytes(data)
    write_reference(data, DIMS, d / "reference", fl.rel(d / "model.pdmodel"))
    print(f"   ops: {', '.join(fl.op_types(data))}")


if __name__ == "__main__":
    main()
