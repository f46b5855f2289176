#!/usr/bin/env python3
"""Standalone reproduction (JAX alone): max pooling with lax.reduce_window(lax.max) on XLA:CPU
returns +0.0 for a window whose first maximum is -0.0 tied with a later +0.0.

DirectML's MAX_POOLING2 returns the exact bits of the first of equal maxima in the window's
row-major order (+0 and -0 are equal numbers): for the window {-0.0, +0.0} that is -0.0.  XLA's
maximum is IEEE 754-2019 `maximum` (StableHLO spec: "-0 is less than +0"), so the reduction
picks +0.0 whatever the order: a documented divergence from DirectML, not a bug of JAX's own
documentation.  Exits 1 while the divergence is present, 0 once the first zero comes back.

    .venv-adapters/bin/python reports/published/jax-0.10.2/repro/signed_zero_not_tied.py
"""
import sys

import jax

jax.config.update("jax_platforms", "cpu")
import jaxlib  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

x = np.array([-0.0, 0.0], dtype=np.float32).reshape(1, 1, 1, 2)
got = np.asarray(lax.reduce_window(x, np.float32(-np.inf), lax.max, (1, 1, 1, 2), (1, 1, 1, 1),
                                   ((0, 0), (0, 0), (0, 0), (0, 0)))).ravel()
expected = np.array([-0.0], dtype=np.float32)
print("jax %s, jaxlib %s, numpy %s" % (jax.__version__, jaxlib.__version__, np.__version__))
print("input 1x1x1x2 {-0.0, +0.0}, window 1x2, stride 1, no padding")
print("expected %r (bits 0x%08x: the first of the tied zeros)" % (float(expected[0]), expected.view(np.uint32)[0]))
print("actual   %r (bits 0x%08x)" % (float(got[0]), got.view(np.uint32)[0]))
sys.exit(0 if got.view(np.uint32)[0] == expected.view(np.uint32)[0] else 1)
