"""Augmented assignment evaluation order: for an array slot (``dst[f(state)][1] += g(state)``) the
target's index comes first, then the value; for a local name the value, then the name."""


@wp.func
def bump_index(state: wp.array(dtype=int)) -> int:
    i = state[0]
    state[0] = i + 1
    return i


@wp.func
def read_state(state: wp.array(dtype=int)) -> float:
    return float(state[0]) * 100.0


@wp.kernel
def slot_target_first(dst: wp.array(dtype=wp.mat33), state: wp.array(dtype=int)):
    dst[bump_index(state)][1] += wp.vec3(read_state(state), 0.0, 0.0)


@wp.kernel
def scalar_slot_target_first(dst: wp.array(dtype=float), state: wp.array(dtype=int)):
    dst[bump_index(state)] += read_state(state)


def run():
    dst = wp.zeros(3, dtype=wp.mat33)
    state = wp.zeros(1, dtype=int)
    wp.launch(slot_target_first, dim=1, inputs=[dst, state])
    flat = wp.zeros(3, dtype=float)
    wp.launch(scalar_slot_target_first, dim=1, inputs=[flat, state])
    return {"dst": dst.numpy(), "flat": flat.numpy(), "state": state.numpy()}
