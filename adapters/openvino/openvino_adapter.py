#!/usr/bin/env python3
"""openvino_adapter: ARGMIN, ARGMAX, MAX_POOLING1 and MAX_POOLING2 as OpenVINO models run by the
CPU plugin, served to dmlcheck over docs/PROTOCOL.md.  Each case runs on one small ov.Model
built with the opset API; compiled models are kept in an LRU cache (--cache-size, default 128)
keyed by what the model depends on (model_key), since compiling costs 100-400 ms a model; the
adapter only moves bytes in and out, and reports whatever OpenVINO computes.

    dmlcheck exec --backend "process:$PWD/.venv-adapters/bin/python $PWD/adapters/openvino/openvino_adapter.py" corpus/conformance/*/*.json
    dmlcheck run --backend "process:.venv-adapters/bin/python adapters/openvino/openvino_adapter.py" --cases 2000

Options: --no-cache compiles a model for every case (to measure what the cache saves);
--threads N sets INFERENCE_NUM_THREADS (default 1: dmlcheck's machines are small and shared);
--performance keeps the CPU plugin's default EXECUTION_MODE_HINT (PERFORMANCE), which on CPUs
with bf16 units may compute FLOAT32 models in bf16 (the default here is ACCURACY, which keeps
the model's own precision: DirectML's operators are exact).

Buffers are packed (dmlcheck gathers strided inputs and scatters outputs): an ov.Tensor is a
dense row-major array, so OpenVINO never sees a DirectML stride and stride handling (D1) is not
tested for it.

The mappings (docs/SEMANTICS.md):
  ARGMIN/ARGMAX  numpy moves the reduced axes to the end in ascending order and flattens
                 them (a transpose and a reshape: data movement only), so TopK's index along
                 the last axis of a (rows, n) input is D2's row-major position, and every case
                 runs on one model per operator, input type and index type whose input sizes
                 are dynamic (seed 1, 300 cases: every verdict, kind and first
                 mismatch the same as with a Transpose + Reshape model per descriptor).
                 TopK-11: k = 1, mode max/min, sort by value with stable = true, so the first of
                 equal elements wins (D3, INCREASING).  TopK's spec leaves the order of equal
                 elements undetermined unless stable is set, and stable cannot be combined
                 with sort 'none'; with k = 1 sorting by value changes nothing else.
                 DECREASING (the last extreme element): numpy reverses the flattened axis and
                 maps TopK's index back: (n - 1) - index.  index_element_type is
                 i64 for 64-bit output tensors, i32 otherwise; the values are non-negative, so
                 the output's UINT32/UINT64 bits are the same.
  MAX_POOLING    MaxPool-8 (values and indices; only the values when the case has no
                 OutputIndicesTensor): strides, dilations (all 1 for MAX_POOLING1),
                 pads_begin = StartPadding, pads_end = EndPadding, kernel = WindowSize,
                 axis = 0 so indices are flat over the whole input, N and C included.
                 rounding_type is 'ceil' when some dimension's output is the ceil size (D8),
                 else 'floor'; where ceil rounding then gives a dimension more outputs than the
                 case asks for (DirectML chooses per dimension, OpenVINO per operator), the
                 adapter keeps the leading ones, which are the same windows.  MaxPool's window,
                 strides, pads and dilations are attributes fixed when the model is compiled,
                 so a pooling case reuses a compiled model only when its descriptor repeats
                 (--inputs-per-desc): a pooling case costs a compile (100-400 ms on 2 shared
                 cores).  index_element_type i64
                 for UINT64 indices, i32 for UINT32.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import dmlcheck_adapter as dml  # noqa: E402

import numpy as np  # noqa: E402
import openvino as ov  # noqa: E402
import openvino.opset1 as ops1  # noqa: E402
import openvino.opset8 as ops8  # noqa: E402
import openvino.opset11 as ops11  # noqa: E402

# The DirectML input types the mapping covers: every type the CPU plugin accepts for a
# Parameter feeding TopK and MaxPool.
INPUT_TYPES = ["FLOAT32", "FLOAT16", "INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32",
               "INT64", "UINT64"]
OV_TYPES = {"FLOAT32": ov.Type.f32, "FLOAT16": ov.Type.f16, "INT8": ov.Type.i8,
            "UINT8": ov.Type.u8, "INT16": ov.Type.i16, "UINT16": ov.Type.u16,
            "INT32": ov.Type.i32, "UINT32": ov.Type.u32, "INT64": ov.Type.i64,
            "UINT64": ov.Type.u64}
# numpy's canonical dtypes (little-endian hosts): ov.Tensor refuses the equal but differently
# spelled dtype('<q') that a struct format character gives for 64-bit integers.
NP_TYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16, "INT8": np.int8, "UINT8": np.uint8,
            "INT16": np.int16, "UINT16": np.uint16, "INT32": np.int32, "UINT32": np.uint32,
            "INT64": np.int64, "UINT64": np.uint64}


def index_type(dml_type):
    """TopK's / MaxPool's index_element_type for a DirectML index tensor type."""
    return "i64" if dml_type in ("INT64", "UINT64") else "i32"


def rows_of(desc, x):
    """The input as a 2-D array (rows, n): the reduced axes moved to the end in ascending order
    and flattened (SPEC D2: the index counts row-major over them), reversed for DECREASING.  A
    transpose, a reshape and a reversal move data and compute nothing, so numpy does them and
    OpenVINO sees every ARGMIN/ARGMAX case as the same TopK over the last axis."""
    axes = sorted(desc["Axes"])
    kept = [a for a in range(x.ndim) if a not in axes]
    n = 1
    for a in axes:
        n *= x.shape[a]
    rows = np.transpose(x, kept + axes).reshape(-1, n)
    if desc["AxisDirection"] == "DECREASING":  # SPEC D3: the last extreme element is the
        rows = rows[:, ::-1]                   # first one of the reversed axis
    return np.ascontiguousarray(rows)


def arg_reduce_model(desc):
    """TopK-11 over the last axis of a (rows, n) input of dynamic sizes: one compiled model per
    operator, input type and index type."""
    x = ops1.parameter(ov.PartialShape([-1, -1]), OV_TYPES[desc["InputTensor"]["DataType"]],
                       name="input")
    et = index_type(desc["OutputTensor"]["DataType"])
    mode = "max" if desc["op"] == "ARGMAX" else "min"
    topk = ops11.topk(x, ops1.constant(np.int64(1)), 1, mode, "value", et, True)
    return ov.Model([topk.output(1)], [x], "dmlcheck_" + desc["op"].lower())


def pooled_sizes(desc, in_sp):
    """The floor output size of each spatial dimension (SEMANTICS D8, dilated window)."""
    k = len(desc["WindowSize"])
    dil = desc.get("Dilations") or [1] * k
    return [(in_sp[d] + desc["StartPadding"][d] + desc["EndPadding"][d]
             - ((desc["WindowSize"][d] - 1) * dil[d] + 1)) // desc["Strides"][d] + 1
            for d in range(k)]


def rounding_of(desc):
    """'ceil' when some dimension's output is the ceil size (D8), else 'floor'."""
    want = desc["OutputTensor"]["Sizes"]
    floor = pooled_sizes(desc, desc["InputTensor"]["Sizes"][2:])
    return "ceil" if any(w != f for w, f in zip(want[2:], floor)) else "floor"


def max_pool_model(desc):
    """MaxPool-8 with axis 0 (flat indices over the whole input), floor or ceil rounding, for
    the descriptor's input sizes."""
    shape = desc["InputTensor"]["Sizes"]
    k = len(desc["WindowSize"])
    has_indices = "OutputIndicesTensor" in desc
    et = index_type(desc["OutputIndicesTensor"]["DataType"]) if has_indices else "i32"
    x = ops1.parameter(shape, OV_TYPES[desc["InputTensor"]["DataType"]], name="input")
    pool = ops8.max_pool(x, desc["Strides"], desc.get("Dilations") or [1] * k,
                         desc["StartPadding"], desc["EndPadding"], desc["WindowSize"],
                         rounding_of(desc), None, et, 0)
    outs = [pool.output(0)] + ([pool.output(1)] if has_indices else [])
    return ov.Model(outs, [x], "dmlcheck_" + desc["op"].lower())


BUILDERS = {"ARGMIN": arg_reduce_model, "ARGMAX": arg_reduce_model,
            "MAX_POOLING1": max_pool_model, "MAX_POOLING2": max_pool_model}


def model_key(desc):
    """What a compiled model depends on.  ARGMIN/ARGMAX: the operator, the input type and the
    index type (arg_reduce_model).  MAX_POOLING: OpenVINO's MaxPool takes its
    window, strides, pads and dilations as attributes fixed at compile time and the plugin
    plans for the input's sizes, so the key is the descriptor less what does not reach
    OpenVINO (the tensors' strides and flags: buffers are packed; the comment)."""
    if desc["op"] in ("ARGMIN", "ARGMAX"):
        return (desc["op"], desc["InputTensor"]["DataType"], index_type(desc["OutputTensor"]["DataType"]))
    key = {}
    for field, value in desc.items():
        if isinstance(value, dict) and "Sizes" in value:
            value = {"DataType": value.get("DataType"), "Sizes": value["Sizes"]}
        if field not in ("comment", "feature_level", "must_reject"):
            key[field] = value
    return json.dumps(key, sort_keys=True)


def leading(got, want):
    """The leading `want` outputs of each dimension: where ceil rounding gives a dimension more
    outputs than the case asks for (DirectML chooses per dimension, OpenVINO per operator), the
    leading ones are the same windows."""
    if list(got.shape) == list(want):
        return got
    if got.ndim != len(want) or any(g < w for g, w in zip(got.shape, want)):
        raise ValueError("OpenVINO gives sizes %s; the case asks for %s" % (list(got.shape), list(want)))
    return got[tuple(slice(0, w) for w in want)]


class Runner:
    """Compiles one model per model_key and runs cases on it; the compiled models (with their
    infer requests) are kept in an LRU cache of cache_size entries (0: none kept)."""

    def __init__(self, config, cache_size=128):
        self.core = ov.Core()
        self.config = config
        self.requests = dml.DescriptorCache(self.new_request, cache_size, key=model_key)

    def new_request(self, desc):
        compiled = self.core.compile_model(BUILDERS[desc["op"]](desc), "CPU", self.config)
        return compiled.create_infer_request()

    def request_for(self, desc):
        if desc["op"] not in BUILDERS:
            raise dml.Unsupported("openvino_adapter has no mapping for " + desc["op"])
        return self.requests.get(desc)

    def __call__(self, desc, tensors):
        req = self.request_for(desc)
        t = tensors["input"]
        x = np.frombuffer(t.data, dtype=NP_TYPES[t.dtype], count=t.elements).reshape(t.shape)
        x = rows_of(desc, x) if desc["op"] in ("ARGMIN", "ARGMAX") else np.ascontiguousarray(x)
        req.infer({0: ov.Tensor(x)})
        names = ["output", "indices"] if "indices" in tensors else ["output"]
        result = {}
        for i, name in enumerate(names):
            spec = tensors[name]
            got = req.get_output_tensor(i).data
            if desc["op"].startswith("MAX_POOLING"):
                got = leading(got, spec.shape)
            else:
                if got.size != spec.elements:
                    raise ValueError("TopK gives %d indices; the case asks for %d" % (got.size, spec.elements))
                if desc["AxisDirection"] == "DECREASING":  # back from the reversed axis
                    got = (x.shape[1] - 1) - got
            # Index outputs come as i32/i64; the value is the same in UINT32/UINT64 bits.
            result[name] = np.ascontiguousarray(got).reshape(spec.shape).astype(NP_TYPES[spec.dtype], copy=False).tobytes()
        return result


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--no-cache", action="store_true", help="compile a model for every case")
    p.add_argument("--cache-size", type=int, default=128, help="compiled models kept (LRU, default 128)")
    p.add_argument("--threads", type=int, default=1, help="INFERENCE_NUM_THREADS (default 1)")
    p.add_argument("--performance", action="store_true",
                   help="keep the CPU plugin's default EXECUTION_MODE_HINT (PERFORMANCE)")
    a = p.parse_args()
    config = {"INFERENCE_NUM_THREADS": a.threads}
    if not a.performance:
        config["EXECUTION_MODE_HINT"] = "ACCURACY"
    mode = "PERFORMANCE" if a.performance else "ACCURACY"
    if a.cache_size < 1:
        p.error("--cache-size must be at least 1")
    dml.serve(Runner(config, cache_size=0 if a.no_cache else a.cache_size), name="openvino",
              version=ov.__version__.split("-")[0], operators=list(BUILDERS), layout="packed",
              max_feature_level="6_4", input_types=INPUT_TYPES,
              platform="OpenVINO CPU plugin", device=ov.Core().get_property("CPU", "FULL_DEVICE_NAME"),
              driver="openvino %s, EXECUTION_MODE_HINT %s, %d thread(s); python %s"
                     % (ov.__version__, mode, a.threads, sys.version.split()[0]))


if __name__ == "__main__":
    main()
