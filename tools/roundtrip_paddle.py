#!/usr/bin/env python3
# tools/roundtrip_paddle.py - proves fluidc's rewritten ProgramDescs are real: `fluidc opt` turns each
# forward-only autodiff fixture into a training program (autodiff + optimizer passes), Paddle 2.6.2 loads that
# program and its startup program, starts from the fixture's initial weights and trains 20 steps with its own
# Executor. The losses are written as test/fixtures/autodiff/<case>/roundtrip_<optimizer>.npy; the e2e test
# builds the same `fluidc opt` output into a binary and compares its losses with these.
# usage: python3 tools/roundtrip_paddle.py   (needs build/bin/fluidc and paddlepaddle==2.6.2)
import json, os, subprocess, sys, tempfile

import numpy as np
import paddle

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLUIDC = os.path.join(ROOT, 'build', 'bin', 'fluidc')
CASES = ['mlp_ce', 'fit_a_line', 'ops_mix']
OPTIMIZERS = {'sgd': ['--optimizer', 'sgd', '--lr', '0.1'],
              'momentum': ['--optimizer', 'momentum', '--lr', '0.05', '--momentum', '0.9'],
              'adam': ['--optimizer', 'adam', '--lr', '0.01']}

paddle.enable_static()


def paddle_losses(main_path, startup_path, case_dir, meta):
    main = paddle.static.Program.parse_from_string(open(main_path, 'rb').read())
    startup = paddle.static.Program.parse_from_string(open(startup_path, 'rb').read())
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        block = main.global_block()
        params = [block.var(n) for n in sorted(meta['persistables'])]
        paddle.static.io.load_vars(exe, case_dir, main, vars=params, filename='init.pdiparams')
        feeds = [f['name'] for f in meta['feeds']] if isinstance(meta['feeds'], list) else list(meta['feeds'])
        data = {n: np.load(os.path.join(case_dir, 'data', n + '.npy')) for n in feeds}
        b = meta['batch_size']
        losses = []
        for step in range(20):
            batch = {n: a[step * b:(step + 1) * b] for n, a in data.items()}
            (loss,) = exe.run(main, feed=batch, fetch_list=[meta['loss']])
            losses.append(float(np.asarray(loss).reshape(-1)[0]))
    return np.asarray(losses, dtype=np.float32)


def main():
    version = subprocess.check_output([FLUIDC, '--version'], text=True).strip()
    for case in CASES:
        case_dir = os.path.join(ROOT, 'test', 'fixtures', 'autodiff', case)
        meta = json.load(open(os.path.join(case_dir, 'meta.json')))
        record = {}
        for name, flags in OPTIMIZERS.items():
            with tempfile.TemporaryDirectory() as tmp:
                main_out, startup_out = os.path.join(tmp, 'main.pdmodel'), os.path.join(tmp, 'startup.pdmodel')
                subprocess.check_call([FLUIDC, 'opt', os.path.join(case_dir, 'forward.pdmodel'), '--startup',
                                       os.path.join(case_dir, 'startup.pdmodel'), '--passes=autodiff,optimizer',
                                       '--loss', meta['loss'], *flags, '--startup-out', startup_out, '-o', main_out])
                losses = paddle_losses(main_out, startup_out, case_dir, meta)
            np.save(os.path.join(case_dir, f'roundtrip_{name}.npy'), losses)
            record[name] = {'fluidc_flags': flags, 'losses': [float(x) for x in losses]}
            print(case, name, losses[:3], '...', losses[-1])
        json.dump({'script': 'tools/roundtrip_paddle.py', 'paddle_version': paddle.__version__, 'fluidc': version,
                   'what': 'Paddle Executor training the program written by `fluidc opt --passes=autodiff,optimizer`',
                   'runs': record}, open(os.path.join(case_dir, 'roundtrip.json'), 'w'), indent=1, sort_keys=True)


if __name__ == '__main__':
    sys.exit(main())
