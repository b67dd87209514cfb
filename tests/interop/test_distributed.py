"""Past one process (jwarp.distributed): the diffusion example sharded over two processes joined by
jax.distributed (CPU collectives: gloo), and over two XLA host devices of one process. Each run is
checked against the unsharded run in this process, a float64 numpy model with finite differences,
and the Warp-style model under wp.Tape. Subprocesses run under a timeout and are killed on expiry."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import jwarp.distributed as wpd

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = Path(__file__).with_name("distributed_program.py")
NY, NX, STEPS, ALPHA = 24, 10, 6, 0.2
TIMEOUT = 150


def _model():
    spec = importlib.util.spec_from_file_location("distributed_diffusion", ROOT / "examples" / "distributed_diffusion.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _env(**extra) -> dict:
    env = dict(os.environ, JAX_PLATFORMS="cpu", **extra)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    for name in (wpd.COORDINATOR_ENV, wpd.NUM_PROCESSES_ENV, wpd.PROCESS_ID_ENV):
        env.pop(name, None)
    return env


def _numpy_run(u0: np.ndarray, alpha: float, steps: int) -> np.ndarray:
    u = u0.astype(np.float64)
    for _ in range(steps):
        lap = np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1) - 4 * u
        u = u + alpha * lap
    return u


@pytest.fixture(scope="module")
def references():
    """The unsharded jwarp run, the float64 numpy model, and wp.Tape's gradient."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh

    model = _model()
    u0 = model.initial_field(NY, NX)
    mesh = Mesh(np.array(jax.devices()[:1]), (model.ROWS,))  # one device: no halo crosses a shard
    loss, (grad_u0, grad_alpha) = model.loss_and_grads(mesh, STEPS)(jnp.asarray(u0), jnp.float32(ALPHA))
    tape_u, tape_loss, tape_grad = model.tape_reference(u0, ALPHA, STEPS)
    return dict(model=model, u0=u0, single=dict(u_final=np.asarray(model.simulation(mesh, STEPS)(u0, jnp.float32(ALPHA))),
                                              loss=float(loss), grad_u0=np.asarray(grad_u0), grad_alpha=float(grad_alpha)),
                tape=dict(u_final=tape_u, loss=tape_loss, grad_u0=tape_grad))


def _check(result, references) -> None:
    u0, single, tape = references["u0"], references["single"], references["tape"]
    # the same numbers as the unsharded run of the same code
    np.testing.assert_allclose(result["u_final"], single["u_final"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(float(result["loss"]), single["loss"], rtol=1e-5)
    np.testing.assert_allclose(result["grad_u0"], single["grad_u0"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(float(result["grad_alpha"]), single["grad_alpha"], rtol=1e-4)
    # forward: the float64 numpy model
    exact = _numpy_run(u0, ALPHA, STEPS)
    np.testing.assert_allclose(result["u_final"], exact, rtol=1e-5, atol=1e-5)
    # d loss / d u0: wp.Tape (Warp-style launches, adjoint kernels) and a float64 directional difference
    np.testing.assert_allclose(result["grad_u0"], tape["grad_u0"], rtol=1e-4, atol=1e-4)
    direction = np.random.default_rng(1).standard_normal(u0.shape)
    eps = 1e-3
    plus = np.sum(_numpy_run(u0 + eps * direction, ALPHA, STEPS) ** 2)
    minus = np.sum(_numpy_run(u0 - eps * direction, ALPHA, STEPS) ** 2)
    np.testing.assert_allclose(np.sum(result["grad_u0"] * direction), (plus - minus) / (2 * eps), rtol=1e-4)
    # d loss / d alpha (a traced scalar, summed over every shard): float64 central difference
    h = 1e-4
    fd_alpha = (np.sum(_numpy_run(u0, ALPHA + h, STEPS) ** 2) - np.sum(_numpy_run(u0, ALPHA - h, STEPS) ** 2)) / (2 * h)
    np.testing.assert_allclose(float(result["grad_alpha"]), fd_alpha, rtol=1e-4)
    # a width-2 non-periodic halo exchange: each block gets its neighbours' rows, zeros past the ends
    rows = np.arange(NY * 3, dtype=np.float32).reshape(NY, 3)
    blocks = np.split(rows, int(result["devices"]))
    expected = []
    for k, block in enumerate(blocks):
        before = blocks[k - 1][-2:] if k > 0 else np.zeros((2, 3), np.float32)
        after = blocks[k + 1][:2] if k + 1 < len(blocks) else np.zeros((2, 3), np.float32)
        expected.append(np.concatenate([before, block, after]))
    np.testing.assert_array_equal(result["padded"], np.concatenate(expected))


def _args(out: Path) -> list[str]:
    return [str(PROGRAM), str(out), str(NY), str(NX), str(STEPS), str(ALPHA)]


def test_two_processes_with_cpu_collectives(tmp_path, references):
    out = tmp_path / "two_processes.npz"
    results = wpd.launch_local(_args(out), 2, timeout=TIMEOUT, env=_env())
    for r in results:
        assert r.returncode == 0, f"process {r.process_id} failed:\n{r.stderr[-3000:]}"
    result = np.load(out)
    assert int(result["processes"]) == 2 and int(result["devices"]) == 2
    assert list(result["local_rows"]) == [NY // 2]  # each process holds half the rows
    _check(result, references)


def test_two_devices_in_one_process(tmp_path, references):
    out = tmp_path / "two_devices.npz"
    env = _env(XLA_FLAGS="--xla_force_host_platform_device_count=2")
    proc = subprocess.run([sys.executable, *_args(out)], env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = np.load(out)
    assert int(result["processes"]) == 1 and int(result["devices"]) == 2
    assert list(result["local_rows"]) == [NY // 2, NY // 2]
    _check(result, references)


def test_launch_local_kills_every_process_on_timeout():
    with pytest.raises(TimeoutError, match="not finished after 1"):
        wpd.launch_local(["-c", "import time; time.sleep(120)"], 2, timeout=1, env=_env())


def test_launch_local_stops_the_others_when_one_fails():
    code = "import os, sys, time; pid = int(os.environ['JWARP_PROCESS_ID']); sys.exit(3) if pid == 1 else time.sleep(120)"
    results = wpd.launch_local(["-c", code], 2, timeout=60, env=_env())
    assert results[1].returncode == 3
    assert results[0].returncode != 0  # stopped rather than left waiting


def test_mesh_and_halo_exchange_arguments_are_checked():
    with pytest.raises(ValueError, match="holds 3 devices"):
        wpd.mesh(("a",), shape=(3,))
    with pytest.raises(ValueError, match="differ in length"):
        wpd.mesh(("a", "b"), shape=(1,))
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    mesh = wpd.mesh(("a",), shape=(len(jax.devices()),))
    with pytest.raises(ValueError, match="fewer than the halo width 3"):
        jax.shard_map(lambda b: wpd.halo_exchange(b, "a", 3), mesh=mesh, in_specs=P("a"), out_specs=P("a"))(
            jnp.zeros((2 * len(jax.devices()), 4)))


_DEVICE_LOOKUP = """
import jax
import jwarp as wp
import jwarp.distributed as wpd
wpd.initialize()
rank = jax.process_index()
assert len(jax.devices()) == 2 and len(jax.local_devices()) == 1
assert wp.device_to_jax("cpu").process_index == rank, wp.device_to_jax("cpu")
assert wp.get_device(jax.local_devices()[0]) is wp.get_device("cpu")
other = next(d for d in jax.devices() if d.process_index != rank)
try:
    wp.get_device(other)
except RuntimeError as exc:
    assert f"belongs to process {other.process_index}" in str(exc), exc
else:
    raise AssertionError("a device of the other process was accepted")
x = wp.array([1.0, 2.0], dtype=float)
assert x.device.jax_device.process_index == rank
jax.distributed.shutdown()
"""


def test_each_process_maps_warp_devices_to_its_own_jax_devices():
    results = wpd.launch_local(["-c", _DEVICE_LOOKUP], 2, timeout=TIMEOUT, env=_env())
    for r in results:
        assert r.returncode == 0, f"process {r.process_id} failed:\n{r.stderr[-3000:]}"
