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


MODELS = [FitALine(), Mlp(), WhileRnn()]
