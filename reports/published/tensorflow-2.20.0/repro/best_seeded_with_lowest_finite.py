#!/usr/bin/env python3
"""TensorFlow's max pooling without indices answers -3.4028235e38 (FLOAT32; FLOAT16 with explicit
padding: -65504) for a window whose maximum is -inf.  The maximum of {-inf, -inf} is -inf, which
tf.nn.max_pool_with_argmax returns for the same window.  Exits 1 while the bug is present.

    python3 best_seeded_with_lowest_finite.py      (TensorFlow alone; no dmlcheck)
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

ninf = -np.inf
checks = [
    ("max_pool2d float32 VALID", lambda: tf.nn.max_pool2d(
        tf.constant(np.array([ninf, ninf], np.float32).reshape(1, 1, 2, 1)), [1, 2], [1, 1], "VALID")),
    ("max_pool3d float32 VALID", lambda: tf.nn.max_pool3d(
        tf.constant(np.array([ninf, ninf], np.float32).reshape(1, 1, 1, 2, 1)), [1, 1, 2], [1, 1, 1], "VALID")),
    ("max_pool2d float16 explicit padding [[0,0],[0,0],[1,0],[0,0]]", lambda: tf.nn.max_pool2d(
        tf.constant(np.array([ninf, ninf], np.float16).reshape(1, 1, 2, 1)), [1, 2], [1, 1],
        [[0, 0], [0, 0], [1, 0], [0, 0]])),
]
print("TensorFlow", tf.__version__, "numpy", np.__version__)
bad = 0
for name, call in checks:
    got = call().numpy().ravel()
    print("%s of {-inf, -inf}, window 1x2: expected %s, got %s" % (name, [ninf] * got.size, got.tolist()))
    bad += int(not np.all(np.isneginf(got)))
with_argmax = tf.nn.max_pool_with_argmax(
    tf.constant(np.array([ninf, ninf], np.float32).reshape(1, 1, 2, 1)), [1, 2], [1, 1], "VALID")
print("for comparison, max_pool_with_argmax float32: %s at index %s"
      % (with_argmax[0].numpy().ravel().tolist(), with_argmax[1].numpy().ravel().tolist()))
print("BUG PRESENT" if bad else "fixed")
sys.exit(1 if bad else 0)
