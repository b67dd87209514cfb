"""Geometry objects whose ids kernels receive: HashGrid (Mesh, Bvh, Volume to come)."""
