"""``wp.optim.Adam``: Adam updates as jwarp kernels, with Warp's arithmetic step by step.

Each step updates the moments ``m = b1*m + (1-b1)*g`` and ``v = b2*v + (1-b2)*g*g``, corrects
their bias with ``1 - b^(t+1)`` and moves ``params -= lr * m_hat / (sqrt(v_hat) + eps)``, all in
float32 (float16 parameters keep float32 moments; vec3 parameters update per component).
Launches are ordinary jwarp launches: asynchronous, and recorded on an active ``wp.Tape``.
"""

from __future__ import annotations

from typing import Any

import jwarp as wp
from jwarp.lang.arrays import type_name


@wp.kernel
def _adam_float(grad: wp.array(dtype=float), m: wp.array(dtype=float), v: wp.array(dtype=float), lr: float,
                beta1: float, beta2: float, t: float, eps: float, params: wp.array(dtype=float)):
    i = wp.tid()
    g = grad[i]
    m[i] = beta1 * m[i] + (1.0 - beta1) * g
    v[i] = beta2 * v[i] + (1.0 - beta2) * g * g
    m_hat = m[i] / (1.0 - wp.pow(beta1, (t + 1.0)))
    v_hat = v[i] / (1.0 - wp.pow(beta2, (t + 1.0)))
    params[i] = params[i] - lr * m_hat / (wp.sqrt(v_hat) + eps)


@wp.kernel
def _adam_half(grad: wp.array(dtype=wp.float16), m: wp.array(dtype=float), v: wp.array(dtype=float), lr: float,
               beta1: float, beta2: float, t: float, eps: float, params: wp.array(dtype=wp.float16)):
    i = wp.tid()
    g = float(grad[i])
    m[i] = beta1 * m[i] + (1.0 - beta1) * g
    v[i] = beta2 * v[i] + (1.0 - beta2) * g * g
    m_hat = m[i] / (1.0 - wp.pow(beta1, (t + 1.0)))
    v_hat = v[i] / (1.0 - wp.pow(beta2, (t + 1.0)))
    params[i] = params[i] - wp.float16(lr * m_hat / (wp.sqrt(v_hat) + eps))


@wp.kernel
def _adam_vec3(grad: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), lr: float,
               beta1: float, beta2: float, t: float, eps: float, params: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    g = grad[i]
    m[i] = beta1 * m[i] + (1.0 - beta1) * g
    v[i] = beta2 * v[i] + (1.0 - beta2) * wp.cw_mul(g, g)
    m_hat = m[i] / (1.0 - wp.pow(beta1, (t + 1.0)))
    v_hat = v[i] / (1.0 - wp.pow(beta2, (t + 1.0)))
    root = wp.vec3(wp.sqrt(v_hat[0]), wp.sqrt(v_hat[1]), wp.sqrt(v_hat[2]))
    params[i] = params[i] - lr * wp.cw_div(m_hat, root + wp.vec3(eps, eps, eps))


_KERNELS = {wp.float32: _adam_float, wp.float16: _adam_half, wp.vec3: _adam_vec3}
_MOMENT_DTYPES = {wp.float32: wp.float32, wp.float16: wp.float32, wp.vec3: wp.vec3}


class Adam:
    """Adam optimizer (Warp's ``warp.optim.Adam``): ``params`` is a list of float32, float16 or
    vec3 arrays, updated in place by :meth:`step` from a matching list of gradient arrays."""

    def __init__(self, params: list | None = None, lr: float = 0.001, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-08):
        self.m: list = []
        self.v: list = []
        self.set_params(params)
        self.lr = lr
        self.beta1, self.beta2 = betas[0], betas[1]
        self.eps = eps
        self.t = 0

    def set_params(self, params: list | None) -> None:
        """Set the arrays to optimise; moment buffers are (re)allocated where shape, dtype or
        device no longer match."""
        self.params = params
        if not (isinstance(params, list) and params):
            return
        if len(self.m) != len(params):
            self.m = [None] * len(params)
        if len(self.v) != len(params):
            self.v = [None] * len(params)
        for i, param in enumerate(params):
            dtype = _MOMENT_DTYPES.get(param.dtype)
            if dtype is None:
                raise RuntimeError(f"Unsupported dtype for Warp Adam optimizer: {param.dtype}")
            self.m[i] = _moment_for(self.m[i], param, dtype)
            self.v[i] = _moment_for(self.v[i], param, dtype)

    def reset_internal_state(self) -> None:
        """Zero the moments and the step counter."""
        for buffer in self.m + self.v:
            buffer.zero_()
        self.t = 0

    def step(self, grad: list) -> None:
        """Apply one update to every parameter array from ``grad`` (same order)."""
        if self.params is None:
            raise RuntimeError("Adam parameters must be set before calling step(), got None")
        for i, param in enumerate(self.params):
            Adam.step_detail(grad[i], self.m[i], self.v[i], self.lr, self.beta1, self.beta2, self.t, self.eps,
                             param)
        self.t = self.t + 1

    @staticmethod
    def step_detail(g: Any, m: Any, v: Any, lr: float, beta1: float, beta2: float, t: float, eps: float,
                    params: Any) -> None:
        """One Adam update of a single parameter array."""
        if params.dtype != g.dtype:
            raise TypeError(f"Adam gradient dtype must match parameter dtype {type_name(params.dtype)}, "
                            f"got {type_name(g.dtype)}")
        if params.shape != g.shape:
            raise ValueError(f"Adam gradient shape must match parameter shape {params.shape}, got {g.shape}")
        kernel = _KERNELS.get(params.dtype)
        if kernel is None:
            raise RuntimeError("Params data type not supported in Adam step kernels.")
        wp.launch(kernel, dim=len(params), inputs=[g, m, v, lr, beta1, beta2, float(t), eps, params],
                  device=params.device)


def _moment_for(buffer: Any, param: Any, dtype: Any) -> Any:
    if buffer is None or buffer.shape != param.shape or buffer.dtype != dtype:
        return wp.zeros(shape=param.shape, dtype=dtype, device=param.device)
    if buffer.device != param.device:
        return buffer.to(param.device)
    return buffer
