#!/usr/bin/env python3
# tools/make_runtime_io_fixtures.py - writes test/fixtures/runtime/: tensor records
# saved by real Paddle and .npy files saved by real NumPy, for test/unit/runtime.
#
# Made with paddlepaddle 2.6.2 (CPU) and numpy 2.4.6. Run once from the repository
# root; the outputs are committed, so the tests never need Paddle:
#   python3 tools/make_runtime_io_fixtures.py
#
# params.pdiparams  paddle.static.io.save_vars(..., filename=...): a save_combine
#                   of the variables below, sorted by name, no names in the file
# params_dir/<name> paddle.static.io.save_vars(...) without filename: one `save`
#                   op per variable (all but the bool one, see below)
# numpy_*.npy       numpy.save of small arrays (checks the .npy writer bytewise)
#
# The values are fixed formulas that test/unit/runtime/tensor_record_test.cc
# recomputes: value(i) for the i-th element in row-major order.
import os
import shutil

import numpy as np
import paddle

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "fixtures", "runtime")

# name -> (numpy dtype, shape, values). Names chosen so byte-wise sorting matters:
# upper case before lower case, '.' (0x2e) before '_' (0x5f).
VARS = {
    "fc_0.w_0": ("float32", [3, 2], lambda n: np.arange(n) * 0.5 - 1.0),
    "fc_0.b_0": ("float32", [2], lambda n: np.array([0.25, -0.75])),
    "fc_0_scale": ("float16", [2], lambda n: np.array([1.5, -2.0])),
    "Emb_table": ("float64", [2, 2], lambda n: np.arange(n) / 3.0),
    "step": ("int64", [1], lambda n: np.array([1234567890123])),
    "mask": ("bool", [3], lambda n: np.array([True, False, True])),
    "lr": ("float32", [], lambda n: np.array(0.125)),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    paddle.enable_static()
    main_prog, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main_prog, startup):
        gvars = []
        for name, (dtype, shape, _) in VARS.items():
            gvars.append(paddle.static.create_global_var(
                shape=shape, value=0, dtype=dtype, persistable=True, name=name))
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    scope = paddle.static.global_scope()
    for name, (dtype, shape, values) in VARS.items():
        n = int(np.prod(shape)) if shape else 1
        arr = np.asarray(values(n)).astype(dtype).reshape(shape)
        scope.find_var(name).get_tensor().set(arr, paddle.CPUPlace())

    paddle.static.io.save_vars(exe, dirname=OUT, main_program=main_prog, vars=gvars,
                               filename="params.pdiparams")
    pdir = os.path.join(OUT, "params_dir")
    shutil.rmtree(pdir, ignore_errors=True)
    # Paddle 2.6's per-variable `save` op has no bool kernel ("There are no
    # kernels which are registered in the save operator"), so the directory
    # form leaves `mask` out; save_combine handles bool fine.
    paddle.static.io.save_vars(exe, dirname=pdir, main_program=main_prog,
                               vars=[v for v in gvars if v.name != "mask"])

    np.save(os.path.join(OUT, "numpy_f32_2x3.npy"), (np.arange(6) * 1.5 - 2).astype("<f4").reshape(2, 3))
    np.save(os.path.join(OUT, "numpy_i64_scalar.npy"), np.array(-42, dtype="<i8"))
    np.save(os.path.join(OUT, "numpy_bool_4.npy"), np.array([True, False, False, True]))
    np.save(os.path.join(OUT, "numpy_f16_3.npy"), np.array([0.5, -1.0, 65504.0], dtype="<f2"))


if __name__ == "__main__":
    main()
