#!/usr/bin/env python3
"""Programs, weights and a page for examples/ocr: a PaddleOCR-style text detector (DB) and recogniser (CRNN + CTC).

Both are trained here with Paddle 2.6.2 (dygraph, seeded) on synthetic pages of digit strings drawn with a
5x7 bitmap font, then exported the way PaddleOCR exports its models (paddle.jit.save of a to_static layer):
  det.pdmodel/.pdiparams  input x [-1, 3, -1, -1] (any height and width that are multiples of 8), output the
                          DB shrink map: per-pixel text probability, [N, 1, H, W] (conv/BN backbone at strides
                          2, 4, 8; FPN neck with nearest upsampling; head conv -> BN -> conv2d_transpose ->
                          sigmoid)
  rec.pdmodel/.pdiparams  input x [-1, 3, 48, -1] (a text line resized to height 48), output the per-column class
                          probabilities [N, W/4, 11] (blank + 10 digits; conv/BN/pool backbone, mean over the
                          height, bidirectional LSTM (the fused `rnn` op), fc, softmax)
Images are grayscale in [0, 1] repeated to 3 channels and normalised as (v - 0.5) / 0.5.

examples/ocr/: the models, page.pgm (a bundled page: three lines of digits) and page_truth.txt (its lines, top
to bottom). test/fixtures/ocr_det and ocr_rec: Paddle's outputs on that page and on its first line cropped as
the example crops it, in infer_case.sh's layout (the programs and weights linked from examples/ocr).

  python3 tools/make_example_ocr.py                   (trains: about 15-20 minutes on 2 busy cores)
  python3 tools/make_example_ocr.py --reference-only  (the saved models: page and references only)
"""

import os
import sys

import numpy as np

import fixturelib as fl  # noqa: F401  (sets threads/env before paddle)
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "ocr")
TEST_FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "fixtures")
CLASSES = 11  # 0: CTC blank, 1 + d: digit d
REC_H = 48

# A 5x7 font for the digits: each string is one row, '#' is ink.
FONT = {
    "0": [" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "],
    "1": ["  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "],
    "2": [" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"],
    "3": ["#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### "],
    "4": ["   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "],
    "5": ["#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "],
    "6": ["  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### "],
    "7": ["#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "],
    "8": [" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "],
    "9": [" ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  "],
}
SCALE = 3          # a glyph is 15 x 21 pixels on a page
ADVANCE = 6 * SCALE
MARGIN = 4         # the example crops a detected line with this many pixels around it


def glyph(d):
    g = np.array([[c == "#" for c in row] for row in FONT[d]], dtype=np.float32)
    return np.kron(g, np.ones((SCALE, SCALE), dtype=np.float32))


def line_size(text):
    return 7 * SCALE, len(text) * ADVANCE - SCALE


def draw(page, text, top, left, ink):
    for i, d in enumerate(text):
        g = glyph(d)
        y, x = top, left + i * ADVANCE
        region = page[y:y + g.shape[0], x:x + g.shape[1]]
        region[...] = np.where(g > 0, ink, region)


def random_page(rng, h, w):
    """A page with 1-3 lines of 3-7 digits; returns the page and the lines (text, top, left)."""
    page = (0.85 + 0.1 * rng.rand()) + 0.04 * rng.randn(h, w)
    lines, rows = [], list(range(0, h - 7 * SCALE - 4, 7 * SCALE + 8))
    rng.shuffle(rows)
    for top in sorted(rows[:rng.randint(1, 4)]):
        text = "".join(rng.choice(list("0123456789"), size=rng.randint(3, 8)))
        lh, lw = line_size(text)
        if lw + 8 >= w:
            continue
        top += rng.randint(0, 5)
        left = rng.randint(4, w - lw - 4)
        draw(page, text, top, left, 0.1 + 0.2 * rng.rand())
        lines.append((text, top, left))
    return np.clip(page, 0, 1).astype(np.float32), lines


def text_mask(h, w, lines):
    m = np.zeros((h, w), np.float32)
    for text, top, left in lines:
        lh, lw = line_size(text)
        m[top + 2:top + lh - 2, left + 2:left + lw - 2] = 1  # DB's shrunk text region
    return m


def to_input(gray):
    return np.repeat(((gray - 0.5) / 0.5)[None, None], 3, axis=1).astype(np.float32)


def resize_bilinear(img, h, w):
    """Half-pixel-centre bilinear resize (what examples/ocr/ocr.cc does)."""
    H, W = img.shape
    ys = np.clip((np.arange(h) + 0.5) * H / h - 0.5, 0, H - 1)
    xs = np.clip((np.arange(w) + 0.5) * W / w - 0.5, 0, W - 1)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, H - 1), np.minimum(x0 + 1, W - 1)
    fy, fx = (ys - y0)[:, None], (xs - x0)[None, :]
    top = img[y0][:, x0] * (1 - fx) + img[y0][:, x1] * fx
    bottom = img[y1][:, x0] * (1 - fx) + img[y1][:, x1] * fx
    return (top * (1 - fy) + bottom * fy).astype(np.float32)


def crop_line(page, top, left, h, w):
    """The crop the example makes of a detected box: MARGIN around it, resized to height 48."""
    H, W = page.shape
    y0, y1 = max(0, top - MARGIN), min(H, top + h + MARGIN)
    x0, x1 = max(0, left - MARGIN), min(W, left + w + MARGIN)
    crop = page[y0:y1, x0:x1]
    width = max(4, int(round(crop.shape[1] * REC_H / crop.shape[0])))
    return resize_bilinear(crop, REC_H, width)


def conv_bn(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2D(cin, cout, 3, stride, 1, bias_attr=False), nn.BatchNorm2D(cout), nn.ReLU())


class DBNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.s2, self.s4, self.s8 = conv_bn(3, 16, 2), conv_bn(16, 32, 2), conv_bn(32, 64, 2)
        self.l2, self.l4, self.l8 = nn.Conv2D(16, 32, 1), nn.Conv2D(32, 32, 1), nn.Conv2D(64, 32, 1)
        self.smooth = conv_bn(32, 16)
        self.up = nn.Conv2DTranspose(16, 16, 2, 2)
        self.up_bn = nn.BatchNorm2D(16)
        self.out = nn.Conv2D(16, 1, 3, 1, 1)

    def forward(self, x):
        c2 = self.s2(x)
        c4 = self.s4(c2)
        c8 = self.s8(c4)
        p4 = self.l4(c4) + F.interpolate(self.l8(c8), scale_factor=2, mode="nearest")
        p2 = self.l2(c2) + F.interpolate(p4, scale_factor=2, mode="nearest")
        y = F.relu(self.up_bn(self.up(self.smooth(p2))))
        return F.sigmoid(self.out(y))


class CRNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.c1, self.c2, self.c3, self.c4 = conv_bn(3, 16), conv_bn(16, 32), conv_bn(32, 64), conv_bn(64, 64)
        self.lstm = nn.LSTM(64, 48, direction="bidirect")
        self.fc = nn.Linear(96, CLASSES)

    def forward(self, x):
        y = F.max_pool2d(self.c1(x), 2, 2)
        y = F.max_pool2d(self.c2(y), 2, 2)
        y = F.max_pool2d(self.c3(y), (2, 1), (2, 1))
        y = paddle.transpose(paddle.mean(self.c4(y), axis=2), [0, 2, 1])  # height 6 -> 1: [N, W/4, 64]
        y, _ = self.lstm(y)
        return F.softmax(self.fc(y), axis=-1)


def fit(model, lr, steps, every, tag, batch_loss):
    """Adam on batch_loss(model) for `steps` steps, printing the loss every `every` steps."""
    opt = paddle.optimizer.Adam(learning_rate=lr, parameters=model.parameters())
    for step in range(steps):
        loss = batch_loss(model)
        loss.backward()
        opt.step()
        opt.clear_grad()
        if step % every == 0 or step == steps - 1:
            print("%s step %d loss %.4f" % (tag, step, float(loss)), flush=True)
    model.eval()
    return model


def train_det(rng, steps=500, batch=8, h=96, w=192):
    def batch_loss(model):
        pages = [random_page(rng, h, w) for _ in range(batch)]
        x = paddle.to_tensor(np.concatenate([to_input(p) for p, _ in pages]))
        m = paddle.to_tensor(np.stack([text_mask(h, w, l) for _, l in pages])[:, None])
        p = model(x)
        dice = 1 - 2 * (p * m).sum() / (p.sum() + m.sum() + 1e-6)
        return F.binary_cross_entropy(p, m) + dice
    return fit(DBNet(), 3e-3, steps, 50, "det", batch_loss)


def rec_sample(rng, width=208):
    text = "".join(rng.choice(list("0123456789"), size=rng.randint(3, 8)))
    lh, lw = line_size(text)
    page, _ = random_page(np.random.RandomState(rng.randint(1 << 30)), lh + 24, lw + 24)
    page[:] = np.clip((0.85 + 0.1 * rng.rand()) + 0.04 * rng.randn(*page.shape), 0, 1)
    draw(page, text, 12, 12, 0.1 + 0.2 * rng.rand())
    # Detected boxes are off by a pixel or two: jitter the crop as the detector would.
    top, left = 12 + rng.randint(-2, 3), 12 + rng.randint(-2, 3)
    crop = crop_line(page, top, left, lh + rng.randint(-2, 3), lw + rng.randint(-2, 3))
    img = np.full((REC_H, width), float(np.median(crop)), np.float32)
    img[:, :min(width, crop.shape[1])] = crop[:, :width]
    return img, [1 + int(d) for d in text]


def train_rec(rng, steps=1000, batch=32, width=208):
    ctc = nn.CTCLoss(blank=0, reduction="mean")

    def batch_loss(model):
        samples = [rec_sample(rng, width) for _ in range(batch)]
        x = paddle.to_tensor(np.concatenate([to_input(s) for s, _ in samples]))
        n = max(len(t) for _, t in samples)
        labels = paddle.to_tensor(np.array([t + [0] * (n - len(t)) for _, t in samples], np.int32))
        label_len = paddle.to_tensor(np.array([len(t) for _, t in samples], np.int64))
        logp = paddle.log(paddle.transpose(model(x), [1, 0, 2]) + 1e-8)  # [T, N, C]
        in_len = paddle.to_tensor(np.full(batch, logp.shape[0], np.int64))
        return ctc(logp, labels, in_len, label_len)
    return fit(CRNN(), 2e-3, steps, 100, "rec", batch_loss)


def greedy(probs):
    best = probs.argmax(-1)
    out, prev = [], 0
    for c in best:
        if c != prev and c != 0:
            out.append(str(c - 1))
        prev = c
    return "".join(out)


def write_pgm(path, gray):
    h, w = gray.shape
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (w, h))
        f.write(np.round(gray * 255).astype(np.uint8).tobytes())


def write_reference(fixture, program, feed, expected):
    """A test fixture in infer_case.sh's layout: the example's program and weights (symbolic links),
    x_page.npy and Paddle's expected_page.npy."""
    d = os.path.join(TEST_FIXTURES, fixture)
    os.makedirs(d, exist_ok=True)
    for ext in ("pdmodel", "pdiparams"):
        link = os.path.join(d, "model." + ext)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(os.path.join("..", "..", "..", "examples", "ocr", program + "." + ext), link)
    np.save(os.path.join(d, "x_page.npy"), feed)
    np.save(os.path.join(d, "expected_page.npy"), expected)


def main():
    paddle.disable_static()  # trained in dygraph, exported to a program by paddle.jit.save
    paddle.seed(7)
    rng = np.random.RandomState(7)
    if "--reference-only" in sys.argv:  # the exported models as they are: only the page and references again
        det, rec = paddle.jit.load(os.path.join(OUT, "det")), paddle.jit.load(os.path.join(OUT, "rec"))
    else:
        det = train_det(rng)
        rec = train_rec(rng)
        paddle.jit.save(det, os.path.join(OUT, "det"),
                        input_spec=[paddle.static.InputSpec([None, 3, None, None], "float32", "x")])
        paddle.jit.save(rec, os.path.join(OUT, "rec"),
                        input_spec=[paddle.static.InputSpec([None, 3, REC_H, None], "float32", "x")])

    # The bundled page, at its 8-bit precision (what the example reads back from page.pgm).
    lines = [("2026", 16, 24), ("31415", 64, 120), ("808", 112, 56)]
    page = np.clip(0.9 + 0.03 * np.random.RandomState(11).randn(160, 256), 0, 1)
    for text, top, left in lines:
        draw(page, text, top, left, 0.15)
    page = (np.round(page * 255) / 255).astype(np.float32)
    write_pgm(os.path.join(OUT, "page.pgm"), page)
    with open(os.path.join(OUT, "page_truth.txt"), "w") as f:
        f.write("".join(t + "\n" for t, _, _ in lines))

    det_in = to_input(page)
    det_out = det(paddle.to_tensor(det_in)).numpy()
    write_reference("ocr_det", "det", det_in, det_out)
    reads = []
    for text, top, left in lines:
        lh, lw = line_size(text)
        rec_in = to_input(crop_line(page, top, left, lh, lw))
        rec_out = rec(paddle.to_tensor(rec_in)).numpy()
        reads.append(greedy(rec_out[0]))
        if text == lines[0][0]:
            write_reference("ocr_rec", "rec", rec_in, rec_out)
    text_px = int((det_out[0, 0] > 0.3).sum())
    print("page: %d pixels of text probability above 0.3; Paddle reads the lines (cropped at their true boxes) as "
          "%s, truth %s" % (text_px, reads, [t for t, _, _ in lines]))


if __name__ == "__main__":
    main()
