# bench/workloads.py - the benchmark's models: each class holds all per-model knowledge, bench.py the rest.
# A new model is one class here plus its entry in MODELS; a new batch size is one Run in its `runs`.
# Each class gives: the Paddle static program (forward, then optimizer), the data, the equivalent PyTorch
# module with Paddle's initial weights copied in, and PyTorch's loss and optimizer for the same step.
from dataclasses import dataclass

import numpy as np


@dataclass
class Run:
    title: str              # the row's title in the table and its key in the JSON
    mode: str               # "train" (one optimizer step) or "infer" (one forward run)
    batch: int
    steps: int              # steps (train) or repetitions (infer) timed per measurement
    gemm_bound: str = ""    # non-empty: this row is also reported against sgemm's peak, under this name
    read_floor: bool = False  # this row is also reported against the time to read its weights once


def linear_names(weights):
    """Paddle's Linear layers in creation order.  Its unique names have gaps (linear_0, linear_2, ...),
    so they are sorted by number rather than guessed."""
    names = {k.split(".")[0] for k in weights if k.startswith("linear_") and k.endswith(".w_0")}
    return sorted(names, key=lambda n: int(n.split("_")[1]))


def copy_linear(layer, weights, prefix):
    import torch
    with torch.no_grad():  # Paddle stores W as [in, out], torch as [out, in]
        layer.weight.copy_(torch.from_numpy(weights[prefix + ".w_0"].T.copy()))
        layer.bias.copy_(torch.from_numpy(weights[prefix + ".b_0"]))
    return layer


class Model:
    """Defaults shared by the models: float feeds x and y, an MSE loss and torch's plain forward."""
    infer_input = "x"       # the feed an inference run takes
    runs = []

    def torch_batch(self, arrays):
        """One step's numpy rows -> (module input, loss target), converted before timing starts."""
        import torch
        return torch.from_numpy(arrays["x"]), torch.from_numpy(arrays["y"])

    def torch_loss(self):
        import torch
        return torch.nn.MSELoss()  # = paddle's mean(square_error_cost) and F.mse_loss

    def torch_predict(self, m, x):
        return m(x)


class FitALine(Model):
    name = "fit_a_line"
    runs = [Run("fit_a_line train step, batch 20", "train", 20, 2000)]

    def paddle_forward(self):
        """Builds the forward into the current program; returns (loss, inference output or None)."""
        import paddle
        import paddle.nn.functional as F
        x = paddle.static.data("x", [-1, 13], "float32")
        y = paddle.static.data("y", [-1, 1], "float32")
        return paddle.mean(F.square_error_cost(paddle.static.nn.fc(x, 1), y)), None

    def paddle_optimizer(self):
        import paddle
        return paddle.optimizer.SGD(learning_rate=0.001)

    def data(self, rows, rng):  # drawn in feed order, so a seed gives the same rows as before the split
        return {"x": rng.standard_normal((rows, 13)).astype(np.float32),
                "y": rng.standard_normal((rows, 1)).astype(np.float32)}

    def torch_module(self, weights):
        import torch
        return copy_linear(torch.nn.Linear(13, 1), weights, "fc_0")

    def torch_optimizer(self, params):
        import torch
        return torch.optim.SGD(params, lr=0.001)


class Mlp(Model):
    name = "mlp"
    layers = [(784, 512), (512, 256), (256, 10)]
    runs = [Run("MLP 784-512-256-10 train step, batch 64", "train", 64, 100),
            Run("MLP 784-512-256-10 train step, batch 512", "train", 512, 20,
                gemm_bound="MLP train step, batch 512"),
            Run("MLP inference, batch 1", "infer", 1, 2000, read_floor=True),
            Run("MLP inference, batch 256", "infer", 256, 100)]

    def paddle_forward(self):
        import paddle
        import paddle.nn.functional as F
        h = paddle.static.data("x", [-1, 784], "float32")
        label = paddle.static.data("label", [-1, 1], "int64")
        for n_in, n_out in self.layers[:-1]:
            h = F.relu(paddle.nn.Linear(n_in, n_out)(h))
        logits = paddle.nn.Linear(*self.layers[-1])(h)
        probs = F.softmax(logits)  # before the loss: the op order of the program measured so far
        return paddle.mean(F.cross_entropy(logits, label)), probs

    def paddle_optimizer(self):
        import paddle
        return paddle.optimizer.Adam(learning_rate=0.001)

    def data(self, rows, rng):
        return {"x": rng.standard_normal((rows, 784)).astype(np.float32),
                "label": rng.integers(0, 10, (rows, 1)).astype(np.int64)}

    def torch_module(self, weights):
        import torch
        linears = [torch.nn.Linear(i, o) for i, o in self.layers]
        for layer, prefix in zip(linears, linear_names(weights)):
            copy_linear(layer, weights, prefix)
        return torch.nn.Sequential(linears[0], torch.nn.ReLU(), linears[1], torch.nn.ReLU(), linears[2])

    def torch_batch(self, arrays):
        import torch  # CrossEntropyLoss wants class indices [N], Paddle's label is [N, 1]
        return torch.from_numpy(arrays["x"]), torch.from_numpy(arrays["label"][:, 0])

    def torch_loss(self):
        import torch
        return torch.nn.CrossEntropyLoss()

    def torch_optimizer(self, params):
        import torch
        return torch.optim.Adam(params, lr=0.001)

    def torch_predict(self, m, x):
        import torch
        return torch.softmax(m(x), -1)

    def weight_bytes(self):
        """Bytes of fp32 weights and biases one inference run reads."""
        return 4 * sum(i * o + o for i, o in self.layers)

    def gemm(self, batch):
        """(FLOPs of the GEMMs in one train step, the sgemm shape M, N, K to compare with): forward,
        weight gradients, and input gradients of layers 2-3 (the fed input needs none)."""
        flops = 2 * batch * (2 * sum(i * o for i, o in self.layers) + sum(i * o for i, o in self.layers[1:]))
        return flops, (batch, self.layers[0][1], self.layers[0][0])


class WhileRnn(Model):
    """A tanh RNN whose time loop is a Paddle while op (static.nn.while_loop), as tools/
    fixtures_control_flow.py's rnn_while but sized so the recurrence's GEMMs matter: T steps of D inputs,
    H hidden units.  h0 = tanh(x_0 @ w + b) is the zero-state first step (a loop var derived only from a
    feed is stop_gradient, and Paddle 2.6.2 then emits no while_grad); the loop var is assign(h0), not h0,
    because while_loop writes its vars in place and tanh_grad of h0 would read the final h."""
    name = "rnn"
    T, D, H = 16, 32, 128
    runs = [Run("while_loop RNN train step, batch 64", "train", 64, 100)]

    def paddle_forward(self):
        import paddle
        import paddle.nn.functional as F
        T, D, H = self.T, self.D, self.H
        x = paddle.static.data("x", [-1, T, D], "float32")
        y = paddle.static.data("y", [-1, 1], "float32")
        w = paddle.create_parameter([D, H], "float32", name="rnn_w")
        u = paddle.create_parameter([H, H], "float32", name="rnn_u")
        b = paddle.create_parameter([H], "float32", name="rnn_b", is_bias=True)
        h0 = paddle.tanh(paddle.matmul(paddle.reshape(paddle.slice(x, [1], [0], [1]), [-1, D]), w) + b)
        i, steps = paddle.full([1], 1, "int64"), paddle.full([1], T, "int64")

        def body(i, h):  # x_i sliced with tensor bounds (StartsTensorList/EndsTensorList)
            xt = paddle.reshape(paddle.slice(x, axes=[1], starts=[i], ends=[i + 1]), [-1, D])
            return [i + 1, paddle.tanh(paddle.matmul(xt, w) + paddle.matmul(h, u) + b)]

        _, h = paddle.static.nn.while_loop(lambda i, h: i < steps, body, [i, paddle.assign(h0)])
        return F.mse_loss(paddle.nn.Linear(H, 1)(h), y), None

    def paddle_optimizer(self):
        import paddle
        return paddle.optimizer.SGD(learning_rate=0.01)

    def data(self, rows, rng):
        return {"x": rng.standard_normal((rows, self.T, self.D)).astype(np.float32),
                "y": rng.standard_normal((rows, 1)).astype(np.float32)}

    def torch_module(self, weights):
        import torch
        H = self.H

        class Rnn(torch.nn.Module):  # the same recurrence, eager: one Python iteration per time step
            def __init__(self):
                super().__init__()
                # w, u keep Paddle's [in, out] layout: the step is x @ w as in the program
                self.w, self.u, self.b = (torch.nn.Parameter(torch.from_numpy(weights[n].copy()))
                                          for n in ("rnn_w", "rnn_u", "rnn_b"))
                self.out = copy_linear(torch.nn.Linear(H, 1), weights,
                                       linear_names(weights)[0])

            def forward(self, x):
                h = torch.tanh(x[:, 0] @ self.w + self.b)
                for t in range(1, x.shape[1]):
                    h = torch.tanh(x[:, t] @ self.w + h @ self.u + self.b)
                return self.out(h)
        return Rnn()

    def torch_optimizer(self, params):
        import torch
        return torch.optim.SGD(params, lr=0.01)


def copy_structured(module, layer, weights):
    """Copies Paddle's weights into a torch module whose submodules carry the Paddle layer's names
    (conv1, layer1.0.bn1, ...): the Paddle layer's state_dict maps each structured name to the program's
    variable (conv2d_3.w_0, ...).  Only the naming of BatchNorm's statistics and Linear's [in, out]
    layout differ between the two."""
    import torch
    var_of = {k: v.name for k, v in layer.state_dict().items()}
    with torch.no_grad():
        for mod_name, mod in module.named_modules():
            tensors = dict(mod.named_parameters(recurse=False)) | dict(mod.named_buffers(recurse=False))
            for name, t in tensors.items():
                if name == "num_batches_tracked":  # torch-only bookkeeping, unused with momentum set
                    continue
                key = ".".join(filter(None, [mod_name, {"running_mean": "_mean", "running_var": "_variance"}
                                                         .get(name, name)]))
                arr = weights[var_of[key]]
                if isinstance(mod, torch.nn.Linear) and name == "weight":
                    arr = arr.T
                t.copy_(torch.from_numpy(np.ascontiguousarray(arr)))
    return module


class ImageClassifier(Model):
    """A CNN on NCHW images with integer class labels: Paddle's layer is built once per program (its
    structured names are needed to copy weights into the torch module), the loss is the mean
    cross-entropy of the logits, and inference returns the logits."""
    shape = (3, 224, 224)   # one image, CHW
    classes = 1000

    def paddle_layer(self):
        raise NotImplementedError

    def torch_layer(self):
        raise NotImplementedError

    def paddle_forward(self):
        import paddle
        import paddle.nn.functional as F
        x = paddle.static.data("x", [-1, *self.shape], "float32")
        label = paddle.static.data("label", [-1, 1], "int64")
        self.layer = self.paddle_layer()  # kept for torch_module's name mapping
        logits = self.layer(x)
        return paddle.mean(F.cross_entropy(logits, label)), logits

    def paddle_optimizer(self):
        import paddle  # Momentum = torch's SGD with momentum (dampening 0): v = mu v + g, p -= lr v
        return paddle.optimizer.Momentum(learning_rate=0.01, momentum=0.9)

    def data(self, rows, rng):
        return {"x": rng.standard_normal((rows, *self.shape)).astype(np.float32),
                "label": rng.integers(0, self.classes, (rows, 1)).astype(np.int64)}

    def torch_module(self, weights):
        return copy_structured(self.torch_layer(), self.layer, weights)

    def torch_batch(self, arrays):
        import torch  # CrossEntropyLoss wants class indices [N], Paddle's label is [N, 1]
        return torch.from_numpy(arrays["x"]), torch.from_numpy(arrays["label"][:, 0])

    def torch_loss(self):
        import torch
        return torch.nn.CrossEntropyLoss()

    def torch_optimizer(self, params):
        import torch
        return torch.optim.SGD(params, lr=0.01, momentum=0.9)


def torch_conv_bn(c_in, c_out, k, stride=1, groups=1, act=None):
    """conv (no bias) + BatchNorm + optional activation as one Sequential: Paddle's ConvNormActivation,
    whose children are named 0, 1, 2 as here.  BatchNorm2d's defaults (momentum 0.1, eps 1e-5) are
    Paddle's BatchNorm2D defaults (momentum 0.9 on the other side of the average, eps 1e-5)."""
    import torch
    layers = [torch.nn.Conv2d(c_in, c_out, k, stride, (k - 1) // 2, groups=groups, bias=False),
              torch.nn.BatchNorm2d(c_out)]
    return torch.nn.Sequential(*layers, *([act()] if act else []))


class LeNet(ImageClassifier):
    """LeNet-5 on MNIST-shaped 28x28 images (the first conv pads by 2, standing in for the 32x32 input of
    the original), with ReLU and max pooling."""
    name = "lenet"
    shape = (1, 28, 28)
    classes = 10
    runs = [Run("LeNet-5 train step, batch 64", "train", 64, 20)]

    def paddle_layer(self):
        import paddle
        nn = paddle.nn
        return nn.Sequential(nn.Conv2D(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2D(2, 2),
                             nn.Conv2D(6, 16, 5), nn.ReLU(), nn.MaxPool2D(2, 2), nn.Flatten(),
                             nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))

    def torch_layer(self):
        import torch
        nn = torch.nn  # same children in the same positions: the names (0, 3, 7, ...) then match
        return nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2, 2),
                             nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
                             nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


class ResNet18(ImageClassifier):
    """paddle.vision.models.resnet18 (random weights), against a plain torch.nn ResNet-18 with the same
    module names.  Few repetitions: batch-32 inference is ~58 G multiply-adds per run, a batch-8 train
    step (forward and twice that backward) ~44 G.
    Three runs, not two, at batch 32: fluidc's --repeat reports the middle run, and of two that would be
    the slower, usually the cold first one, which the peers exclude as their warm-up."""
    name = "resnet18"
    runs = [Run("ResNet-18 inference, batch 1", "infer", 1, 10),
            Run("ResNet-18 inference, batch 32", "infer", 32, 3),
            Run("ResNet-18 train step, batch 8", "train", 8, 2)]

    def paddle_layer(self):
        import paddle
        return paddle.vision.models.resnet18()

    def torch_layer(self):
        import torch
        nn = torch.nn

        class Block(nn.Module):  # Paddle's BasicBlock: names conv1, bn1, conv2, bn2, downsample
            def __init__(self, c_in, c_out, stride):
                super().__init__()
                self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
                self.bn1 = nn.BatchNorm2d(c_out)
                self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
                self.bn2 = nn.BatchNorm2d(c_out)
                self.downsample = (torch_conv_bn(c_in, c_out, 1, stride)
                                   if stride != 1 or c_in != c_out else None)

            def forward(self, x):
                out = self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))
                return torch.relu(out + (self.downsample(x) if self.downsample is not None else x))

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
                self.bn1 = nn.BatchNorm2d(64)
                widths = [(64, 64, 1), (64, 128, 2), (128, 256, 2), (256, 512, 2)]
                for i, (c_in, c_out, s) in enumerate(widths, 1):
                    setattr(self, f"layer{i}", nn.Sequential(Block(c_in, c_out, s), Block(c_out, c_out, 1)))
                self.fc = nn.Linear(512, 1000)

            def forward(self, x):
                x = nn.functional.max_pool2d(torch.relu(self.bn1(self.conv1(x))), 3, 2, 1)
                x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
                return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))
        return Net()


class MobileNetV2(ImageClassifier):
    """paddle.vision.models.mobilenet_v2(scale=1.0) (random weights), against a plain torch.nn
    MobileNetV2 with the same module names (features.N.conv.M, classifier.1)."""
    name = "mobilenet_v2"
    # (expansion t, channels c, blocks n, first stride s): the paper's table, as in Paddle's model
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                (6, 160, 3, 2), (6, 320, 1, 1)]
    runs = [Run("MobileNetV2 inference, batch 1", "infer", 1, 10),
            Run("MobileNetV2 inference, batch 32", "infer", 32, 3)]

    def paddle_layer(self):
        import paddle
        return paddle.vision.models.mobilenet_v2(scale=1.0)

    def torch_layer(self):
        import torch
        nn = torch.nn

        class Inverted(nn.Module):
            def __init__(self, c_in, c_out, stride, t):
                super().__init__()
                hidden = c_in * t
                expand = [torch_conv_bn(c_in, hidden, 1, act=nn.ReLU6)] if t != 1 else []
                self.conv = nn.Sequential(*expand, torch_conv_bn(hidden, hidden, 3, stride, hidden, nn.ReLU6),
                                          nn.Conv2d(hidden, c_out, 1, bias=False), nn.BatchNorm2d(c_out))
                self.residual = stride == 1 and c_in == c_out

            def forward(self, x):
                return x + self.conv(x) if self.residual else self.conv(x)

        class Net(nn.Module):
            def __init__(self, settings):
                super().__init__()
                blocks, c_in = [torch_conv_bn(3, 32, 3, 2, act=nn.ReLU6)], 32
                for t, c, n, s in settings:
                    for i in range(n):
                        blocks.append(Inverted(c_in, c, s if i == 0 else 1, t))
                        c_in = c
                self.features = nn.Sequential(*blocks, torch_conv_bn(c_in, 1280, 1, act=nn.ReLU6))
                self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, 1000))

            def forward(self, x):
                x = nn.functional.adaptive_avg_pool2d(self.features(x), 1)
                return self.classifier(torch.flatten(x, 1))
        return Net(self.settings)


# BERT-tiny and an LSTM come next: each is one more class here (a Model subclass) and its entry below.
class BertTiny(Model):
    """The BERT-tiny-shaped encoder classifier of the e2e fixture bert_tiny (tools/fixtures_transformer_train.py):
    word + position embeddings, layer_norm, 2 post-norm encoder layers (d_model 128, 2 heads, feed-forward
    512, exact gelu, dropout 0), the first token -> Linear -> tanh -> Linear -> cross-entropy; SGD 0.01. The
    torch module mirrors the Paddle layer's structure and names, so copy_structured maps every weight."""
    name = "bert_tiny"
    vocab, seq, hidden, heads, ff, layers = 100, 64, 128, 2, 512, 2
    runs = [Run("BERT-tiny train step, batch 8", "train", 8, 20)]

    def paddle_forward(self):
        import paddle
        import paddle.nn.functional as F
        nn = paddle.nn
        ids = paddle.static.data("ids", [-1, self.seq], "int64")
        pos = paddle.static.data("pos", [-1, self.seq], "int64")
        label = paddle.static.data("label", [-1, 1], "int64")
        cfg = self

        class Bert(nn.Layer):
            def __init__(self):
                super().__init__()
                self.word, self.pos = nn.Embedding(cfg.vocab, cfg.hidden), nn.Embedding(cfg.seq, cfg.hidden)
                self.norm = nn.LayerNorm(cfg.hidden)
                layer = nn.TransformerEncoderLayer(cfg.hidden, cfg.heads, cfg.ff, dropout=0.0, activation="gelu")
                self.encoder = nn.TransformerEncoder(layer, cfg.layers)
                self.pooler, self.classifier = nn.Linear(cfg.hidden, cfg.hidden), nn.Linear(cfg.hidden, 2)

            def forward(self, ids, pos):
                h = self.encoder(self.norm(self.word(ids) + self.pos(pos)))
                cls = paddle.squeeze(paddle.slice(h, axes=[1], starts=[0], ends=[1]), axis=[1])
                return self.classifier(paddle.tanh(self.pooler(cls)))
        self.layer = Bert()  # kept for torch_module's name mapping
        return F.cross_entropy(self.layer(ids, pos), label), None

    def paddle_optimizer(self):
        import paddle
        return paddle.optimizer.SGD(learning_rate=0.01)

    def data(self, rows, rng):
        return {"ids": rng.integers(0, self.vocab, (rows, self.seq)).astype(np.int64),
                "pos": np.tile(np.arange(self.seq, dtype=np.int64), (rows, 1)),
                "label": rng.integers(0, 2, (rows, 1)).astype(np.int64)}

    def torch_module(self, weights):
        import torch
        nn, F, cfg = torch.nn, torch.nn.functional, self

        class Attention(nn.Module):  # Paddle's MultiHeadAttention: separate q, k, v projections
            def __init__(self):
                super().__init__()
                self.q_proj, self.k_proj, self.v_proj, self.out_proj = (nn.Linear(cfg.hidden, cfg.hidden)
                                                                        for _ in range(4))

            def forward(self, x):
                b, s, _ = x.shape
                split = lambda t: t.reshape(b, s, cfg.heads, -1).transpose(1, 2)  # noqa: E731
                q, k, v = split(self.q_proj(x)), split(self.k_proj(x)), split(self.v_proj(x))
                p = torch.softmax(q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5, dim=-1)
                return self.out_proj((p @ v).transpose(1, 2).reshape(b, s, -1))

        class EncoderLayer(nn.Module):  # post-norm, as Paddle's default normalize_before=False
            def __init__(self):
                super().__init__()
                self.self_attn = Attention()
                self.linear1, self.linear2 = nn.Linear(cfg.hidden, cfg.ff), nn.Linear(cfg.ff, cfg.hidden)
                self.norm1, self.norm2 = nn.LayerNorm(cfg.hidden), nn.LayerNorm(cfg.hidden)

            def forward(self, x):
                x = self.norm1(x + self.self_attn(x))
                return self.norm2(x + self.linear2(F.gelu(self.linear1(x))))

        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = nn.ModuleList(EncoderLayer() for _ in range(cfg.layers))

            def forward(self, x):
                for layer in self.layers:
                    x = layer(x)
                return x

        class Bert(nn.Module):
            def __init__(self):
                super().__init__()
                self.word, self.pos = nn.Embedding(cfg.vocab, cfg.hidden), nn.Embedding(cfg.seq, cfg.hidden)
                self.norm, self.encoder = nn.LayerNorm(cfg.hidden), Encoder()
                self.pooler, self.classifier = nn.Linear(cfg.hidden, cfg.hidden), nn.Linear(cfg.hidden, 2)

            def forward(self, inputs):
                ids, pos = inputs
                h = self.encoder(self.norm(self.word(ids) + self.pos(pos)))
                return self.classifier(torch.tanh(self.pooler(h[:, 0])))
        return copy_structured(Bert(), self.layer, weights)

    def torch_batch(self, arrays):
        import torch
        return (torch.from_numpy(arrays["ids"]), torch.from_numpy(arrays["pos"])), torch.from_numpy(arrays["label"][:, 0])

    def torch_loss(self):
        import torch
        return torch.nn.CrossEntropyLoss()

    def torch_optimizer(self, params):
        import torch
        return torch.optim.SGD(params, lr=0.01)


MODELS = [FitALine(), Mlp(), WhileRnn(), LeNet(), ResNet18(), MobileNetV2(), BertTiny()]
