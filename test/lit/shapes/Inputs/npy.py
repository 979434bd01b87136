# test/lit/shapes/Inputs/npy.py - writes a ramp .npy or prints one (dtype, shape, values) without NumPy.
# usage: python3 npy.py write OUT.npy f4|i4|i8 D0,D1,...   (values 0, 1, 2, ...; "" for 0-D)
#        python3 npy.py write OUT.npy f4|i4|i8 D0,... V0,V1,... (the given values)
#        python3 npy.py show IN.npy
#        python3 npy.py varies IN.npy...   (exits non-zero naming the first file whose values are all equal)
import ast
import struct
import sys

FMT = {"f4": "f", "i4": "i", "i8": "q"}


def write(path, kind, dims, values):
    shape = tuple(int(d) for d in dims.split(",") if d)
    n = 1
    for d in shape:
        n *= d
    vals = [float(v) if kind == "f4" else int(v) for v in values.split(",")] if values else list(range(n))
    assert len(vals) == n, f"{len(vals)} values for shape {shape}"
    header = "{'descr': '<%s', 'fortran_order': False, 'shape': %s, }" % (kind, repr(shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    body = struct.pack("<%d%s" % (n, FMT[kind]), *vals)
    open(path, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + body)


def values(path):
    data = open(path, "rb").read()
    hlen = struct.unpack("<H", data[8:10])[0]
    h = ast.literal_eval(data[10:10 + hlen].decode())
    kind = h["descr"][1:]
    n = 1
    for d in h["shape"]:
        n *= d
    vals = struct.unpack("<%d%s" % (n, FMT[kind]), data[10 + hlen:10 + hlen + n * struct.calcsize(FMT[kind])])
    return kind, list(h["shape"]), vals


def show(path):
    kind, shape, vals = values(path)
    print("dtype %s shape %s" % (kind, shape))
    print("values " + " ".join(("%g" % v) for v in vals))


def varies(paths):
    for path in paths:
        if len(set(values(path)[2])) < 2:
            sys.exit("constant: " + path)


if sys.argv[1] == "write":
    write(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else "")
elif sys.argv[1] == "varies":
    varies(sys.argv[2:])
else:
    show(sys.argv[2])
