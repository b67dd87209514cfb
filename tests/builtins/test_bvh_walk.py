"""The stackless walk of :mod:`jwarp.builtins.bvh_walk`: visits and start nodes."""

import jax.numpy as jnp
import numpy as np

from jwarp.builtins.bvh_walk import Tree, walk
from jwarp.runtime.geometry import bvh_build


def _taken(starts: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(leaves taken, final node) per lane of a walk over 40 boxes that enters every node, from ``starts``."""
    lo = np.arange(40, dtype=np.float32)[:, None] * np.ones(3, np.float32)
    tree = bvh_build.build(lo, lo + 1)
    links = jnp.asarray(tree.links)
    t = Tree(jnp.asarray(tree.bounds), links, int(links.shape[0]))
    n = len(starts)
    state = {"node": jnp.asarray(starts, jnp.int32), "taken": jnp.zeros(n, jnp.int32)}

    def enter(s, lower, upper):
        return jnp.ones(s["node"].shape, bool)

    def leaf(s, prim, take):
        return dict(s, taken=s["taken"] + take.astype(jnp.int32)), take

    out = walk(t, state, jnp.ones(n, bool), enter, leaf)
    return np.asarray(out["taken"]), np.asarray(out["node"])


def test_a_walk_from_the_root_takes_every_leaf_and_one_outside_the_tree_takes_none():
    """A start node outside the tree ends the lane at once: a negative one used to climb towards the
    root one node a step (about 2^31 steps for a garbage node) and then walk the whole tree."""
    taken, node = _taken([0, -5, 10**6])  # (-5, not a garbage -2^31: a regression fails, not hangs)
    assert taken[0] == 40
    np.testing.assert_array_equal(taken[1:], 0)
    np.testing.assert_array_equal(node[1:], [-5, 10**6])
