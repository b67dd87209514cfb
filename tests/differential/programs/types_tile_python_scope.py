# wp.tile at Python scope: the type (wp.types.type_is_tile(wp.tile)), subscripted annotations
# (wp.tile[float], wp.tile[float, 8, 4], wp.tile[float, (4, 4)]) and wp.tile(dtype=, shape=)
# descriptions are tiles to wp.types.is_tile, with their dtype, shape and storage.
from typing import Any, Literal


def run():
    t0 = wp.tile[float]
    t1 = wp.tile[float, Literal[8], Literal[4]]
    t2 = wp.tile[wp.float64, 16, 8]
    t3 = wp.tile[float, (4, 4)]
    t4 = wp.tile(dtype=wp.float16, shape=(2, 2))
    predicates = [
        wp.types.type_is_tile(wp.tile),
        wp.types.is_tile(wp.tile),
        wp.types.is_tile(t0),
        wp.types.type_is_tile(t0),
        wp.types.is_tile(t4),
        wp.types.is_array(t4),
        wp.types.type_is_array(wp.tile),
        t0.shape is Any,
        t0.dtype is wp.float32,
        t0.storage == "register",
        t2.dtype is wp.float64,
    ]
    shapes = [list(t1.shape), list(t2.shape), list(t3.shape), list(t4.shape)]
    return {"predicates": np.array(predicates), "shapes": np.array(shapes)}
