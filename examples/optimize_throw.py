"""Inverse design through a differentiable simulation, written entirely in Warp's API.

Sixty-four balls are thrown from the origin and bounce on the ground (a smooth penalty
contact with friction). We want every ball to land, after 1.2 seconds of flight and
bouncing, on its own target on a ring. The initial velocities are found by gradient
descent: each iteration runs the 120-step simulation under a ``wp.Tape``, computes the
squared distance to the targets, and back-propagates through all 120 steps.

    python examples/optimize_throw.py            # prints the loss per iteration, writes throw.png
    python examples/optimize_throw.py --help

The script runs unchanged with real NVIDIA Warp: ``--backend warp``.
"""

from __future__ import annotations

import argparse
import importlib
import time

import numpy as np

wp = None  # the Warp-API module (jwarp by default), bound in main()


def define_kernels():
    """Kernels are defined once the backend module is known (same source for both)."""

    @wp.kernel
    def step(
        pos_in: wp.array(dtype=wp.vec3),
        vel_in: wp.array(dtype=wp.vec3),
        gravity: wp.vec3,
        stiffness: float,
        damping: float,
        friction: float,
        dt: float,
        pos_out: wp.array(dtype=wp.vec3),
        vel_out: wp.array(dtype=wp.vec3),
    ):
        i = wp.tid()
        x = pos_in[i]
        v = vel_in[i]
        f = gravity
        depth = 0.1 - x[1]  # ball radius 0.1 against the ground plane y = 0
        if depth > 0.0:
            normal_force = stiffness * depth - damping * v[1]
            f = f + wp.vec3(0.0, normal_force, 0.0)
            tangential = wp.vec3(v[0], 0.0, v[2])
            f = f - tangential * (friction * depth)
        v = v + f * dt
        pos_out[i] = x + v * dt
        vel_out[i] = v

    @wp.kernel
    def distance_loss(pos: wp.array(dtype=wp.vec3), targets: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
        i = wp.tid()
        d = pos[i] - targets[i]
        wp.atomic_add(loss, 0, wp.dot(d, d) / float(len(pos)))

    @wp.kernel
    def descend(v0: wp.array(dtype=wp.vec3), grad: wp.array(dtype=wp.vec3), rate: float):
        i = wp.tid()
        v0[i] = v0[i] - grad[i] * rate

    return step, distance_loss, descend


class ThrowProblem:
    """Balls launched with velocities ``v0``; positions after ``steps`` steps vs targets."""

    def __init__(self, n: int = 64, steps: int = 120, dt: float = 0.01):
        self.n, self.steps, self.dt = n, steps, dt
        self.step, self.distance_loss, self.descend = define_kernels()
        angle = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
        radius = 2.0 + 0.5 * np.sin(3.0 * angle)
        targets = np.stack([radius * np.cos(angle), np.full(n, 0.1), radius * np.sin(angle)], axis=1)
        self.targets = wp.array(targets.astype(np.float32), dtype=wp.vec3)
        self.v0 = wp.array(np.tile([[0.0, 3.0, 0.0]], (n, 1)).astype(np.float32), dtype=wp.vec3, requires_grad=True)
        start = np.tile([[0.0, 0.1, 0.0]], (n, 1)).astype(np.float32)
        self.positions = [wp.array(start, dtype=wp.vec3, requires_grad=True)]
        self.velocities = [self.v0]
        for _ in range(steps):
            self.positions.append(wp.zeros(n, dtype=wp.vec3, requires_grad=True))
            self.velocities.append(wp.zeros(n, dtype=wp.vec3, requires_grad=True))
        self.loss = wp.zeros(1, dtype=float, requires_grad=True)

    def forward(self) -> None:
        self.loss.zero_()
        for k in range(self.steps):
            wp.launch(
                self.step,
                dim=self.n,
                inputs=[self.positions[k], self.velocities[k], wp.vec3(0.0, -9.81, 0.0), 2000.0, 10.0, 50.0, self.dt],
                outputs=[self.positions[k + 1], self.velocities[k + 1]],
            )
        wp.launch(self.distance_loss, dim=self.n, inputs=[self.positions[-1], self.targets, self.loss])

    def optimize(self, iterations: int, rate: float, log_every: int = 1) -> list[float]:
        history = []
        for it in range(iterations):
            tape = wp.Tape()
            with tape:
                self.forward()
            tape.backward(loss=self.loss)
            loss = float(self.loss.numpy()[0])
            history.append(loss)
            wp.launch(self.descend, dim=self.n, inputs=[self.v0, self.v0.grad, rate])
            tape.zero()
            if it % log_every == 0 or it == iterations - 1:
                print(f"iteration {it:3d}   loss {loss:10.6f}", flush=True)
        return history

    def trajectories(self) -> np.ndarray:
        self.forward()
        return np.stack([p.numpy() for p in self.positions])


def plot(problem: ThrowProblem, history: list[float], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: skipping the plot (pip install matplotlib)")
        return
    paths = problem.trajectories()
    targets = problem.targets.numpy()
    fig, (ax0, ax1, ax2) = plt.subplots(1, 3, figsize=(15, 4.5))
    ax0.semilogy(history)
    ax0.set_xlabel("iteration")
    ax0.set_ylabel("mean squared distance to target")
    ax0.set_title("loss")
    for b in range(paths.shape[1]):
        ax1.plot(paths[:, b, 0], paths[:, b, 2], lw=0.6, color="tab:blue", alpha=0.6)
    ax1.scatter(targets[:, 0], targets[:, 2], s=12, color="tab:red", label="targets", zorder=3)
    ax1.scatter(paths[-1, :, 0], paths[-1, :, 2], s=6, color="black", label="landing points", zorder=4)
    ax1.set_aspect("equal")
    ax1.set_title("ball paths (top view)")
    ax1.legend(loc="upper right", fontsize=8)
    t = np.arange(paths.shape[0]) * problem.dt
    for b in range(0, paths.shape[1], max(1, paths.shape[1] // 8)):
        ax2.plot(t, paths[:, b, 1], lw=1.0)
    ax2.set_xlabel("time (s)")
    ax2.set_ylabel("height")
    ax2.set_title("heights of a few balls (bounces)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def main(argv: list[str] | None = None) -> list[float]:
    global wp
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--rate", type=float, default=2.0)
    parser.add_argument("--balls", type=int, default=64)
    parser.add_argument("--backend", default="jwarp", choices=("jwarp", "warp"))
    parser.add_argument("--plot", default="throw.png", help="output PNG ('' to skip)")
    args = parser.parse_args(argv)
    wp = importlib.import_module(args.backend)
    if args.backend == "warp":
        wp.config.quiet = True
    print(f"{args.backend} on {wp.get_device()}: {args.balls} balls, 120 steps per simulation")
    problem = ThrowProblem(n=args.balls)
    start = time.perf_counter()
    history = problem.optimize(args.iterations, args.rate)
    print(f"loss {history[0]:.5f} -> {history[-1]:.5f} in {time.perf_counter() - start:.1f} s")
    if args.plot:
        plot(problem, history, args.plot)
    return history


if __name__ == "__main__":
    main()
