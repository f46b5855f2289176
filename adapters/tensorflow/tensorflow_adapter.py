#!/usr/bin/env python3
"""tensorflow_adapter: ARGMIN, ARGMAX, MAX_POOLING1 and MAX_POOLING2 run by TensorFlow's CPU
kernels in eager mode, served to dmlcheck over docs/PROTOCOL.md.  Each descriptor is mapped onto
TensorFlow as a user of TensorFlow would write it; the adapter only moves bytes and indices and
reports whatever TensorFlow computes.  dmlcheck judges it.

    dmlcheck exec --backend "process:$PWD/.venv-adapters/bin/python $PWD/adapters/tensorflow/tensorflow_adapter.py" corpus/conformance/*/*.json
    dmlcheck run --backend "process:.venv-adapters/bin/python adapters/tensorflow/tensorflow_adapter.py" --cases 2000

Eager execution: every case is a handful of eager ops, which TensorFlow dispatches to its
kernels without building a graph, so there is nothing to compile or cache per descriptor
(a tf.function would retrace for every new shape, which is slower on dmlcheck's cases).

Layout "packed": a tf.Tensor has no strides, so dmlcheck gathers strided inputs and scatters
the outputs (stride handling is not TensorFlow's and is not tested).  TensorFlow's CPU pooling
kernels take channels-last data (NHWC / NDHWC: MaxPool with explicit padding and
MaxPoolWithArgmax refuse NCHW on the CPU), so the NCHW input is transposed to channels-last
first and the outputs back; --data-format NCHW pools channels-first where TensorFlow's CPU
kernels accept it: FLOAT32/FLOAT16 values without indices, undilated, VALID after tf.pad (other
types and paths stay channels-last: "Default MaxPoolingOp only supports NHWC on device type CPU").

The mappings (docs/SEMANTICS.md):
  ARGMIN/ARGMAX  tf.math.argmin / tf.math.argmax(x, axis, output_type=int32 for UINT32/INT32,
                 int64 for UINT64/INT64).  Several axes (D2: the index is row-major over the
                 reduced axes in ascending order): tf.transpose (kept axes, then the reduced
                 axes ascending) and tf.reshape into one last axis.  INCREASING (D3: the first
                 extreme) is TensorFlow's documented rule ("In case of identity returns the
                 smallest index");
                 DECREASING (the last extreme) reverses the axis with tf.reverse and maps the
                 index back: (n - 1) - i.  Every DirectML input type is a TensorFlow type.
  MAX_POOLING    Padding: OutputTensor.Sizes decide the rounding (D8), so each spatial
                 dimension's end padding is the one under which the asked-for windows fit:
                 (out - 1) * stride + dilated window - input - start (positions past the
                 input's end are padding).  A negative end (the last elements are in no window)
                 slices them off.
                 Values only (no OutputIndicesTensor): 4-D, dilation 1: tf.nn.max_pool2d with
                 explicit padding [[0,0],[top,bottom],[left,right],[0,0]] when every pad is
                 smaller than the window (TensorFlow's own limit; 'VALID' when all are 0), else tf.pad with the type's
                 lowest value (-inf, or the integer minimum) and VALID: exact for the values,
                 since a maximum never changes by adding its type's lowest value.  5-D:
                 tf.nn.max_pool3d (no explicit padding in TensorFlow: tf.pad, VALID).  Dilation
                 above 1: tf.nn.pool(..., 'MAX', dilations=...) on the tf.pad-ed input with
                 stride 1 (TensorFlow refuses strides > 1 with dilations > 1), then every
                 stride-th output: the same windows, as TensorFlow computes them.  UINT32 and
                 UINT64 (no MaxPool kernel): tf.nn.max_pool_with_argmax, its values only.
                 With indices: tf.nn.max_pool_with_argmax (4-D only, no dilations, NHWC,
                 include_batch_in_index=True so its index is flat over the whole NHWC input:
                 ((n * H + y) * W + x) * C + c), mapped to DirectML's flat NCHW index (D1).
                 --no-batch-in-index takes TensorFlow's other form, (y * W + x) * C + c within
                 one image, and the adapter supplies n.
                 Padding 'SAME' when the descriptor's padding is TensorFlow's SAME padding
                 (padded positions never win); otherwise tf.pad with the lowest value and
                 VALID.  End padding is exact (TensorFlow replaces its best only by a greater
                 value, so a later lowest value never wins); start padding is exact only when
                 the input holds no NaN and no lowest value (a pad scanned first would win a
                 tie with a real lowest value, and would skip a first NaN TensorFlow keeps), so
                 those cases answer UNSUPPORTED.  An index naming a pad position (a window
                 wholly in padding, D7) is written as D7's "no element" (all ones).
Claims: ARGMIN/ARGMAX every input and output type; MAX_POOLING1/2 every input type DirectML
allows (TensorFlow has a 2-D kernel for each), indices UINT32/UINT64.  UNSUPPORTED, each with
its reason, where TensorFlow has no such kernel: 5-D pooling of anything but FLOAT32
(MaxPool3D on the CPU: float, bfloat16; FLOAT16 has no CPU kernel), 5-D pooling with indices
and dilated pooling with indices (MaxPoolWithArgmax is 2-D and undilated), dilated UINT32/UINT64
pooling, and start padding with indices on an input holding NaN or the type's lowest value.
"""

import argparse
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # TensorFlow's start-up notes go to stderr
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import dmlcheck_adapter as dml  # noqa: E402

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

NP_TYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16, "INT8": np.int8, "UINT8": np.uint8,
            "INT16": np.int16, "UINT16": np.uint16, "INT32": np.int32, "UINT32": np.uint32,
            "INT64": np.int64, "UINT64": np.uint64}
# DirectML types the 2-D MaxPool kernel has on the CPU (its T list: half, bfloat16, float,
# double, int32, int64, uint8, int16, int8, uint16, qint8); the 3-D one has float only.
MAXPOOL2D_TYPES = {"FLOAT32", "FLOAT16", "INT8", "UINT8", "INT16", "UINT16", "INT32", "INT64"}
MAXPOOL3D_TYPES = {"FLOAT32"}
# The types TensorFlow's CPU pooling takes channels-first (NCHW, NCDHW: oneDNN's, floats only).
NCHW_TYPES = {"FLOAT32", "FLOAT16"}
# "Argmax and Argmin only support up to 7 input dimensions" (TensorFlow's ArgOp).
MAX_ARG_RANK = 7


def array_of(t):
    return np.frombuffer(t.data, dtype=NP_TYPES[t.dtype]).reshape(t.shape)


def packed(t, values):
    """The packed bytes of `values` as tensor t (converted to t's type)."""
    values = np.asarray(values)
    if values.size != t.elements:
        raise ValueError("TensorFlow returned shape %s; the descriptor asks for %s"
                         % (values.shape, list(t.shape)))
    return values.reshape(t.shape).astype(NP_TYPES[t.dtype]).tobytes()


def arg_reduce(desc, tensors, options):
    x = tf.constant(array_of(tensors["input"]))
    axes = sorted(desc["Axes"])
    if len(axes) == 1 and x.shape.rank <= MAX_ARG_RANK:
        y, axis = x, axes[0]            # TensorFlow's own reduction along any axis
    else:
        # SPEC D2: the reduced axes last, ascending, flattened into one row-major axis; the
        # kept axes become one when TensorFlow's rank limit needs it (a relabelling only).
        kept = [a for a in range(x.shape.rank) if a not in axes]
        shape = [x.shape[a] for a in kept]
        if len(shape) + 1 > MAX_ARG_RANK:
            shape = [int(np.prod(shape))]
        y, axis = tf.reshape(tf.transpose(x, kept + axes), shape + [-1]), -1
    out = tensors["output"]
    index_type = tf.int64 if out.dtype in ("INT64", "UINT64") else tf.int32
    pick = tf.math.argmin if desc["op"] == "ARGMIN" else tf.math.argmax
    if desc["AxisDirection"] == "DECREASING":  # SPEC D3: the last extreme element
        n = y.shape[axis]
        idx = (n - 1) - pick(tf.reverse(y, [axis]), axis=axis, output_type=index_type)
    else:
        idx = pick(y, axis=axis, output_type=index_type)
    # The index is never negative, so UINT32/UINT64's bits are the int32/int64's.
    return {"output": packed(out, idx.numpy().view(NP_TYPES[out.dtype]))}


def lowest(dtype):
    return -np.inf if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).min


def pool_geometry(desc, in_sp, out_sp):
    """Per spatial dimension: window, stride, dilation, start pad, end pad (SPEC D8: the end
    padding under which the asked-for output windows fit; negative: input left unread)."""
    k = len(desc["WindowSize"])
    dil = list(desc.get("Dilations") or [1] * k)
    geo = []
    for d in range(k):
        w, s = desc["WindowSize"][d], desc["Strides"][d]
        start = desc["StartPadding"][d]
        end = (out_sp[d] - 1) * s + (w - 1) * dil[d] + 1 - in_sp[d] - start
        geo.append((w, s, dil[d], start, end))
    return geo


def pad_channels_last(x, geo, starts=True):
    """x (channels-last) with every spatial dimension padded by tf.pad with the lowest value
    (start padding too when `starts`), or sliced where the end padding is negative."""
    cut = [slice(None)] + [slice(0, x.shape[1 + d] + min(g[4], 0)) for d, g in enumerate(geo)] + [slice(None)]
    x = x[tuple(cut)]
    pads = [[0, 0]] + [[g[3] if starts else 0, max(g[4], 0)] for g in geo] + [[0, 0]]
    if any(p for pair in pads for p in pair):
        x = tf.pad(x, pads, constant_values=tf.constant(lowest(x.dtype.as_numpy_dtype), x.dtype))
    return x


def values_only(x, geo, dtype_name, options):
    """Pooled values (channels-last in, channels-last out) without indices."""
    k = len(geo)
    window, strides = [g[0] for g in geo], [g[1] for g in geo]
    dilated = any(g[2] > 1 for g in geo)
    if k == 3 and dtype_name not in MAXPOOL3D_TYPES:
        raise dml.Unsupported("TensorFlow %s has no CPU MaxPool3D kernel for %s (tf.nn.max_pool3d: "
                              "float32 and bfloat16 only; float16 has no CPU kernel)" % (tf.__version__, dtype_name))
    if dtype_name not in MAXPOOL2D_TYPES:
        if dilated:
            raise dml.Unsupported("TensorFlow %s has no MaxPool kernel for %s (only MaxPoolWithArgmax, "
                                  "which has no dilations)" % (tf.__version__, dtype_name))
        return tf.nn.max_pool_with_argmax(pad_channels_last(x, geo), window, strides, "VALID")[0]
    if dilated:
        xp = pad_channels_last(x, geo)
        y = tf.nn.pool(xp, window, "MAX", strides=[1] * k, padding="VALID", dilations=[g[2] for g in geo])
        return y[(slice(None),) + tuple(slice(None, None, s) for s in strides) + (slice(None),)]
    if options.data_format == "NCHW" and dtype_name in NCHW_TYPES:
        # Channels-first reaches TensorFlow's oneDNN pooling, which takes floats only and no
        # explicit padding ("Default MaxPoolingOp only supports NHWC on device type CPU").
        pool = tf.nn.max_pool2d if k == 2 else tf.nn.max_pool3d
        first, last = [0, k + 1] + list(range(1, k + 1)), [0] + list(range(2, k + 2)) + [1]
        xp = tf.transpose(pad_channels_last(x, geo), first)
        return tf.transpose(pool(xp, window, strides, "VALID", data_format="NCHW" if k == 2 else "NCDHW"), last)
    native = k == 2 and all(0 <= g[3] < g[0] and 0 <= g[4] < g[0] for g in geo)
    if native:  # TensorFlow's own explicit padding: "Left padding N needs to be smaller than the window size"
        pads = [[0, 0]] + [[g[3], g[4]] for g in geo] + [[0, 0]]
        if not any(p for pair in pads for p in pair):
            pads = "VALID"   # what a user writes; TensorFlow takes another kernel path for it
        return tf.nn.max_pool2d(x, window, strides, pads)
    pool = tf.nn.max_pool2d if k == 2 else tf.nn.max_pool3d
    return pool(pad_channels_last(x, geo), window, strides, "VALID")


def same_padding(geo, in_sp, out_sp):
    """True when the descriptor's padding is TensorFlow's 'SAME' padding for these sizes."""
    for d, (w, s, _, start, end) in enumerate(geo):
        if out_sp[d] != -(-in_sp[d] // s):
            return False
        total = max((out_sp[d] - 1) * s + w - in_sp[d], 0)
        if (start, end) != (total // 2, total - total // 2):
            return False
    return True


def with_indices(x, geo, in_sp, out_sp, index_type, batch_in_index):
    """(values, DirectML flat indices) by tf.nn.max_pool_with_argmax; x is NHWC."""
    if len(geo) != 2:
        raise dml.Unsupported("TensorFlow %s has no 3-D max pooling with indices "
                              "(tf.nn.max_pool_with_argmax is 2-D only)" % tf.__version__)
    if any(g[2] > 1 for g in geo):
        raise dml.Unsupported("TensorFlow %s's tf.nn.max_pool_with_argmax has no dilations" % tf.__version__)
    window, strides = [g[0] for g in geo], [g[1] for g in geo]
    targmax = tf.int64 if index_type in ("UINT64", "INT64") else tf.int32
    if same_padding(geo, in_sp, out_sp):
        xp, starts = x, [0, 0]
        padding = "SAME"
    else:
        if any(g[3] for g in geo):
            xn = x.numpy()
            low = lowest(xn.dtype)
            if (xn == low).any() or (np.issubdtype(xn.dtype, np.floating) and np.isnan(xn).any()):
                raise dml.Unsupported(
                    "StartPadding %s with indices is not TensorFlow's SAME padding, and "
                    "tf.max_pool_with_argmax has no explicit padding; padding with %s by tf.pad "
                    "would let a pad win a tie with a real %s, or skip a NaN TensorFlow keeps, "
                    "so the indices would not be TensorFlow's" % ([g[3] for g in geo], low, low))
        xp, starts = pad_channels_last(x, geo), [g[3] for g in geo]
        padding = "VALID"
    values, argmax = tf.nn.max_pool_with_argmax(xp, window, strides, padding,
                                                output_dtype=targmax,
                                                include_batch_in_index=batch_in_index)
    argmax = argmax.numpy().astype(np.int64)
    n, hp, wp, c = xp.shape
    if batch_in_index:
        b, rest = np.divmod(argmax, hp * wp * c)
    else:   # the index counts within its own image: the batch is the output's own
        b = np.broadcast_to(np.arange(n).reshape(n, 1, 1, 1), argmax.shape)
        rest = argmax
    y, rest = np.divmod(rest, wp * c)
    xx, ch = np.divmod(rest, c)
    y, xx = y - starts[0], xx - starts[1]
    inside = (y >= 0) & (y < in_sp[0]) & (xx >= 0) & (xx < in_sp[1])
    flat = ((b * c + ch) * in_sp[0] + y) * in_sp[1] + xx
    return values, np.where(inside, flat, -1)


def max_pooling(desc, tensors, options):
    x = array_of(tensors["input"])
    out = tensors["output"]
    k = x.ndim - 2
    in_sp, out_sp = list(x.shape[2:]), list(out.shape[2:])
    geo = pool_geometry(desc, in_sp, out_sp)
    xl = tf.constant(np.moveaxis(x, 1, -1))           # channels-last
    result = {}
    if "indices" in tensors:
        values, flat = with_indices(xl, geo, in_sp, out_sp, tensors["indices"].dtype,
                                    options.batch_in_index)
        ind = tensors["indices"]
        # -1 (D7's "no element") converts to all ones in either unsigned type.
        result["indices"] = packed(ind, np.moveaxis(flat, -1, 1))
    else:
        values = values_only(xl, geo, tensors["input"].dtype, options)
    values = values.numpy()   # exactly the asked-for windows: the padding was computed from them
    if list(values.shape[1:1 + k]) != out_sp:
        raise ValueError("TensorFlow returned spatial sizes %s; the descriptor asks for %s"
                         % (list(values.shape[1:1 + k]), out_sp))
    result["output"] = packed(out, np.moveaxis(values, -1, 1))
    return result


OPERATORS = {"ARGMIN": arg_reduce, "ARGMAX": arg_reduce,
             "MAX_POOLING1": max_pooling, "MAX_POOLING2": max_pooling}
ALL_TYPES = list(NP_TYPES)
CLAIMS = {"ARGMIN": {"input_types": ALL_TYPES}, "ARGMAX": {"input_types": ALL_TYPES},
          "MAX_POOLING1": {"input_types": ALL_TYPES, "indices_types": ["UINT32", "UINT64"]},
          "MAX_POOLING2": {"input_types": ALL_TYPES, "indices_types": ["UINT32", "UINT64"]}}


def parse_options(argv):
    p = argparse.ArgumentParser(description="dmlcheck's TensorFlow adapter (docs/PROTOCOL.md)")
    p.add_argument("--data-format", choices=["NHWC", "NCHW"], default="NHWC",
                   help="the layout of FLOAT32/FLOAT16 pooling without indices or dilations (NCHW: tf.pad + "
                        "VALID, channels-first; TensorFlow's CPU kernels refuse NCHW for integers, with "
                        "explicit padding and with indices, which stay NHWC)")
    p.add_argument("--no-batch-in-index", dest="batch_in_index", action="store_false",
                   help="call tf.nn.max_pool_with_argmax with include_batch_in_index=False (its index "
                        "then counts within one image; the adapter adds the image's offset)")
    p.add_argument("--threads", type=int, default=1,
                   help="TensorFlow's intra- and inter-op threads (default 1: dmlcheck's machines are shared)")
    return p.parse_args(argv)


def main():
    options = parse_options(sys.argv[1:])
    tf.config.threading.set_intra_op_parallelism_threads(options.threads)
    tf.config.threading.set_inter_op_parallelism_threads(options.threads)

    def run(desc, tensors):
        return OPERATORS[desc["op"]](desc, tensors, options)

    dml.serve(run, name="tensorflow", version=tf.__version__, claims=CLAIMS,
              layout="packed", max_feature_level="6_4", flushes_denormals=True,
              platform="TensorFlow (CPU, eager)",
              driver="%s data format, include_batch_in_index %s; numpy %s; python %s"
                     % (options.data_format, options.batch_in_index, np.__version__, sys.version.split()[0]))


if __name__ == "__main__":
    main()
