#!/usr/bin/env python3
"""tflite_pool_models.py: the TFLite adapter's MAX_POOL_2D models, made from one converted
template by setting Pool2DOptions (adapters/tflite/tflite_adapter.py, PoolModels), are the
models TensorFlow's converter writes for each structure: for windows, strides and padding modes
of every kind the generator draws (square and not, stride above and below the window, both
modes for one window), PoolModels' model and the converter's, each read and written back by
flatbuffer_utils, must be the same bytes.  A difference means the converter puts something else
in a pooling model (a new TensorFlow version: convert each structure, --convert-each, until
PoolModels sets it too).  Usage: tflite_pool_models.py ADAPTER_DIR.  TAP."""

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


def main():
    converter = adapter.Converter()
    pool_models = adapter.PoolModels(converter)
    print("1..%d" % len(STRUCTURES))
    failed = 0
    for n, (window, strides, padding) in enumerate(STRUCTURES, 1):
        made = rewritten(pool_models.model(window, strides, padding))
        converted = rewritten(converter.max_pool([None] * 4, window, strides, padding))
        ok = made == converted
        failed += not ok
        print("%s %d - window %s strides %s %s: the template's model is the converter's%s"
              % ("ok" if ok else "not ok", n, window, strides, padding,
                 "" if ok else " (%d and %d bytes differ)" % (len(made), len(converted))))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
