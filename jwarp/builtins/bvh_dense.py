"""Box queries of small trees answered densely: every lane's box against every leaf's box at once.

A stackless walk (:func:`jwarp.builtins.bvh_walk.walk`) costs a few microseconds a step whatever its
pool's width, and a box query that overlaps much of a small mesh visits most of its nodes: Warp's
``example_mesh_intersect`` walks 363,534 nodes for 12,288 box queries of a 224-face sphere (about
20 ms), while testing all 12,288 x 224 (lane, leaf) pairs takes 0.6-0.9 ms (one core). For trees of at
most :data:`DENSE_LEAVES` leaves, :func:`leaf_words` tests every leaf and packs each lane's passing leaves
into bit words (the leaf of rank ``r`` is bit ``r % 32`` of word ``r // 32``; leaves ranked by node
index, which is the walk's order), and :func:`select` finds a lane's ``k``-th result. The results
and their order are the walk's, bit for bit: a box test is comparisons only, and a node's box holds
its children's, so a leaf whose box overlaps the query lies under nodes that overlap it too.

Used by the pass over (lane, result) pairs (:class:`jwarp.builtins.bvh_pairs.DensePlan`), which reads
each lane's results once, and by ``*_next`` calls on trees of at most 256 leaves, whose words fit the
query's buffer fields (``bvh_queries._words_next``: tested once per query). Larger trees' ``*_next``
calls keep walking: they collect 8 results at a time, and testing every leaf at every refill cost
2-20x the walk. Only axis-aligned box queries come here (a
sphere's or ray's test rounds, and how it rounds depends on XLA's fusions; mesh sphere queries also
test each triangle).

Example (inside a builtin):
    >>> words, nodes = leaf_words(tree, lower, upper, run, node, end)  # doctest: +SKIP
    >>> rank = select(words, running_counts(words), k)  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from jwarp.builtins import triangle_math as tm
from jwarp.builtins.bvh_walk import Tree
from jwarp.builtins.lane_pool import gather_rows
from jwarp.builtins.trig import apart
from jwarp.compiler.selects import where

DENSE_LEAVES = 1024
"""Trees of at most this many leaves are answered densely. Measured (in-process A/B, 16,384-65,536 box
queries of spheres, loops that sum or stop at a first hit): 256 faces 3-4x faster than the walk,
1,024 faces 1.2x (small boxes, ~2 results) to 2x (~46 results), 4,096 faces 2-4x slower."""

_BITS = 32


def dense_ok(tree: Tree) -> bool:
    """Whether box queries of ``tree`` are answered densely (one primitive per leaf: a tree of
    ``n`` nodes has ``(n + 1) // 2`` leaves)."""
    return (tree.count + 1) // 2 <= DENSE_LEAVES


def _popcount(words: Any) -> Any:
    return lax.population_count(words).astype(jnp.int32)


def leaf_nodes(tree: Tree) -> Any:
    """The leaf nodes in node order ``(m,)``: the node of each leaf rank (one primitive per leaf: a
    tree of ``n`` nodes has ``(n + 1) // 2`` leaves; an empty tree's one node is no leaf)."""
    is_leaf = tree.links[:, 1] >= 0
    return jnp.nonzero(is_leaf, size=(tree.count + 1) // 2, fill_value=tree.count - 1)[0].astype(jnp.int32)


def _leaves(tree: Tree) -> tuple:
    """:func:`leaf_nodes` and, per node ``v`` (and ``v == count``), the number of leaves before it (an
    empty tree's ranks are all 0)."""
    is_leaf = (tree.links[:, 1] >= 0).astype(jnp.int32)
    return leaf_nodes(tree), jnp.concatenate([jnp.zeros(1, jnp.int32), jnp.cumsum(is_leaf)])


def word_count(tree: Tree) -> int:
    """Bit words per lane for ``tree``'s leaves."""
    return -(-((tree.count + 1) // 2) // _BITS)


def leaf_words(tree: Tree, lower: tuple, upper: tuple, run: Any, node: Any, end: Any) -> tuple:
    """The leaves each lane's walk from ``node`` to ``end`` would accept: ``(lanes, words)`` bit words
    (leaf rank ``r``: bit ``r % 32`` of word ``r // 32``; none for lanes not ``run``) and the leaf
    nodes by rank ``(m,)``. Lane arrays are ``(lanes,)``.

    One loop iteration a word: 32 box tests of every lane against one leaf box each (scalars), a
    one-dimensional fusion that vectorises over the lanes. (A ``(lanes, leaves)`` test broadcasting
    the boxes, packed by a sum over the bits, did not vectorise: Warp's mesh-intersection example,
    12,288 lanes x 224 leaves, 3.5-4.5 -> 0.6-0.9 ms; 16,384 x 1,024 leaves 22 -> 4.6 ms.)"""
    nodes, rank = _leaves(tree)
    m = nodes.shape[0]
    count = word_count(tree)
    boxes = gather_rows(tree.bounds, nodes)
    empty = jnp.asarray([jnp.inf] * 3 + [-jnp.inf] * 3, boxes.dtype)
    boxes = jnp.concatenate([boxes, jnp.broadcast_to(empty, (count * _BITS - m, 6))]).reshape(count, _BITS, 6)
    # the lanes' boxes computed once, in a loop of their own (else each test recomputes them)
    own = apart(jnp.stack([jnp.asarray(x, jnp.float32) for x in (*lower, *upper)]))
    own_lower, own_upper = tuple(own[k] for k in range(3)), tuple(own[3 + k] for k in range(3))

    def word(w: Any, words: Any) -> Any:
        leaf = lax.dynamic_index_in_dim(boxes, w, keepdims=False)  # (32, 6)
        bits = jnp.zeros(own.shape[1:], jnp.uint32)
        for b in range(_BITS):
            hit = tm.boxes_overlap(own_lower, own_upper, tuple(leaf[b, k] for k in range(3)),
                                   tuple(leaf[b, 3 + k] for k in range(3)))
            bits = bits | (hit.astype(jnp.uint32) << b)
        return lax.dynamic_update_index_in_dim(words, bits, w, 0)

    words = lax.fori_loop(0, count, word, jnp.zeros((count, own.shape[1]), jnp.uint32)).T
    # the ranks in [first, last) (XLA's shifts by 32 or more give 0); the padding's bits never count
    first = gather_rows(rank, jnp.minimum(node, tree.count))
    last = where(run, gather_rows(rank, jnp.minimum(end, tree.count)), first)
    base = lax.iota(jnp.int32, count)[None, :] * _BITS
    ones = jnp.uint32(0xFFFFFFFF)
    low = jnp.clip(first[:, None] - base, 0, _BITS).astype(jnp.uint32)
    high = jnp.clip(jnp.minimum(last, m)[:, None] - base, 0, _BITS).astype(jnp.uint32)
    keep = lax.shift_left(ones, low) & ~lax.shift_left(ones, high)
    return words & keep, nodes


def running_counts(words: Any) -> Any:
    """Per lane and word, the set bits in it and the words before it (inclusive running count)."""
    return jnp.cumsum(_popcount(words), axis=-1)


def select(words: Any, through: Any, k: Any) -> Any:
    """The rank of the ``k``-th set bit (from 0) of rows of ``words`` (``(..., words)``, with their
    :func:`running_counts` ``through``); ``k`` has the rows' leading shape, or one more axis (several
    per row). Ranks of bits past the last: unspecified. Elementwise selects only (a gather along
    the words would not vectorise)."""
    if k.ndim == words.ndim:
        words, through = words[..., None, :], through[..., None, :]
    word, before, index = words[..., 0], jnp.zeros_like(k), jnp.zeros_like(k)
    for w in range(1, words.shape[-1]):  # the running counts grow: the last word they pass holds it
        past = through[..., w - 1] <= k
        word = where(past, words[..., w], word)
        before = where(past, through[..., w - 1], before)
        index = where(past, w, index)
    k = k - before
    bit = jnp.zeros_like(k)
    for shift in (16, 8, 4, 2, 1):  # the k-th set bit of the word, halving the range
        low = _popcount(word & jnp.uint32((1 << shift) - 1))
        up = k >= low
        k = where(up, k - low, k)
        word = where(up, word >> shift, word)
        bit = where(up, bit + shift, bit)
    return index * _BITS + bit


def lowest_set_bit(words: list) -> tuple:
    """Each lane's lowest set bit over ``words`` (uint32 lane arrays, word 0 first): (whether any is
    set, its rank, the words with it cleared)."""
    found = jnp.zeros(jnp.shape(words[0]), bool)
    rank = jnp.zeros(jnp.shape(words[0]), jnp.int32)
    out = list(words)
    for j, w in enumerate(words):
        here = ~found & (w != 0)
        bit = _popcount((w & (~w + jnp.uint32(1))) - jnp.uint32(1))  # trailing zeros
        rank = where(here, j * _BITS + bit, rank)
        out[j] = where(here, w & (w - jnp.uint32(1)), w)
        found = found | here
    return found, rank, out


__all__ = ["DENSE_LEAVES", "dense_ok", "leaf_nodes", "leaf_words", "lowest_set_bit", "running_counts", "select",
           "word_count"]
