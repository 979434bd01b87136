# test/lit/Inputs/poison_npy.py - copies a float32 .npy and sets one element to NaN or a given value (no NumPy).
# usage: python3 poison_npy.py IN.npy OUT.npy INDEX [VALUE]
import struct
import sys

src, dst, index = sys.argv[1], sys.argv[2], int(sys.argv[3])
value = float(sys.argv[4]) if len(sys.argv) > 4 else float("nan")
data = bytearray(open(src, "rb").read())
assert data[:6] == b"\x93NUMPY" and b"'<f4'" in data[:128], "expects a float32 .npy"
header_len = struct.unpack("<H", data[8:10])[0] if data[6] == 1 else struct.unpack("<I", data[8:12])[0]
offset = (10 if data[6] == 1 else 12) + header_len + 4 * index
data[offset:offset + 4] = struct.pack("<f", value)
open(dst, "wb").write(bytes(data))
