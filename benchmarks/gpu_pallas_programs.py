"""On a GPU: each Triton-eligible differential program with ``wp.config.pallas = "always"`` (Triton
kernels) against the XLA path (``"never"``) on ``cuda:0``; one line per program and a total.

Usage (on a machine with a CUDA JAX): ``python benchmarks/gpu_pallas_programs.py [--programs REGEX]``
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import jwarp  # noqa: E402
from tests.differential.harness import PROGRAMS, _as_numpy, compare, load_program  # noqa: E402
from tests.differential.pallas_programs import TRITON_ONLY_PROGRAMS, TRITON_PROGRAMS  # noqa: E402


def run(name: str, mode: str, tag: str) -> tuple:
    jwarp.config.pallas = mode
    module = load_program(PROGRAMS / f"{name}.py", jwarp, tag)
    return module, _as_numpy(module.run())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--programs", default="")
    args = parser.parse_args()
    names = [n for n in TRITON_PROGRAMS + TRITON_ONLY_PROGRAMS
             if re.search(args.programs, n) and n != "launch_memory_chunks"]
    print("devices:", jwarp.get_cuda_device_count(), jwarp.get_device(), flush=True)
    ok = 0
    for name in names:
        t0 = time.time()
        try:
            module, xla = run(name, "never", "xla")
            _, pallas = run(name, "always", "pallas")
            compare(xla, pallas, getattr(module, "RTOL", 1e-5), getattr(module, "ATOL", 1e-6),
                    getattr(module, "TOLERANCE", {}), name)
            ok += 1
            print(f"OK    {name:40s} {time.time() - t0:6.1f}s", flush=True)
        except Exception as exc:  # noqa: BLE001 - reported per program
            text = "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()
            print(f"FAIL  {name:40s} {time.time() - t0:6.1f}s {' | '.join(text[:3])[:400]}", flush=True)
    print(f"\n{ok} of {len(names)} programs: Pallas (Triton) results equal the XLA path's on the GPU")


if __name__ == "__main__":
    main()
