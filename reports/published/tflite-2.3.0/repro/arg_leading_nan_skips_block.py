#!/usr/bin/env python3
"""TFLite's float32 ARG_MIN (and ARG_MAX) kernel, for a row that starts with NaN, skips the
numbers among the row's first four elements when the row is longer than four: argmin of
{NaN, 1, 2, -3, -2} is 4 (the -2), while the minimum -3 is at index 3.  A NaN rule may return the
NaN's index (0) or ignore NaN (3); returning a number that another number beats is neither.
tf.math.argmin (TensorFlow itself) is printed for comparison.  LiteRT alone (TensorFlow only
converts the model); exits 1 while the bug is present.

    python arg_leading_nan_skips_block.py    # ai-edge-litert 2.3.0, tensorflow 2.20.0
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf
import ai_edge_litert
from ai_edge_litert.interpreter import Interpreter, OpResolverType


@tf.function(input_signature=[tf.TensorSpec([5], tf.float32)])
def argmin(x):
    return tf.math.argmin(x, axis=0, output_type=tf.int32)


model = tf.lite.TFLiteConverter.from_concrete_functions([argmin.get_concrete_function()], argmin).convert()
x = np.array([np.nan, 1, 2, -3, -2], np.float32)
it = Interpreter(model_content=model, num_threads=1,
                 experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
it.allocate_tensors()
it.set_tensor(it.get_input_details()[0]["index"], x)
it.invoke()
actual = int(it.get_tensor(it.get_output_details()[0]["index"]))
print("ai-edge-litert %s, tensorflow %s" % (ai_edge_litert.__version__, tf.__version__))
print("input:", x.tolist())
print("expected: 3 (NaN ignored) or 0 (NaN propagated)")
print("actual:  ", actual)
print("tf.math.argmin (TensorFlow, for comparison):", int(argmin(x)))
sys.exit(0 if actual in (0, 3) else 1)
