"""``Launch`` objects (``wp.launch(..., record_cmd=True)``): a launch bound to its arguments,
ready to be dispatched again with the lowest overhead jwarp offers.

Parameters can be changed (``set_param_at_index``, ``set_param_by_name``, ``set_params``,
``set_dim``); the next ``launch()`` re-validates only what changed. As in Warp, Launch
objects are not recorded on a Tape.
"""

from __future__ import annotations

from typing import Any, Sequence

from jwarp.runtime.device import Device


class Launch:
    """A recorded kernel launch (Warp's ``wp.Launch``)."""

    def __init__(self, kernel: Any, device: Device, prepared: Any = None, args: Sequence = (), dim: tuple = (),
                 block_dim: int = 1, max_blocks: int = 0, adjoint: bool = False, adj_args: Sequence = ()):
        self.kernel = kernel
        self.device = device
        self.args = list(args)
        self.dim = tuple(dim)
        self.block_dim = block_dim
        self.max_blocks = max_blocks
        self.adjoint = adjoint
        self.adj_args = list(adj_args)
        self._prepared = prepared

    def _prepare(self):
        if self._prepared is None:
            from jwarp.runtime.launch import prepare

            self._prepared = prepare(self.kernel, self.dim, self.args, self.device, self.block_dim, self.max_blocks)
        return self._prepared

    def launch(self, stream: Any = None) -> None:
        """Run the recorded launch with its current parameters."""
        if self.adjoint:
            from jwarp.runtime.adjoint import adjoint_launch

            adjoint_launch(self.kernel, self.dim, self.args, self.adj_args, self.device, self.block_dim, False)
            return
        self._prepare().run(record_tape=False)

    def _index(self, name: str) -> int:
        try:
            return self.kernel.arg_names.index(name)
        except ValueError:
            raise ValueError(f"Argument '{name}' not found in kernel '{self.kernel.key}'") from None

    def set_param_at_index(self, index: int, value: Any, adjoint: bool = False) -> None:
        n = len(self.kernel.arg_names)
        if not 0 <= index < n:
            raise IndexError(f"Parameter index {index} is out of range for kernel '{self.kernel.key}' ({n} params)")
        target = self.adj_args if adjoint else self.args
        if adjoint and len(target) < n:
            target.extend([None] * (n - len(target)))
        old = target[index]
        target[index] = value
        try:
            if not adjoint:
                from jwarp.runtime.binding import bind_arguments

                bind_arguments(self.kernel, self.args, self.device)
        except Exception:
            target[index] = old
            raise
        self._prepared = None

    def set_param_by_name(self, name: str, value: Any, adjoint: bool = False) -> None:
        self.set_param_at_index(self._index(name), value, adjoint)

    def set_params(self, values: Sequence) -> None:
        for i, v in enumerate(values):
            self.set_param_at_index(i, v)

    def set_param_at_index_from_ctype(self, index: int, value: Any) -> None:
        self.set_param_at_index(index, value)

    def set_param_by_name_from_ctype(self, name: str, value: Any) -> None:
        self.set_param_by_name(name, value)

    def set_params_from_ctypes(self, values: Sequence) -> None:
        self.set_params(values)

    def set_dim(self, dim: Any) -> None:
        from jwarp.runtime.launch import normalize_dim

        self.dim, _ = normalize_dim(dim)
        self._prepared = None
