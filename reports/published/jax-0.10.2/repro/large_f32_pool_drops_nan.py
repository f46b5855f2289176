#!/usr/bin/env python3
"""Standalone reproduction (JAX alone): on XLA:CPU, max pooling with
lax.reduce_window(x, -inf, lax.max, ...) of a FLOAT32 input of 4,096 elements or more drops
NaN: a window holding only NaN returns -inf (the init value, which is no element of the
window) and a window {NaN, 1} returns 1.  The same call on 4,094 elements returns NaN for both,
as XLA's maximum (NaN-propagating, StableHLO `maximum`) and jnp.max do.  FLOAT16 is not
affected.  The size, not the window, decides: every window below has 2 elements.

DirectML's MAX_POOLING2 leaves NaN handling open, but never returns a value that no element of
the window holds (a window with a real element never answers its padding or a seed).  Exits 1
while the large input drops the NaN, 0 once it returns NaN like the small one.

    .venv-adapters/bin/python reports/published/jax-0.10.2/repro/large_f32_pool_drops_nan.py
"""
import sys

import jax

jax.config.update("jax_platforms", "cpu")
import jaxlib  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402


def pool_pairs(values):
    """Max over windows of 2 along the last axis, stride 2: one output per pair."""
    x = np.asarray(values, dtype=np.float32).reshape(1, 1, 1, -1)
    return np.asarray(lax.reduce_window(x, np.float32(-np.inf), lax.max, (1, 1, 1, 2),
                                        (1, 1, 1, 2), ((0, 0), (0, 0), (0, 0), (0, 0)))).ravel()


print("jax %s, jaxlib %s, numpy %s" % (jax.__version__, jaxlib.__version__, np.__version__))
bad = False
for n in (4094, 4096):
    all_nan = pool_pairs(np.full(n, np.nan))[0]
    nan_one = pool_pairs(np.tile([np.nan, 1.0], n // 2))[0]
    print("input 1x1x1x%d, window 1x2, stride 2: {NaN, NaN} -> %r (expected nan), {NaN, 1} -> %r "
          "(expected nan, as jnp.max gives %r)" % (n, float(all_nan), float(nan_one),
                                                   float(np.asarray(jax.numpy.max(np.float32([np.nan, 1]))))))
    bad = bad or not np.isnan(all_nan) or not np.isnan(nan_one)
sys.exit(1 if bad else 0)
