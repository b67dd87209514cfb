"""``wp.optim``: gradient-descent optimizers (:class:`Adam`, :class:`SGD`) over jwarp arrays.

As in Warp the package is imported explicitly (``import jwarp.optim``); ``import jwarp`` alone
does not load it. Warp's iterative linear solvers (``warp.optim.linear``) are stand-ins that raise
NotImplementedError when used.
"""

from jwarp.optim.adam import Adam as Adam
from jwarp.optim.sgd import SGD as SGD
from jwarp.optim import linear as linear

__all__ = ["Adam", "SGD", "linear"]
