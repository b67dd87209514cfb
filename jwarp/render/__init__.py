"""``warp.render`` stand-in: Warp's OpenGL and USD renderers are not implemented in jwarp.

Importing the module works (Warp's examples import it and run headless); creating a
renderer raises :class:`NotImplementedError`.

Example:
    >>> import jwarp.render
    >>> jwarp.render.UsdRenderer("out.usd")
    Traceback (most recent call last):
    ...
    NotImplementedError: warp.render.UsdRenderer is not implemented in jwarp (warp.render is not available)
"""

from __future__ import annotations

from jwarp.unavailable import missing, module_getattr

_HINT = "warp.render is not available"

OpenGLRenderer = missing("warp.render.OpenGLRenderer", _HINT)
UsdRenderer = missing("warp.render.UsdRenderer", _HINT)

# Warp's public names in this module (each a stand-in unless defined above)
_WARP_NAMES = """
    OpenGLRenderer UsdRenderer
"""

__getattr__ = module_getattr("warp.render", _WARP_NAMES, _HINT)
