# test/lit/Inputs/write_npy.py - writes a small .npy table from the command line (no NumPy).
# usage: python3 write_npy.py OUT.npy f4|i4 ROWS COLS V0 V1 ...   (COLS 0: a 1-D array of ROWS values)
import struct
import sys

out, kind, rows, cols = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
values = sys.argv[5:]
assert len(values) == rows * max(cols, 1), "ROWS*COLS values expected"
shape = "(%d,)" % rows if cols == 0 else "(%d, %d)" % (rows, cols)
header = "{'descr': '<%s', 'fortran_order': False, 'shape': %s, }" % (kind, shape)
header += " " * (63 - (10 + len(header)) % 64) + "\n"
pack = "<f" if kind == "f4" else "<i"
data = b"".join(struct.pack(pack, float(v) if kind == "f4" else int(v)) for v in values)
open(out, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)
