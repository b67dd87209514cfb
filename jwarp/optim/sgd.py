"""``wp.optim.SGD``: stochastic gradient descent with momentum, dampening, weight decay and
Nesterov momentum, as one generic jwarp kernel with Warp's update order:

``g += weight_decay * p``; with momentum ``b = g`` on the first step, else
``b = momentum*b + (1-dampening)*g``, then ``g += momentum*b`` (Nesterov) or ``g = b``;
finally ``p -= lr * g``.
"""

from __future__ import annotations

from typing import Any

import jwarp as wp
from jwarp.lang.arrays import type_name


@wp.kernel
def _sgd_step(grad: wp.array(dtype=Any), b: wp.array(dtype=Any), lr: float, momentum: float, dampening: float,
              weight_decay: float, nesterov: int, t: int, params: wp.array(dtype=Any)):
    i = wp.tid()
    g = grad[i]
    if weight_decay != 0.0:
        g += weight_decay * params[i]
    if momentum != 0.0:
        bt = b[i]
        if t > 0:
            bt = momentum * bt + (1.0 - dampening) * g
        else:
            bt = g
        if nesterov == 1:
            g += momentum * bt
        else:
            g = bt
        b[i] = bt
    params[i] = params[i] - lr * g


class SGD:
    """SGD optimizer (Warp's ``warp.optim.SGD``): ``params`` is a list of float arrays (scalar or
    composite dtypes), updated in place by :meth:`step` from a matching list of gradients."""

    def __init__(self, params: list | None = None, lr: float = 0.001, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False):
        self.b: list = []
        self.set_params(params)
        self.lr = lr
        self.momentum = momentum
        self.dampening = dampening
        self.weight_decay = weight_decay
        self.nesterov = nesterov
        self.t = 0

    def set_params(self, params: list | None) -> None:
        """Set the arrays to optimise; momentum buffers are (re)allocated where shape or dtype
        no longer match, and moved where the device changed."""
        self.params = params
        if not (isinstance(params, list) and params):
            return
        if len(self.b) != len(params):
            self.b = [None] * len(params)
        for i, param in enumerate(params):
            buffer = self.b[i]
            if buffer is None or buffer.shape != param.shape or buffer.dtype != param.dtype:
                self.b[i] = wp.zeros_like(param)
            elif buffer.device != param.device:
                self.b[i] = buffer.to(param.device)

    def reset_internal_state(self) -> None:
        """Zero the momentum buffers and the step counter."""
        for buffer in self.b:
            buffer.zero_()
        self.t = 0

    def step(self, grad: list) -> None:
        """Apply one update to every parameter array from ``grad`` (same order)."""
        if self.params is None:
            raise RuntimeError("SGD parameters must be set before calling step(), got None")
        for i, param in enumerate(self.params):
            SGD.step_detail(grad[i], self.b[i], self.lr, self.momentum, self.dampening, self.weight_decay,
                            self.nesterov, self.t, param)
        self.t = self.t + 1

    @staticmethod
    def step_detail(g: Any, b: Any, lr: float, momentum: float, dampening: float, weight_decay: float,
                    nesterov: bool, t: int, params: Any) -> None:
        """One SGD update of a single parameter array."""
        if params.dtype != g.dtype:
            raise TypeError(f"SGD gradient dtype must match parameter dtype {type_name(params.dtype)}, "
                            f"got {type_name(g.dtype)}")
        if params.dtype != b.dtype:
            raise TypeError(f"SGD momentum buffer dtype must match parameter dtype {type_name(params.dtype)}, "
                            f"got {type_name(b.dtype)}")
        if params.shape != g.shape:
            raise ValueError(f"SGD gradient shape must match parameter shape {params.shape}, got {g.shape}")
        wp.launch(_sgd_step, dim=len(params),
                  inputs=[g, b, lr, momentum, dampening, weight_decay, int(nesterov), t, params],
                  device=params.device)
