"""Where a differential program's cold run spends its CPU: XLA compiles, their sizes, the rest.

Runs jwarp's side of programs under ``tests/differential/programs`` (real Warp is not run), each in
a fresh child process with an empty kernel cache, and prints per program: process CPU seconds, the
number of XLA compiles and their summed wall time, the largest compiles by name, and for jwarp's
kernel programs (the ahead-of-time compiles of ``kernel_compile.compile_program``) the number of
XLA fusions and of HLO instructions after optimisation. On XLA:CPU every fusion is compiled as an
LLVM module of its own (median ~34 ms each for ``decompose3`` of ``vecmath_decomp``), so the fusion
count is what a cold compile's time follows most closely.

``--option NAME=VALUE`` passes an XLA compile option to the kernel programs' compiles only (values
``true``/``false`` and integers are converted), to try one out, e.g.::

    python benchmarks/compile_profile.py vecmath_decomp grad_decompositions
    python benchmarks/compile_profile.py vecmath_decomp --option xla_cpu_use_fusion_emitters=false

Figures and what they showed: docs/performance.md ("Cold compile of the differential programs").
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, logging, os, re, sys, time
import jax
named = []
class _Compiles(logging.Handler):
    def emit(self, record):
        m = re.search(r"Finished XLA compilation of (.*) in ([0-9.e-]+) sec", record.getMessage())
        if m:
            named.append((float(m.group(2)), m.group(1)))
jax.config.update("jax_log_compiles", True)
for name in ("jax._src.dispatch", "jax._src.interpreters.pxla"):
    logging.getLogger(name).addHandler(_Compiles())
    logging.getLogger(name).propagate = False
import jwarp
import jwarp.compiler.kernel_compile as kc
options = json.loads(sys.argv[2])
kernels = []
from jwarp.compiler.emitters import compile_options
def compile_program(jitted, *args, jaxpr=None, level=None):
    chosen = dict(compile_options(jaxpr, args, level) or {}, **options)
    with jax.enable_x64(True):
        lowered = jitted.lower(*args)
        compiled = lowered.compile(compiler_options=chosen) if chosen else lowered.compile()
    text = compiled.as_text() or ""
    entry = text[text.find("\nENTRY"):]
    kernels.append((entry.count(" fusion("), sum(1 for line in text.splitlines() if " = " in line)))
    return compiled
kc.compile_program = compile_program
from pathlib import Path
from tests.differential.harness import load_program
start = time.process_time()
load_program(Path(sys.argv[1]), jwarp, "jwarp").run()
print(json.dumps({"cpu": time.process_time() - start, "compiles": named, "kernels": kernels}))
"""


def _value(text: str):
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return int(text)
    except ValueError:
        return text


def profile(program: Path, options: dict) -> dict:
    """One cold run of ``program``'s jwarp side in a child process; its figures."""
    env = dict(os.environ, JWARP_CACHE_PATH=tempfile.mkdtemp(prefix="jwarp_profile_"), JAX_PLATFORMS="cpu")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, "-c", _CHILD, str(program), json.dumps(options)], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{program.stem} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("programs", nargs="+", help="program names (file stems under tests/differential/programs)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="XLA compile option for the kernel programs (repeatable)")
    parser.add_argument("--top", type=int, default=5, help="how many of the largest compiles to list")
    args = parser.parse_args()
    options = dict((k, _value(v)) for k, v in (o.split("=", 1) for o in args.option))
    for name in args.programs:
        r = profile(ROOT / "tests" / "differential" / "programs" / f"{name}.py", options)
        compiles = sorted(r["compiles"], reverse=True)
        fusions = sum(k[0] for k in r["kernels"])
        instructions = sum(k[1] for k in r["kernels"])
        print(f"{name}: cpu {r['cpu']:.1f} s, {len(compiles)} XLA compiles {sum(c[0] for c in compiles):.1f} s; "
              f"{len(r['kernels'])} kernel programs: {fusions} fusions, {instructions} HLO instructions")
        print("   largest: " + ", ".join(f"{n} {s:.2f} s" for s, n in compiles[: args.top]))


if __name__ == "__main__":
    main()
