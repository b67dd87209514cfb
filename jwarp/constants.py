"""Constants exported by Warp: math constants (``wp.pi``, ``wp.inf``…, usable in kernels as float32)
and the log levels of ``wp.config.log_level`` (``wp.LOG_DEBUG`` … ``wp.LOG_ERROR``)."""

import math

pi = PI = math.pi
e = E = math.e
tau = TAU = 2.0 * math.pi
half_pi = HALF_PI = 0.5 * math.pi
inf = INF = math.inf
nan = NAN = math.nan
phi = PHI = (1.0 + math.sqrt(5.0)) / 2.0
ln2 = LN2 = math.log(2.0)
ln10 = LN10 = math.log(10.0)
log2e = LOG2E = math.log2(math.e)
log10e = LOG10E = math.log10(math.e)

LOG_DEBUG = 10
LOG_INFO = 20
LOG_WARNING = 30
LOG_ERROR = 40
