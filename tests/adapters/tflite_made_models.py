#!/usr/bin/env python3
"""tflite_made_models.py: the TFLite adapter's models made from converted templates
(adapters/tflite/tflite_adapter.py) are the models TensorFlow's converter writes for each
structure.  MAX_POOL_2D (PoolModels: one template, its Pool2DOptions set): for windows, strides
and padding modes of every kind the generator draws (square and not, stride above and below the
window, both modes for one window).  ARG_MIN/ARG_MAX (ArgModels: the int32 model, its output
type set for int64): every operator, input type and index type the adapter claims.  The made
model and the converter's, each read and written back by flatbuffer_utils, must be the same
bytes.  A difference means the converter puts something else in such a model (a new TensorFlow
version: --convert-each until the adapter sets it too).
Usage: tflite_made_models.py ADAPTER_DIR.  TAP."""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, os.path.join(sys.argv[1], "..", "python"))
import tflite_adapter as adapter  # noqa: E402
from tensorflow.lite.tools import flatbuffer_utils  # noqa: E402

STRUCTURES = [([1, 1], [1, 1], "VALID"), ([2, 2], [1, 1], "VALID"), ([2, 2], [1, 1], "SAME"),
              ([3, 2], [1, 2], "SAME"), ([1, 5], [3, 1], "VALID"), ([4, 4], [4, 4], "SAME"),
              ([7, 1], [2, 9], "SAME"), ([2, 3], [5, 5], "VALID"), ([6, 6], [1, 3], "VALID")]


def rewritten(model):
    """A model as flatbuffer_utils writes it: one serialisation of one model, so two byte
    strings are equal exactly when the models are."""
    return bytes(flatbuffer_utils.convert_object_to_bytearray(
        flatbuffer_utils.read_model_from_bytearray(bytearray(model))))


def checks(converter):
    """(name, made model, the converter's model) for every structure checked."""
    pool_models = adapter.PoolModels(converter)
    for window, strides, padding in STRUCTURES:
        yield ("MAX_POOL_2D window %s strides %s %s" % (window, strides, padding),
               pool_models.model(window, strides, padding),
               converter.max_pool([None] * 4, window, strides, padding))
    arg_models = adapter.ArgModels(converter)
    for op in ("ARGMIN", "ARGMAX"):
        for dml_type in adapter.ARG_TYPES:
            dtype = adapter.TF_TYPES[dml_type]
            for index_type in ("int32", "int64"):
                yield ("%s %s %s" % (op, dtype, index_type),
                       arg_models.model(op, dtype, index_type),
                       converter.arg_reduce(op, dtype, [None] * 3, 1, index_type))


def main():
    converter = adapter.Converter()
    print("1..%d" % (len(STRUCTURES) + 2 * len(adapter.ARG_TYPES) * 2))
    failed = 0
    for n, (name, made, converted) in enumerate(checks(converter), 1):
        made, converted = rewritten(made), rewritten(converted)
        ok = made == converted
        failed += not ok
        print("%s %d - %s: the adapter's model is the converter's%s"
              % ("ok" if ok else "not ok", n, name,
                 "" if ok else " (%d and %d bytes differ)" % (len(made), len(converted))))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
