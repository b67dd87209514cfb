"""A small particle simulation written in Warp's API, run on JAX through jwarp.

Particles fall under gravity, bounce on the ground with restitution, and collide with a
sphere; the script prints the state every few frames.

    python examples/particles.py
"""

import numpy as np

import jwarp as wp


@wp.func
def collide_sphere(p: wp.vec3, v: wp.vec3, center: wp.vec3, radius: float):
    d = p - center
    dist = wp.length(d)
    if dist < radius:
        n = d / dist
        p = center + n * radius
        vn = wp.dot(v, n)
        if vn < 0.0:
            v = v - n * (1.8 * vn)
    return p, v


@wp.kernel
def step(pos: wp.array(dtype=wp.vec3), vel: wp.array(dtype=wp.vec3), gravity: wp.vec3, dt: float,
         center: wp.vec3, radius: float, restitution: float):
    i = wp.tid()
    v = vel[i] + gravity * dt
    p = pos[i] + v * dt
    if p[1] < 0.0:
        p[1] = 0.0
        if v[1] < 0.0:
            v[1] = -v[1] * restitution
    p, v = collide_sphere(p, v, center, radius)
    pos[i] = p
    vel[i] = v


@wp.kernel
def energy(vel: wp.array(dtype=wp.vec3), pos: wp.array(dtype=wp.vec3), g: float, total: wp.array(dtype=float)):
    i = wp.tid()
    v = vel[i]
    wp.atomic_add(total, 0, 0.5 * wp.dot(v, v) + g * pos[i][1])


def main(n: int = 4096, frames: int = 240) -> np.ndarray:
    """Run the simulation, printing every 40 frames; returns the final positions."""
    rng = np.random.default_rng(42)
    pos = wp.array(rng.uniform([-1.0, 1.0, -1.0], [1.0, 3.0, 1.0], (n, 3)).astype(np.float32), dtype=wp.vec3)
    vel = wp.array(rng.normal(0.0, 0.3, (n, 3)).astype(np.float32), dtype=wp.vec3)
    total = wp.zeros(1, dtype=float)
    dt = 1.0 / 120.0
    print(f"{wp.__name__} {wp.__version__} on {wp.get_device()}: {n} particles, {frames} frames")
    for frame in range(frames + 1):
        if frame % 40 == 0:
            total.zero_()
            wp.launch(energy, dim=n, inputs=[vel, pos, 9.81, total])
            heights = pos.numpy()[:, 1]
            print(f"frame {frame:4d}  mean height {heights.mean():.4f}  max height {heights.max():.4f}  "
                  f"energy/particle {total.numpy()[0] / n:.4f}")
        wp.launch(step, dim=n, inputs=[pos, vel, wp.vec3(0.0, -9.81, 0.0), dt, wp.vec3(0.0, 0.5, 0.0), 0.5, 0.6])
    return pos.numpy()


if __name__ == "__main__":
    main()
