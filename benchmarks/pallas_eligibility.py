"""Which kernels of the differential programs can take the Pallas path, per backend (no GPU needed).

Each program under ``tests/differential/programs/`` runs once on the XLA path; every kernel launch it
makes is also lowered for the CUDA platform through Pallas → Triton (the lowering needs no GPU), and the
survey records whether it became a Triton kernel or, if not, the first construct that stops it (the
reason ``wp.config.pallas = "always"`` would raise with). Tile kernels are listed apart (they keep
the XLA path). Prints one line per program and a total; ``--json`` writes the table.

Usage: ``python benchmarks/pallas_eligibility.py [--programs REGEX] [--json out.json]``
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

import jwarp  # noqa: E402
from jwarp.compiler.pallas_lower import lower_for_cuda_platform  # noqa: E402
from jwarp.runtime import preparation  # noqa: E402
from jwarp.runtime.pallas_select import CUDA_BLOCK_DIM, triton_plan  # noqa: E402
from tests.differential.harness import PROGRAMS, load_program  # noqa: E402


def _first_line(exc: BaseException) -> str:
    """The reason, without the kernel's name and the advice (so equal reasons group)."""
    text = str(exc).strip().splitlines()
    line = text[0] if text else type(exc).__name__
    line = re.sub(r"^Kernel '[^']*' cannot run on the Pallas path \([a-z]+ backend\): ", "", line)
    return re.split(r"\. With pallas=|\(Error while parsing", line)[0].strip()[:120]


def _uses_tiles(source) -> bool:
    """Whether a kernel calls tile builtins (tile kernels keep the XLA path)."""
    for node in ast.walk(source.tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name.startswith("tile") or name == "untile":
                return True
    return False


def survey(name: str) -> dict:
    """``{kernel: "triton" | "tiles" | reason}`` for every kernel one program launches."""
    kernels: dict[str, str] = {}
    compile_kernel = preparation.compile_kernel

    def compile_and_lower(source, arg_names, sig, example_args):
        compiled = compile_kernel(source, arg_names, sig, example_args)
        if source.name in kernels:
            return compiled
        if _uses_tiles(source):
            kernels[source.name] = "tiles (XLA path)"
            return compiled
        try:
            text = lower_for_cuda_platform(source, arg_names, sig, triton_plan(CUDA_BLOCK_DIM, 0),
                                           list(example_args))
            # mode "always" raises for an ineligible kernel: a lowering without a Triton kernel means the
            # pallas_call had no outputs (the kernel writes no array) and was dropped
            kernels[source.name] = "triton" if "xla.gpu.triton" in text else "nothing to run (writes no array)"
        except Exception as exc:  # the reason the kernel is not eligible
            kernels[source.name] = _first_line(exc)
        return compiled

    preparation.compile_kernel = compile_and_lower
    try:
        load_program(PROGRAMS / f"{name}.py", jwarp, f"jwarp_survey_{name}").run()
    except Exception as exc:
        kernels.setdefault("<program>", "program failed: " + _first_line(exc))
    finally:
        preparation.compile_kernel = compile_kernel
    return kernels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", default="", help="regex on program names")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    names = sorted(p.stem for p in PROGRAMS.glob("*.py") if not p.stem.startswith("_"))
    names = [n for n in names if re.search(args.programs, n)]
    table, whole, total, eligible = {}, 0, 0, 0
    for name in names:
        try:
            kernels = survey(name)
        except Exception:
            traceback.print_exc()
            continue
        table[name] = kernels
        ok = sum(v == "triton" for v in kernels.values())
        total += len(kernels)
        eligible += ok
        whole += bool(kernels) and ok == len(kernels)
        reasons = sorted({v for v in kernels.values() if v != "triton"})
        print(f"{name:45s} {ok:3d}/{len(kernels):<3d} {'; '.join(reasons)[:150]}", flush=True)
    reasons: dict[str, int] = {}
    for kernels in table.values():
        for v in kernels.values():
            if v != "triton":
                reasons[v] = reasons.get(v, 0) + 1
    print("\nkernels not lowered, by reason:")
    for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
        print(f"  {n:4d}  {reason}")
    print(f"\nkernels lowered to Triton: {eligible} of {total}; programs with every kernel eligible: "
          f"{whole} of {len(table)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(table, f, indent=1)


if __name__ == "__main__":
    main()
