"""``warp.optim.linear`` stand-in: Warp's iterative linear solvers are not implemented in jwarp.

Importing works; calling a solver (``cg``, ``bicgstab``, ``cr``, ``gmres``…) or building a
preconditioner raises :class:`NotImplementedError` naming it.

Example:
    >>> from jwarp.optim.linear import cg
    >>> cg(None, None, None)
    Traceback (most recent call last):
    ...
    NotImplementedError: warp.optim.linear.cg is not implemented in jwarp (warp.optim.linear is not available)
"""

from __future__ import annotations

from jwarp.unavailable import missing, module_getattr

_HINT = "warp.optim.linear is not available"

for _name in ("FSAI", "BiCGSTAB", "CG", "CR", "GMRES", "LinearOperator", "LinearSolverState", "aslinearoperator",
              "bicgstab", "cg", "cr", "gmres", "preconditioner"):
    globals()[_name] = missing(f"warp.optim.linear.{_name}", _HINT)
del _name

# Warp's public names in this module (each a stand-in unless defined above)
_WARP_NAMES = """
    BiCGSTAB CG CR FSAI GMRES LinearOperator LinearSolverState aslinearoperator bicgstab cg cr gmres
    preconditioner
"""

__getattr__ = module_getattr("warp.optim.linear", _WARP_NAMES, _HINT)
