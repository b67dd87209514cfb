"""Run one of Warp's shipped examples in this process and save the arrays it ends with.

    python -m tests.warp_examples.driver IMPL EXAMPLE_PATH OUT.npz CALLS_JSON [KWARGS_JSON]

IMPL is ``warp`` (real Warp) or ``jwarp`` (jwarp standing in for ``warp`` through
``jwarp.as_warp``: the example's source runs unchanged). The example module is imported (its
``__main__`` block does not run), ``Example(**KWARGS)`` is built on the CPU, the methods named in
CALLS_JSON are called in order, and every ``warp.array`` attribute of the example is saved.
``$JWARP_EXAMPLE_OPT_LEVEL``, where set to an integer, is the ``optimization_level`` both libraries
compile the example's kernels at (``wp.config.optimization_level``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys

import numpy as np


def main(impl: str, path: str, out: str, calls: list[str], kwargs: dict) -> None:
    if impl == "jwarp":
        import jwarp.as_warp

        jwarp.as_warp.alias_warp()
    import warp as wp

    wp.config.quiet = True
    level = os.environ.get("JWARP_EXAMPLE_OPT_LEVEL", "")
    if level.isdigit():
        wp.config.optimization_level = int(level)
    spec = importlib.util.spec_from_file_location("warp_example_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with wp.ScopedDevice("cpu"):
        example = module.Example(**kwargs)
        for name in calls:
            getattr(example, name)()
        wp.synchronize()
    arrays = {name: value.numpy() for name, value in vars(example).items() if isinstance(value, wp.array)}
    np.savez(out, **arrays)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4]),
         json.loads(sys.argv[5]) if len(sys.argv) > 5 else {})
