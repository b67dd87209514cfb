"""Process-level entry points: ``wp.init``, ``wp.constant``, version information."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
version = __version__


def init() -> None:
    """Initialise jwarp (idempotent; jax initialises lazily, so there is nothing to do)."""


def constant(x: Any) -> Any:
    """Mark a global as a kernel constant (``wp.constant``); returns ``x`` unchanged."""
    return x
