"""Math constants exported by Warp (``wp.pi``, ``wp.inf``…), usable in kernels as float32."""

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
