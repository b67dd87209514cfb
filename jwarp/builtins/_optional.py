"""Import the builtin groups that live in their own modules, if present."""

import importlib

for _name in ("vector_math", "quaternion", "transform", "spatial", "random", "noise", "hash_grid", "hash_grid_pairs",
              "geometry_primitives",
              "mesh_point_queries", "mesh_ray_queries", "bvh_queries", "bvh_pairs", "bvh_groups",
              "tile_geometry_queries", "volume", "volume_index"):
    try:
        importlib.import_module(f"jwarp.builtins.{_name}")
    except ModuleNotFoundError as exc:  # a group not written yet
        if exc.name != f"jwarp.builtins.{_name}":
            raise
