#!/usr/bin/env python3
# tools/fuzz_programs.py - mutates the fixture programs (bytes, then names/attrs/dims/ops) and checks that
# fluidc and the binaries it builds fail with exit 1 and a message, never by a signal.
# usage: python3 tools/fuzz_programs.py SEED COUNT   (needs protoc and the python protobuf package; run
# from the repository root after building into build/)
import glob, os, random, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLUIDC = os.path.join(ROOT, 'build', 'bin', 'fluidc')
work = tempfile.mkdtemp(prefix='fluidc-fuzz-')
subprocess.check_call(['protoc', '-I', os.path.join(ROOT, 'proto'), '--python_out', work, 'framework.proto'])
sys.path.insert(0, work)
import framework_pb2 as fp  # noqa: E402

random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
count = int(sys.argv[2]) if len(sys.argv) > 2 else 100
cases = [os.path.relpath(os.path.dirname(p), os.path.join(ROOT, 'test/fixtures')) for p in glob.glob(os.path.join(ROOT, 'test/fixtures/**/main.pdmodel'), recursive=True)]
crashes = 0


def report(what, rc, data, err):
    global crashes
    crashes += 1
    path = os.path.join(work, f'crash{crashes}.pdmodel')
    open(path, 'wb').write(data)
    print(f'{what} died with {rc}; program kept at {path}\n{err[-400:]}')


def byte_mutation(data):
    data = bytearray(data)
    for _ in range(random.randint(1, 8)):
        pos = random.randrange(len(data))
        k = random.random()
        if k < 0.5: data[pos] = random.randrange(256)
        elif k < 0.7: del data[pos:pos + random.randint(1, 50)]
        else: data[pos:pos] = bytes(random.randrange(256) for _ in range(random.randint(1, 8)))
    return bytes(data)


def semantic_mutation(data):
    p = fp.ProgramDesc()
    p.ParseFromString(data)
    b = random.choice(p.blocks)
    if not b.ops:
        b = p.blocks[0]
    names = [v.name for v in b.vars]
    for _ in range(random.randint(1, 3)):
        k = random.randrange(5)
        op = random.choice(b.ops)
        if k == 0 and op.inputs:
            s = random.choice(op.inputs)
            if s.arguments and names: s.arguments[0] = random.choice(names)
        elif k == 1 and op.attrs:
            a = random.choice(op.attrs)
            if a.type == fp.INT: a.i = random.choice([-5, -1, 0, 1, 2, 3, 100])
            elif a.type == fp.BOOLEAN: a.b = not a.b
            elif a.type == fp.FLOAT: a.f = random.choice([0.0, -1.0, 1e30, float('nan')])
        elif k == 2:
            v = random.choice(b.vars)
            if v.type.HasField('lod_tensor') and len(v.type.lod_tensor.tensor.dims):
                dims = v.type.lod_tensor.tensor.dims
                dims[random.randrange(len(dims))] = random.choice([-1, 0, 1, 3, 7])
        elif k == 3 and len(b.ops) > 1:
            del b.ops[random.randrange(len(b.ops))]
        else:
            v = random.choice(b.vars)
            if v.type.HasField('lod_tensor'): v.type.lod_tensor.tensor.data_type = random.choice([0, 2, 3, 5, 6])
    return p.SerializeToString()


for n in range(count):
    case = os.path.join(ROOT, 'test/fixtures', random.choice(cases))
    data = open(os.path.join(case, 'main.pdmodel'), 'rb').read()
    data = byte_mutation(data) if n % 2 else semantic_mutation(data)
    prog = os.path.join(work, 'm.pdmodel')
    open(prog, 'wb').write(data)
    build = n % 6 == 0
    cmd = [FLUIDC, 'build' if build else 'emit', prog, '--startup', os.path.join(case, 'startup.pdmodel'), '-o',
           os.path.join(work, 'bin' if build else 'out')]
    r = subprocess.run(cmd, capture_output=True, timeout=120)
    if r.returncode not in (0, 1):
        report('fluidc', r.returncode, data, r.stderr.decode())
        continue
    if build and r.returncode == 0:
        feeds = sum([['--data', f'{os.path.basename(f)[:-4]}={f}'] for f in glob.glob(os.path.join(case, 'data/*.npy'))], [])
        r = subprocess.run([os.path.join(work, 'bin')] + feeds + ['--params', os.path.join(case, 'init.pdiparams'),
                            '--steps', '3', '--batch-size', '8'], capture_output=True, timeout=120)
        if r.returncode not in (0, 1):
            report('binary', r.returncode, data, r.stderr.decode())
print(f'{count} mutated programs, {crashes} crashes')
sys.exit(1 if crashes else 0)
