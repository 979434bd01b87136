#!/usr/bin/env python3
# tools/fixtures_optimizer_options.py - Paddle 2.6.2 references for fluidc's optimizer-pass options: L2 weight
# decay (SGD, Momentum with Nesterov, Adam) and global-norm gradient clipping, trained 20 steps on the
# forward programs of test/fixtures/autodiff/{fit_a_line,mlp_ce}, written there as losses_<key>.npy.
# usage: PYTHONHASHSEED=0 python3 tools/fixtures_optimizer_options.py   (after tools/fixtures_autodiff.py)
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np  # noqa: E402

import fixtures_autodiff as ad  # noqa: E402
import fixturelib as fl  # noqa: E402
import paddle  # noqa: E402

L2 = paddle.regularizer.L2Decay
EXTRA = {
    "sgd_l2": (lambda: paddle.optimizer.SGD(learning_rate=0.1, weight_decay=L2(0.01)),
               {"type": "sgd", "call": "SGD(learning_rate=0.1, weight_decay=L2Decay(0.01))"}),
    "momentum_nesterov_l2": (
        lambda: paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9, use_nesterov=True, weight_decay=L2(0.01)),
        {"type": "momentum", "call": "Momentum(learning_rate=0.05, momentum=0.9, use_nesterov=True, "
                                     "weight_decay=L2Decay(0.01))"}),
    "adam_l2": (lambda: paddle.optimizer.Adam(learning_rate=0.01, weight_decay=L2(0.01)),
                {"type": "adam", "call": "Adam(learning_rate=0.01, weight_decay=L2Decay(0.01))"}),
    "sgd_clip": (lambda: paddle.optimizer.SGD(learning_rate=0.1, grad_clip=paddle.nn.ClipGradByGlobalNorm(1.0)),
                 {"type": "sgd", "call": "SGD(learning_rate=0.1, grad_clip=ClipGradByGlobalNorm(1.0))"}),
}


def main():
    paddle.enable_static()
    ad.OPTIMIZERS.update(EXTRA)
    for case in ["fit_a_line", "mlp_ce"]:
        d = fl.FIXTURES / ad.SUB / case
        meta = json.loads((d / "meta.json").read_text())
        main_prog = paddle.static.Program.parse_from_string((d / "forward.pdmodel").read_bytes())
        startup = paddle.static.Program.parse_from_string((d / "startup.pdmodel").read_bytes())
        names = sorted(meta["persistables"])
        params = ad.load_params(d / "init.pdiparams", names)
        feeds = [f["name"] for f in meta["feeds"]] if isinstance(meta["feeds"], list) else list(meta["feeds"])
        arrays = {n: np.load(d / "data" / f"{n}.npy") for n in feeds}
        record = {}
        for key in EXTRA:
            losses, settings = ad.train_reference(main_prog, startup, meta["loss"], key, params, arrays,
                                                  meta["batch_size"], f"{ad.SUB}/{case}")
            fl.save_npy(d / f"losses_{key}.npy", losses)
            record[key] = {"call": settings["call"], "ops": settings["ops_appended_sequence"],
                           "losses": [float(x) for x in losses]}
            print(case, key, losses[0], losses[-1])
        (d / "optimizer_options.json").write_text(json.dumps(
            {"script": "tools/fixtures_optimizer_options.py", "paddle_version": paddle.__version__,
             "runs": record}, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
