#!/usr/bin/env python3
"""TensorFlow's CPU max pooling (VALID padding) compares float32 denormals as zeros (its kernels
run with DAZ/FTZ on) but writes the winner's own bits: for {-7e-45, -0.0} it returns -7e-45, which
is neither the maximum (-0.0) nor the flushed answer (-0.0).  Exits 1 while this is so.

    python3 denormals_compared_as_zero.py      (TensorFlow alone; no dmlcheck)
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

bits = np.array([0x80000005, 0x80000000], np.uint32)          # -7e-45 (denormal), -0.0
x = tf.constant(bits.view(np.float32).reshape(1, 1, 2, 1))
got = tf.nn.max_pool2d(x, [1, 2], [1, 1], "VALID").numpy().ravel()
got_bits = got.view(np.uint32)[0]
print("TensorFlow", tf.__version__, "numpy", np.__version__)
print("max_pool2d of {-7e-45 (0x80000005), -0.0 (0x80000000)}, window 1x2, VALID:")
print("  expected -0.0 (0x80000000): the maximum, and also the answer with denormals flushed")
print("  got %r (0x%08x)" % (float(got[0]), got_bits))
print("  for comparison, numpy: %r" % float(np.max(bits.view(np.float32))))
bad = got_bits != 0x80000000
print("DIVERGES (denormal compared as zero, its own bits written)" if bad else "matches")
sys.exit(1 if bad else 0)
