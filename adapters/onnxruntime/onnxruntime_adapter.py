#!/usr/bin/env python3
"""onnxruntime_adapter: ARGMIN, ARGMAX, MAX_POOLING1 and MAX_POOLING2 run by ONNX Runtime's CPU
execution provider, served to dmlcheck over docs/PROTOCOL.md.  Each descriptor becomes one ONNX
model (built with the onnx package) as a user of ONNX Runtime would write it; the adapter only
moves bytes in and out and reports whatever ONNX Runtime computes.  dmlcheck judges it.

    dmlcheck exec --backend "process:$PWD/.venv-adapters/bin/python $PWD/adapters/onnxruntime/onnxruntime_adapter.py" corpus/conformance/*/*.json

Layout "packed": ONNX tensors have no strides, so dmlcheck gathers and scatters (stride handling
is not ONNX Runtime's and is not tested).  One InferenceSession per descriptor, cached (keyed by
the descriptor's JSON) and reused for every case that repeats it.

The mappings (docs/SEMANTICS.md):
  ARGMIN/ARGMAX  ArgMin/ArgMax at opset 13, keepdims=1, select_last_index=1 for DECREASING (D3:
                 the last extreme element).  One axis: the node's axis.  Several axes (D2: the
                 index is row-major over the reduced axes in ascending order): Transpose (kept
                 axes, then the reduced axes ascending) and Reshape into one last axis, then
                 ArgMax over it; the int64 result is reshaped to the output's sizes (the reduced
                 axes have size 1) and converted to the output's index type.
  MAX_POOLING    MaxPool (opset 22): kernel_shape = WindowSize, strides = Strides, pads =
                 StartPadding + EndPadding, dilations = Dilations (MAX_POOLING2; all 1 for
                 MAX_POOLING1), storage_order 0.  Indices output only when the descriptor has an
                 OutputIndicesTensor (ONNX Runtime takes different code paths with and without
                 it).  ONNX's Indices are flat over the whole input (N and C included) with
                 storage_order 0, which is DirectML's flat logical index.  OutputTensor.Sizes
                 decides the rounding (D8): the floor size is ceil_mode 0, the ceil size
                 ceil_mode 1 (ONNX drops a last window starting in the end padding, as DirectML
                 requires).  ceil_mode is one attribute for every spatial dimension; where
                 dimensions differ, the ceil-rounded ones get the end padding that makes their
                 floor size the asked-for size (positions past the input's end are padding, D8).
Claims: the four operators; input types FLOAT32, FLOAT16, INT8, UINT8 (ONNX Runtime's CPU
kernels of both families take them), INT32 and INT64 (its ArgMin/ArgMax kernels take them, its
MaxPool does not); every feature level (6_4).  INT16, UINT16, UINT32 and UINT64 are not claimed:
no CPU kernel of either family takes them, so those cases are skipped and counted.
UNSUPPORTED, with ONNX Runtime's own message, only where ONNX Runtime refuses the model
(REFUSALS): MaxPool on INT32/INT64 ("Type Error": the ONNX MaxPool type constraint has no
integer type but int8/uint8) and a pad not smaller than the kernel ("Pad should be smaller than
kernel"), which DirectML allows.  Within the claims these are unsupported_required, as they
should be: DirectML requires them.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import dmlcheck_adapter as dml  # noqa: E402
from onnx_mapping import OPERATORS, onnx_model, pool_attributes  # noqa: E402

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnxruntime as ort  # noqa: E402

CACHE_SIZE = 256  # sessions kept (LRU); a generated run repeats a descriptor rarely

# The input types ONNX Runtime's CPU kernels take (onnx_mapping's element types).
INPUT_TYPES = ["FLOAT32", "FLOAT16", "INT8", "UINT8", "INT32", "INT64"]
# ONNX Runtime's refusals of a model that are what it cannot express (answered UNSUPPORTED with
# its own message); any other failure to build a session is an ERROR (an adapter bug until shown
# otherwise).
REFUSALS = ("Pad should be smaller than kernel",       # PoolAttributes: pads < kernel_shape
            "Type Error: Type 'tensor(",                # a type outside the operator's constraint
            "Could not find an implementation for")     # no CPU kernel for the type


def np_dtype(t):
    return np.dtype("<" + t.format)


_options = ort.SessionOptions()
_options.intra_op_num_threads = 1
_options.inter_op_num_threads = 1
_options.log_severity_level = 4  # refusals are answered, not logged


def new_session(desc):
    """An InferenceSession for the descriptor's model (onnx_mapping), or dml.Unsupported raised
    when ONNX Runtime refuses the model for a reason in REFUSALS (its message, trimmed to the
    sentence that says why)."""
    model, _ = onnx_model(desc)
    try:
        return ort.InferenceSession(model.SerializeToString(), _options,
                                    providers=["CPUExecutionProvider"])
    except Exception as e:
        text = str(e)
        for refusal in REFUSALS:
            at = text.find(refusal)
            if at >= 0:
                why = " ".join(text[at:].split())[:200]
                if refusal.startswith("Pad"):
                    a = pool_attributes(desc)
                    why += " (pads[dim] < kernel_shape[dim] was false; pads %s, kernel_shape %s)" % (
                        a["pads"], a["kernel_shape"])
                raise dml.Unsupported("ONNX Runtime %s refuses the %s model: %s"
                                      % (ort.__version__, desc["op"], why))
        raise


# One session per descriptor (its JSON); an UNSUPPORTED verdict is kept too.
sessions = dml.DescriptorCache(new_session, CACHE_SIZE)


def result_buffer(t, values, what):
    """The packed bytes of `values` as tensor t (same element count; indices converted from
    ONNX's int64 to t's index type)."""
    values = np.asarray(values)
    if values.size != t.elements:
        raise ValueError("ONNX Runtime returned %s of shape %s; the descriptor asks for %s"
                         % (what, values.shape, list(t.shape)))
    return values.reshape(t.shape).astype(np_dtype(t)).tobytes()


def run(desc, tensors):
    if desc["op"] not in OPERATORS:
        raise dml.Unsupported("onnxruntime_adapter has no mapping for " + desc["op"])
    session = sessions.get(desc)
    x = tensors["input"]
    feed = {"x": np.frombuffer(x.data, dtype=np_dtype(x)).reshape(x.shape)}
    got = session.run(None, feed)
    result = {"output": result_buffer(tensors["output"], got[0], "the output")}
    if "indices" in tensors:
        result["indices"] = result_buffer(tensors["indices"], got[1], "Indices")
    return result


def main():
    dml.serve(run, name="onnxruntime", version=ort.__version__, operators=list(OPERATORS),
              layout="packed", max_feature_level="6_4", input_types=INPUT_TYPES,
              platform="ONNX Runtime (CPUExecutionProvider)",
              driver="onnx %s; python %s" % (onnx.__version__, sys.version.split()[0]))


if __name__ == "__main__":
    main()
