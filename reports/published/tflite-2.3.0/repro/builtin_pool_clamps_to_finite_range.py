#!/usr/bin/env python3
"""TFLite's float32 MAX_POOL_2D kernel clamps its result to [-FLT_MAX, FLT_MAX] (the range
CalculateActivationRange gives fused activation NONE) and starts each window at -FLT_MAX, so a
window whose maximum is +inf answers 3.4028235e38 and one whose maximum is -inf (or that holds
only NaN) answers -3.4028235e38.  DirectML's MAX_POOLING requires the window's maximum element,
+inf and -inf (infinities are ordinary values).  (TensorFlow's own CPU MaxPool, printed for
comparison, returns +inf but also -3.4028235e38 for the -inf window: tensorflow#2501.)  LiteRT alone (TensorFlow only converts the model); exits 1 while the bug is
present.

    python builtin_pool_clamps_to_finite_range.py    # ai-edge-litert 2.3.0, tensorflow 2.20.0
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf
import ai_edge_litert
from ai_edge_litert.interpreter import Interpreter, OpResolverType


@tf.function(input_signature=[tf.TensorSpec([1, 1, 4, 1], tf.float32)])
def pool(x):  # NHWC, window 1x2, stride 1x2: two windows {inf, 1} and {-inf, -inf}
    return tf.nn.max_pool2d(x, [1, 2], [1, 2], "VALID")


model = tf.lite.TFLiteConverter.from_concrete_functions([pool.get_concrete_function()], pool).convert()
x = np.array([np.inf, 1, -np.inf, -np.inf], np.float32).reshape(1, 1, 4, 1)
expected = np.array([np.inf, -np.inf], np.float32)  # each window's maximum element
it = Interpreter(model_content=model, num_threads=1,
                 experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
it.allocate_tensors()
it.set_tensor(it.get_input_details()[0]["index"], x)
it.invoke()
actual = it.get_tensor(it.get_output_details()[0]["index"]).ravel()
print("ai-edge-litert %s, tensorflow %s" % (ai_edge_litert.__version__, tf.__version__))
print("input (NHWC 1x1x4x1):", x.ravel().tolist(), " window 1x2, stride 1x2, VALID")
print("expected:", expected.tolist())
print("actual:  ", actual.tolist())
print("tf.nn.max_pool2d (TensorFlow CPU, for comparison):", pool(x).numpy().ravel().tolist())
sys.exit(0 if np.array_equal(expected, actual) else 1)
