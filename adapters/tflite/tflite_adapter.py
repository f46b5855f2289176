#!/usr/bin/env python3
"""tflite_adapter: ARGMIN, ARGMAX, MAX_POOLING1 and MAX_POOLING2 run by TensorFlow Lite (LiteRT)
builtin kernels, served to dmlcheck over docs/PROTOCOL.md.  Each model is what a TFLite user
writes: a tf.function converted by tf.lite.TFLiteConverter (TensorFlow's converter, builtin ops
only, no TF Select), run by ai_edge_litert.interpreter.Interpreter with one thread.  The adapter
only moves bytes in and out; dmlcheck judges what LiteRT computes.

    B=".venv-adapters/bin/python adapters/tflite/tflite_adapter.py"
    dmlcheck run --backend "process:$B"                    # XNNPACK delegate (the default)
    dmlcheck run --backend "process:$B --kernels builtin"  # TFLite's own kernels only

--kernels picks the kernel set, as an argument of the adapter's command (the process backend
passes its words to the child as argv, so replay lines carry it):
  xnnpack  experimental_op_resolver_type AUTO: the builtin ops with the default delegate,
           XNNPACK, which takes MAX_POOL_2D (float32) where the stride is at most the window;
           ARG_MAX/ARG_MIN, and pooling with a larger stride, stay on TFLite's kernels
  builtin  BUILTIN_WITHOUT_DEFAULT_DELEGATES: TFLite's own kernels for every op
--fixed-shapes converts one model per exact input shape instead of one per structure, and
--convert-each converts every model instead of making some from converted templates (below).

The mappings (docs/SEMANTICS.md):
  ARGMIN/ARGMAX  tf.math.argmin/argmax -> ARG_MIN/ARG_MAX, output_type int32 for UINT32/INT32
                 and int64 for UINT64/INT64 (an index is never negative nor above 2^31, so the
                 bits are DirectML's).  Every case runs as [outer, reduced, inner] reduced
                 over axis 1 (D2: the index is row-major over the reduced axes, ascending):
                 numpy reshapes the data when the reduced axes are adjacent and transposes the
                 kept axes first when they are not (data movement only, exact), so one model
                 per operator, input type and index type serves every shape.  The kernel
                 returns the first extreme element (D3, INCREASING); it has no option for the
                 last one, so DECREASING is UNSUPPORTED
                 (reversing the axis and mapping the index back would be our tie rule, not
                 LiteRT's).
  MAX_POOLING    tf.nn.max_pool2d -> MAX_POOL_2D (NHWC: numpy transposes NCHW in and out,
                 exact).  MAX_POOL_2D has padding VALID or SAME only, no dilation and no
                 indices output, so the adapter answers UNSUPPORTED, naming what is missing, for
                 a 3-D window (5-D input: no MAX_POOL_3D builtin), a dilation above 1, an
                 OutputIndicesTensor, and StartPadding/EndPadding/output sizes that are neither
                 VALID's (no padding, floor size) nor SAME's (output ceil(in/stride), padding
                 total (out-1)*stride + window - in split with the odd element at the end, as
                 TFLite's ComputePaddingHeightWidth does).  Padding is never emulated (a PAD
                 of -inf would be our padding rule, not LiteRT's).
Claims: ARGMIN/ARGMAX on FLOAT32, INT8, UINT8 and INT32 (the converter maps no other type to
ARG_MIN/ARG_MAX without TF Select), every index type; MAX_POOLING1/2 on FLOAT32 (MAX_POOL_2D of
int8/uint8 exists only for quantized tensors, which a converted float graph never has; FLOAT16
converts to no builtin op).  Layout "packed": a TFLite tensor is dense, so dmlcheck gathers and
scatters (stride handling is not LiteRT's and is not tested).

NaN and denormals, found by experiment (reports/published/tflite-2.3.0/README.md): TFLite's
kernels keep denormals; XNNPACK's pooling flushes them, so WELCOME says flushes_denormals for
the xnnpack set only.  NaN follows no one policy: ARG_MIN/ARG_MAX ignore it except a leading NaN
(which, by row length, sticks or skips numbers), TFLite's pooling ignores it (a window of only NaN
gives -FLT_MAX), XNNPACK's pooling answers by position (-inf for a leading NaN).

Caching: conversion takes about 0.1 s on an idle 2-core machine (0.5-1.3 s when it is shared),
so each model is cached by its structure: op, input type and index type (arg: 16 models in all,
8 converted, the int64 ones made from the int32 ones, ArgModels) or the window, strides and
padding mode (pooling: open-ended, so one template is converted and each structure's model is
the template with its Pool2DOptions set, PoolModels), with every size unknown (None) in the
tf.function's signature.  Each made model is the converter's own output for its structure
(tests/adapters/tflite_made_models.py); --convert-each converts each instead.  Each case
resizes the cached interpreter to its sizes (Interpreter.resize_tensor_input and
allocate_tensors, TFLite's own path for a new input shape; XNNPACK is re-applied on it).
--fixed-shapes keys by the exact sizes too and converts with them, to check that both give the
same answers.
"""

import argparse
import contextlib
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import dmlcheck_adapter as dml  # noqa: E402

import numpy as np  # noqa: E402
import ai_edge_litert  # noqa: E402
from ai_edge_litert.interpreter import Interpreter, OpResolverType  # noqa: E402

KERNEL_SETS = {"xnnpack": OpResolverType.AUTO,
               "builtin": OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES}
CACHE_SIZE = 512  # interpreters kept (LRU), each a few KiB of model plus its arena
ARG_TYPES = ("FLOAT32", "INT8", "UINT8", "INT32")
POOL_TYPES = ("FLOAT32",)
CLAIMS = {"ARGMIN": ARG_TYPES, "ARGMAX": ARG_TYPES,
          "MAX_POOLING1": POOL_TYPES, "MAX_POOLING2": POOL_TYPES}


def np_dtype(t):
    return np.dtype("<" + t.format)


@contextlib.contextmanager
def stderr_silenced():
    """File descriptor 2 on /dev/null for the block: the converter's C++ logs several lines
    per model there, past TF_CPP_MIN_LOG_LEVEL; its errors still come back as exceptions."""
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class Converter:
    """tf.function -> TFLite flatbuffer through tf.lite.TFLiteConverter (TensorFlow is imported
    once, before the handshake: it takes 5-60 s on a loaded machine)."""

    def __init__(self):
        import logging
        import tensorflow as tf
        logging.getLogger("absl").setLevel(logging.ERROR)
        tf.get_logger().setLevel("ERROR")
        self.tf = tf

    def convert(self, fn, shape, dtype):
        tf = self.tf
        spec = tf.TensorSpec(shape, getattr(tf, dtype))
        concrete = tf.function(fn, input_signature=[spec]).get_concrete_function()
        with stderr_silenced():
            return tf.lite.TFLiteConverter.from_concrete_functions([concrete], None).convert()

    def arg_reduce(self, op, dtype, shape, axis, index_type):
        tf = self.tf
        reduce = tf.math.argmin if op == "ARGMIN" else tf.math.argmax
        out = getattr(tf, index_type)
        return self.convert(lambda x: reduce(x, axis=axis, output_type=out), shape, dtype)

    def max_pool(self, shape, window, strides, padding):
        tf = self.tf
        return self.convert(lambda x: tf.nn.max_pool2d(x, window, strides, padding), shape, "float32")


class PoolModels:
    """MAX_POOL_2D models for any window, strides and padding mode from one converted template.
    The converter's model for a pooling structure differs from another structure's only in the
    operator's Pool2DOptions (filter and stride sizes, padding), so the template, converted once
    by Converter.max_pool, is read with TensorFlow's flatbuffer_utils, given the structure's
    options and written back: about 1 ms, where a conversion takes 0.1-1.3 s.  The model is the
    converter's: tests/adapters/tflite_made_models.py checks, over many structures, that it is
    identical to what the converter writes for that structure (both read and rewritten by
    flatbuffer_utils, which serialises one model one way)."""

    def __init__(self, converter):
        from tensorflow.lite.python import schema_py_generated as schema
        from tensorflow.lite.tools import flatbuffer_utils
        self.converter = converter
        self.utils = flatbuffer_utils
        self.paddings = {"VALID": schema.Padding.VALID, "SAME": schema.Padding.SAME}
        self.template = None

    def model(self, window, strides, padding):
        if self.template is None:
            self.template = bytes(self.converter.max_pool([None] * 4, [1, 1], [1, 1], "VALID"))
        model = self.utils.read_model_from_bytearray(bytearray(self.template))
        (op,) = model.subgraphs[0].operators
        options = op.builtinOptions
        options.filterHeight, options.filterWidth = window
        options.strideH, options.strideW = strides
        options.padding = self.paddings[padding]
        return bytes(self.utils.convert_object_to_bytearray(model))


class ArgModels:
    """ARG_MIN/ARG_MAX models for both index types from one conversion per operator and input
    type: the converter's int64 model differs from its int32 one only in the operator's
    output_type and the output tensor's type, so the int32 model is converted and, for int64,
    both are set through flatbuffer_utils (checked against the converter as PoolModels' are)."""

    def __init__(self, converter):
        from tensorflow.lite.python import schema_py_generated as schema
        from tensorflow.lite.tools import flatbuffer_utils
        self.converter = converter
        self.utils = flatbuffer_utils
        self.index_types = {"int32": schema.TensorType.INT32, "int64": schema.TensorType.INT64}
        self.templates = {}

    def model(self, op, dtype, index_type):
        template = self.templates.get((op, dtype))
        if template is None:
            template = bytes(self.converter.arg_reduce(op, dtype, [None] * 3, 1, "int32"))
            self.templates[(op, dtype)] = template
        model = self.utils.read_model_from_bytearray(bytearray(template))
        graph = model.subgraphs[0]
        (node,) = graph.operators
        (output,) = node.outputs
        node.builtinOptions.outputType = self.index_types[index_type]
        graph.tensors[output].type = self.index_types[index_type]
        return bytes(self.utils.convert_object_to_bytearray(model))


TF_TYPES = {"FLOAT32": "float32", "INT8": "int8", "UINT8": "uint8", "INT32": "int32"}


def arg_plan(desc, x):
    """(model key, converter arguments, numpy axis order or None) for ARGMIN/ARGMAX.  Every case
    runs as a rank-3 [outer, reduced, inner] tensor reduced over axis 1: a reshape of the data
    when the reduced axes are adjacent, after a transpose (kept axes first) when they are not.
    Both only move data, and the flattened reduced axes are row-major in ascending order (D2)."""
    if desc["AxisDirection"] != "INCREASING":
        raise dml.Unsupported("LiteRT %s: ARG_MIN/ARG_MAX return the first extreme element and "
                              "have no option for the last one (AxisDirection DECREASING, D3)"
                              % ai_edge_litert.__version__)
    axes = sorted(desc["Axes"])
    index_type = "int64" if desc["OutputTensor"]["DataType"].endswith("64") else "int32"
    adjacent = axes == list(range(axes[0], axes[-1] + 1))
    perm = None if adjacent else [a for a in range(len(x.shape)) if a not in axes] + axes
    key = (desc["op"], x.dtype, index_type)
    return key, (desc["op"], TF_TYPES[x.dtype], index_type), (perm, axes)


def arg_view(data, perm, axes):
    """The input as [outer, reduced, inner] (see arg_plan)."""
    if perm is not None:
        data = np.ascontiguousarray(data.transpose(perm))
        first, last = len(perm) - len(axes), len(perm) - 1
    else:
        first, last = axes[0], axes[-1]
    shape = data.shape
    return data.reshape(int(np.prod(shape[:first])), int(np.prod(shape[first:last + 1])),
                        int(np.prod(shape[last + 1:])))


def pool_padding_mode(desc, ins, outs):
    """'VALID' or 'SAME' when the descriptor's padding and output sizes are exactly that mode's
    for these sizes, else None."""
    window, strides = desc["WindowSize"], desc["Strides"]
    start, end = list(desc["StartPadding"]), list(desc["EndPadding"])
    if not any(start) and not any(end) and outs == [(i - w) // s + 1 for i, w, s in zip(ins, window, strides)]:
        return "VALID"
    same_out = [-(-i // s) for i, s in zip(ins, strides)]
    total = [max((o - 1) * s + w - i, 0) for o, s, w, i in zip(same_out, strides, window, ins)]
    if outs == same_out and start == [t // 2 for t in total] and end == [t - t // 2 for t in total]:
        return "SAME"
    return None


def pool_plan(desc, x):
    """(model key, converter arguments) for MAX_POOLING1/2, or UNSUPPORTED naming the missing
    feature."""
    where = "LiteRT %s MAX_POOL_2D" % ai_edge_litert.__version__
    if len(desc["WindowSize"]) != 2:
        raise dml.Unsupported("%s pools 2 spatial dimensions; this case pools %d (no MAX_POOL_3D "
                              "builtin)" % (where, len(desc["WindowSize"])))
    if "OutputIndicesTensor" in desc:
        raise dml.Unsupported("%s has no indices output (OutputIndicesTensor)" % where)
    dil = desc.get("Dilations") or [1, 1]
    if any(d != 1 for d in dil):
        raise dml.Unsupported("%s has no dilation (Dilations %s)" % (where, dil))
    ins, outs = list(x.shape[2:]), list(desc["OutputTensor"]["Sizes"][2:])
    mode = pool_padding_mode(desc, ins, outs)
    if mode is None:
        raise dml.Unsupported(
            "%s pads VALID or SAME only: StartPadding %s, EndPadding %s with output %s is "
            "neither (input %s, window %s, strides %s)" % (
                where, desc["StartPadding"], desc["EndPadding"], outs, ins, desc["WindowSize"],
                desc["Strides"]))
    key = ("MAX_POOL_2D", tuple(desc["WindowSize"]), tuple(desc["Strides"]), mode)
    return key, (list(desc["WindowSize"]), list(desc["Strides"]), mode)


class Adapter:
    def __init__(self, kernels, fixed_shapes, convert_each=False):
        self.resolver = KERNEL_SETS[kernels]
        self.fixed_shapes = fixed_shapes
        self.convert_each = convert_each or fixed_shapes
        self.converter = Converter()
        self.pool_models = PoolModels(self.converter)
        self.arg_models = ArgModels(self.converter)
        self.interpreters = dml.DescriptorCache(self.new_interpreter, CACHE_SIZE,
                                                key=self.interpreter_key)

    def interpreter_key(self, key, shape, build):
        """A model structure's key, and with --fixed-shapes the exact shape too."""
        return key + (tuple(shape),) if self.fixed_shapes else key

    def new_interpreter(self, key, shape, build):
        """[Interpreter, the input shape it is allocated for (None: not yet)] of build's model."""
        signature = list(shape) if self.fixed_shapes else [None] * len(shape)
        model = build(signature)
        return [Interpreter(model_content=model, experimental_op_resolver_type=self.resolver,
                            num_threads=1), None]

    def interpreter(self, key, shape, build):
        """The cached interpreter of a model structure, resized to shape."""
        entry = self.interpreters.get(key, shape, build)
        it, current = entry
        if current != tuple(shape):
            it.resize_tensor_input(it.get_input_details()[0]["index"], list(shape))
            it.allocate_tensors()
            entry[1] = tuple(shape)
        return it

    @staticmethod
    def invoke(it, data):
        it.set_tensor(it.get_input_details()[0]["index"], data)
        it.invoke()
        return it.get_tensor(it.get_output_details()[0]["index"])

    def arg_reduce(self, desc, x, data):
        key, (op, dtype, index_type), (perm, axes) = arg_plan(desc, x)
        data = arg_view(data, perm, axes)
        it = self.interpreter(key, data.shape,
                              lambda sig: self.arg_model(sig, op, dtype, index_type))
        return self.invoke(it, data)

    def arg_model(self, signature, op, dtype, index_type):
        if self.convert_each:
            return self.converter.arg_reduce(op, dtype, signature, 1, index_type)
        return self.arg_models.model(op, dtype, index_type)

    def pool_model(self, signature, window, strides, mode):
        if self.convert_each:
            return self.converter.max_pool(signature, window, strides, mode)
        return self.pool_models.model(window, strides, mode)

    def max_pool(self, desc, x, data):
        key, (window, strides, mode) = pool_plan(desc, x)
        nhwc = np.ascontiguousarray(data.transpose(0, 2, 3, 1))
        it = self.interpreter(key, nhwc.shape,
                              lambda sig: self.pool_model(sig, window, strides, mode))
        return self.invoke(it, nhwc).transpose(0, 3, 1, 2)

    def run(self, desc, tensors):
        x = tensors["input"]
        data = np.frombuffer(x.data, dtype=np_dtype(x)).reshape(x.shape)
        if desc["op"] in ("ARGMIN", "ARGMAX"):
            got = self.arg_reduce(desc, x, data)
        elif desc["op"] in ("MAX_POOLING1", "MAX_POOLING2"):
            got = self.max_pool(desc, x, data)
        else:
            raise dml.Unsupported("tflite_adapter has no mapping for " + desc["op"])
        out = tensors["output"]
        got = np.asarray(got)
        if got.size != out.elements:
            raise ValueError("LiteRT returned shape %s; the descriptor asks for %s"
                             % (got.shape, list(out.shape)))
        return {"output": got.reshape(out.shape).astype(np_dtype(out)).tobytes()}


def main():
    p = argparse.ArgumentParser(description="dmlcheck adapter for TensorFlow Lite (LiteRT)")
    p.add_argument("--kernels", choices=sorted(KERNEL_SETS), default="xnnpack",
                   help="xnnpack: the default delegate (XNNPACK) where it takes the op; "
                        "builtin: TFLite's own kernels only (default: xnnpack)")
    p.add_argument("--fixed-shapes", action="store_true",
                   help="convert one model per exact input shape, not one per structure")
    p.add_argument("--convert-each", action="store_true",
                   help="convert every model with the converter, not from converted templates "
                        "(PoolModels, ArgModels; --fixed-shapes implies it)")
    args = p.parse_args()
    adapter = Adapter(args.kernels, args.fixed_shapes, args.convert_each)
    tf = adapter.converter.tf
    dml.serve(adapter.run, name="tflite", version=ai_edge_litert.__version__, claims=dict(CLAIMS),
              layout="packed", max_feature_level="6_4", flushes_denormals=args.kernels == "xnnpack",
              platform="LiteRT (%s kernels)" % args.kernels,
              driver="ai-edge-litert %s; converter tensorflow %s; python %s"
                     % (ai_edge_litert.__version__, tf.__version__, sys.version.split()[0]))


if __name__ == "__main__":
    main()
