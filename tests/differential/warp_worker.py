"""A child interpreter that runs differential programs with real Warp, one request at a time.

The differential test sends a program's path, runs jwarp's side meanwhile, then reads real Warp's
results: the two sides run at the same time on two cores (most of each side is compiling: clang for
Warp, XLA for jwarp). One worker serves a whole test session (Warp is imported once).

Protocol (``python -m tests.differential.warp_worker``): requests on stdin and replies on the
worker's original stdout, each a 8-byte little-endian length and a pickle. A request is a path; the
reply is ``(True, results as numpy values)`` or ``(False, exception)``. Whatever the programs print
goes to stderr.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys
from pathlib import Path
from typing import Any, BinaryIO


def send(stream: BinaryIO, obj: Any) -> None:
    data = pickle.dumps(obj)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def receive(stream: BinaryIO) -> Any:
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError("the Warp worker closed its pipe")
    (size,) = struct.unpack("<Q", head)
    return pickle.loads(stream.read(size))


def _picklable_error(exc: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001 - an exception type that does not pickle
        return RuntimeError(f"{type(exc).__name__}: {exc}")


def main() -> None:
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # programs' prints must not mix with the replies
    sys.stdout = sys.stderr
    requests = sys.stdin.buffer
    from tests.differential.harness import _as_numpy, load_program, real_warp

    warp = real_warp()
    while True:
        try:
            number, path = receive(requests)
        except EOFError:
            return
        known = set(_user_modules(warp))
        try:
            reply = (number, True, _as_numpy(load_program(Path(path), warp, "warp").run()))
        except BaseException as exc:  # noqa: BLE001 - sent to the test, which re-raises it
            reply = (number, False, _picklable_error(exc))
        send(replies, reply)
        _forget_programs(warp, known, path)


def _user_modules(warp: Any) -> dict:
    """Real Warp's registry of user modules (every module holding kernels, unique modules included)."""
    return getattr(getattr(getattr(warp, "_src", None), "context", None), "user_modules", None) or {}


def _forget_programs(warp: Any, known: set, path: str) -> None:
    """Unregister the Warp modules the program at ``path`` added (its module, and the unique modules of
    its kernels; Warp's own modules made meanwhile, e.g. by ``wp.map``, stay): real Warp keeps every
    user module, and ``wp.force_load()`` in a later program would build them all, an expected-error
    kernel included."""
    for name in [n for n in sys.modules if n.startswith("jwarp_prog_")]:
        del sys.modules[name]
    registry = _user_modules(warp)
    for name in [n for n in registry if n not in known]:
        if name.startswith("jwarp_prog_") or any(_defined_in(k, path) for k in getattr(registry[name], "_get_live_kernels", list)()):
            del registry[name]


def _defined_in(kernel: Any, path: str) -> bool:
    code = getattr(getattr(kernel, "func", None), "__code__", None)
    return code is not None and os.path.abspath(code.co_filename) == os.path.abspath(path)


if __name__ == "__main__":
    main()
