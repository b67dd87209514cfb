"""warp.sparse kernel helpers: bsr_row_index / bsr_block_index called from a kernel."""

import importlib

sparse = importlib.import_module(wp.__name__ + ".sparse")


@wp.kernel
def locate(offsets: wp.array(dtype=int), columns: wp.array(dtype=int), rows: wp.array(dtype=int),
           blocks: wp.array(dtype=int)):
    i = wp.tid()
    rows[i] = sparse.bsr_row_index(offsets, 4, i - 1)
    blocks[i] = sparse.bsr_block_index(i % 4, 2, offsets, columns)


def run():
    offsets = wp.array([0, 2, 2, 5, 6], dtype=int)
    columns = wp.array([0, 2, 1, 2, 3, 2], dtype=int)
    rows = wp.zeros(9, dtype=int)
    blocks = wp.zeros(9, dtype=int)
    wp.launch(locate, dim=9, inputs=[offsets, columns, rows, blocks])
    return {"rows": rows.numpy(), "blocks": blocks.numpy()}
