"""A small 2-D smoke solver (semi-Lagrangian advection, Jacobi pressure, buoyancy), written
the way Warp users write grid solvers: module constants, array2d[...] annotations, helper
funcs with early returns, clamped lookups, bilinear sampling."""

WIDTH = wp.constant(48)
HEIGHT = wp.constant(32)


@wp.func
def cell(f: wp.array2d[float], x: int, y: int):
    x = wp.clamp(x, 0, WIDTH - 1)
    y = wp.clamp(y, 0, HEIGHT - 1)
    return f[x, y]


@wp.func
def bilinear(f: wp.array2d[float], x: float, y: float):
    x0 = int(wp.floor(x))
    y0 = int(wp.floor(y))
    fx = x - float(x0)
    fy = y - float(y0)
    a = wp.lerp(cell(f, x0, y0), cell(f, x0 + 1, y0), fx)
    b = wp.lerp(cell(f, x0, y0 + 1), cell(f, x0 + 1, y0 + 1), fx)
    return wp.lerp(a, b, fy)


@wp.func
def velocity(u: wp.array2d[wp.vec2], x: int, y: int):
    if x < 0 or x >= WIDTH:
        return wp.vec2()
    if y < 0 or y >= HEIGHT:
        return wp.vec2()
    return u[x, y]


@wp.kernel
def advect(u: wp.array2d[wp.vec2], rho0: wp.array2d[float], rho1: wp.array2d[float], dt: float):
    i, j = wp.tid()
    back = wp.vec2(float(i), float(j)) - u[i, j] * dt
    rho1[i, j] = bilinear(rho0, back[0], back[1])


@wp.kernel
def divergence(u: wp.array2d[wp.vec2], div: wp.array2d[float]):
    i, j = wp.tid()
    if i == WIDTH - 1 or j == HEIGHT - 1:
        return
    div[i, j] = 0.5 * (u[i + 1, j][0] - u[i, j][0] + u[i, j + 1][1] - u[i, j][1])


@wp.kernel
def jacobi(p0: wp.array2d[float], p1: wp.array2d[float], div: wp.array2d[float]):
    i, j = wp.tid()
    s = cell(p0, i - 1, j) + cell(p0, i + 1, j) + cell(p0, i, j - 1) + cell(p0, i, j + 1)
    p1[i, j] = 0.25 * (s - div[i, j])


@wp.kernel
def project(p: wp.array2d[float], u: wp.array2d[wp.vec2]):
    i, j = wp.tid()
    if i == 0 or i == WIDTH - 1 or j == 0 or j == HEIGHT - 1:
        return
    grad = wp.vec2(p[i + 1, j] - p[i - 1, j], p[i, j + 1] - p[i, j - 1]) * 0.5
    u[i, j] = u[i, j] - grad + velocity(u, i - 1, j) * 0.0


@wp.kernel
def buoyancy(u: wp.array2d[wp.vec2], rho: wp.array2d[float], dt: float):
    i, j = wp.tid()
    u[i, j] = u[i, j] + dt * wp.vec2(0.0, 9.0) * rho[i, j]
    rho[i, j] = rho[i, j] * (1.0 - 0.05 * dt)


@wp.kernel
def emit(rho: wp.array2d[float], u: wp.array2d[wp.vec2], radius: int, push: wp.vec2):
    i, j = wp.tid()
    d = wp.length(wp.vec2(float(i - WIDTH / 2), float(j - HEIGHT / 4)))
    if d < radius:
        rho[i, j] = 1.0
        u[i, j] = push


def run():
    shape = (48, 32)
    u = wp.zeros(shape, dtype=wp.vec2)
    rho0 = wp.zeros(shape, dtype=float)
    rho1 = wp.zeros(shape, dtype=float)
    p0 = wp.zeros(shape, dtype=float)
    p1 = wp.zeros(shape, dtype=float)
    div = wp.zeros(shape, dtype=float)
    dt = 0.1
    for step in range(6):
        wp.launch(emit, dim=shape, inputs=[rho0, u, 5, wp.vec2(0.5 * step, 3.0)])
        wp.launch(buoyancy, dim=shape, inputs=[u, rho0, dt])
        wp.launch(divergence, dim=shape, inputs=[u, div])
        for _ in range(10):
            wp.launch(jacobi, dim=shape, inputs=[p0, p1, div])
            p0, p1 = p1, p0
        wp.launch(project, dim=shape, inputs=[p0, u])
        wp.launch(advect, dim=shape, inputs=[u, rho0, rho1, dt])
        rho0, rho1 = rho1, rho0
    return {"rho": rho0, "u": u, "p": p0}
