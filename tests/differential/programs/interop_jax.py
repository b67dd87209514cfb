# wp.jax_kernel / wp.jax_callable: Warp's calling convention (inputs, in-out, outputs,
# launch_dims, vector dtypes, static scalars), vmap of an elementwise kernel, and gradients with
# enable_backward=True — same results from Warp's FFI bridge and jwarp's JAX functions.
import jax
import jax.numpy as jnp


@wp.kernel
def ij_add(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] + b[i]


@wp.kernel
def ij_sincos(angle: wp.array(dtype=float), s: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    s[i] = wp.sin(angle[i])
    c[i] = wp.cos(angle[i])


@wp.kernel
def ij_in_out(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    b[i] += a[i]
    c[i] = 2.0 * a[i]


@wp.kernel
def ij_scale_vec(a: wp.array(dtype=wp.vec2), s: float, out: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    out[i] = a[i] * s


@wp.kernel
def ij_matmul(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
    i, j = wp.tid()
    s = float(0.0)
    for k in range(a.shape[1]):
        s += a[i, k] * b[k, j]
    c[i, j] = s


@wp.kernel
def ij_diagonal(out: wp.array(dtype=wp.mat33)):
    i = wp.tid()
    d = float(i + 1)
    out[i] = wp.mat33(d, 0.0, 0.0, 0.0, d * 2.0, 0.0, 0.0, 0.0, d * 3.0)


@wp.kernel
def ij_rowsum(m: wp.array2d(dtype=float), sums: wp.array(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(sums, i, m[i, j])


@wp.kernel
def ij_poly(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i] * x[i] * y[i] + wp.sin(y[i])


def ij_twice(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float)):
    tmp = wp.zeros(x.shape, dtype=float)
    wp.launch(ij_add, dim=x.shape, inputs=[x, y], outputs=[tmp])
    wp.launch(ij_add, dim=x.shape, inputs=[tmp, y], outputs=[out])


def run():
    a = jnp.arange(8, dtype=jnp.float32)
    b = jnp.linspace(0.5, 2.0, 8, dtype=jnp.float32)
    out = {}
    out["add"] = jax.jit(wp.jax_kernel(ij_add))(a, b)[0]
    out["sincos"] = list(jax.jit(wp.jax_kernel(ij_sincos, num_outputs=2))(b))
    out["in_out"] = list(jax.jit(wp.jax_kernel(ij_in_out, num_outputs=2, in_out_argnames=["b"]))(a, b))
    vecs = jnp.arange(10, dtype=jnp.float32).reshape(5, 2)
    scale = wp.jax_kernel(ij_scale_vec)
    out["scale_vec"] = jax.jit(lambda v: scale(v, 1.5))(vecs)[0]  # Warp: scalars must be static
    mm = wp.jax_kernel(ij_matmul, launch_dims=(3, 4))
    out["matmul"] = jax.jit(mm)(jnp.full((3, 2), 2.0, jnp.float32), jnp.full((2, 4), 3.0, jnp.float32))[0]
    out["diagonal"] = jax.jit(lambda: wp.jax_kernel(ij_diagonal)(launch_dims=3))()[0]
    rs = wp.jax_kernel(ij_rowsum, in_out_argnames=["sums"])
    m = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
    out["rowsum"] = jax.jit(rs)(m, jnp.ones(3, jnp.float32))[0]
    out["callable"] = jax.jit(wp.jax_callable(ij_twice))(a, b)[0]
    out["vmap_add"] = jax.jit(jax.vmap(wp.jax_kernel(ij_add)))(jnp.stack([a, 2 * a]), jnp.stack([b, b]))[0]
    poly = wp.jax_kernel(ij_poly, enable_backward=True)
    out["grad"] = list(jax.jit(jax.grad(lambda x, y: jnp.sum(poly(x, y)[0]), argnums=(0, 1)))(a, b))
    return {k: jax.tree_util.tree_map(np.asarray, v) for k, v in out.items()}
