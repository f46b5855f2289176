#!/usr/bin/env python3
"""LiteRT's default kernel set (the XNNPACK delegate) answers -inf for a float32 max-pooling
window whose first element is NaN, whatever numbers follow: {NaN, 1} gives -inf, {1, NaN} gives
1.  -inf is no element of the window.  TensorFlow's MaxPool and TFLite's own kernel return 1
(they ignore the NaN); DirectML leaves the NaN rule open (NaN or an element of the window) but
not a value outside the window.  LiteRT alone (TensorFlow only converts the model); exits 1
while the bug is present.

    python xnnpack_pool_nan_first_gives_neg_inf.py    # ai-edge-litert 2.3.0, tensorflow 2.20.0
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf
import ai_edge_litert
from ai_edge_litert.interpreter import Interpreter, OpResolverType


@tf.function(input_signature=[tf.TensorSpec([1, 1, 4, 1], tf.float32)])
def pool(x):  # NHWC, window 1x2, stride 1x2: two windows {NaN, 1} and {1, NaN}
    return tf.nn.max_pool2d(x, [1, 2], [1, 2], "VALID")


model = tf.lite.TFLiteConverter.from_concrete_functions([pool.get_concrete_function()], pool).convert()
x = np.array([np.nan, 1, 1, np.nan], np.float32).reshape(1, 1, 4, 1)


def run(resolver):
    it = Interpreter(model_content=model, num_threads=1, experimental_op_resolver_type=resolver)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"]).ravel()


actual = run(OpResolverType.AUTO)  # the default: builtin ops with the XNNPACK delegate
builtin = run(OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
print("ai-edge-litert %s, tensorflow %s" % (ai_edge_litert.__version__, tf.__version__))
print("input (NHWC 1x1x4x1):", x.ravel().tolist(), " window 1x2, stride 1x2, VALID")
print("expected: an element of each window or NaN; TFLite's own kernel:", builtin.tolist())
print("actual (XNNPACK):", actual.tolist())
in_window = all(np.isnan(a) or a in w[~np.isnan(w)] for a, w in zip(actual, x.reshape(2, 2)))
sys.exit(0 if in_window else 1)
