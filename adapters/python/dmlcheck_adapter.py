"""dmlcheck_adapter: the child side of dmlcheck's out-of-process protocol (docs/PROTOCOL.md,
version 1), with no dependency beyond the standard library.

An adapter is one function and one call:

    import dmlcheck_adapter as dml

    def run(desc, tensors):
        # desc: the descriptor, with case-file field names ("op", "InputTensor", "Axes", ...)
        # tensors["input"]: a Tensor holding data (a memoryview); tensors["output"] (and
        # tensors["indices"] when the case has one): Tensors that say what to return
        return {"output": out_bytes, "indices": idx_bytes}

    dml.serve(run, name="mine", version="1.0", operators=["ARGMAX"], layout="packed")

With layout="packed" every buffer is the logical tensor in row-major order, exactly
elements * itemsize bytes (dmlcheck gathers and scatters); with layout="strided" every buffer is
exactly TotalTensorSizeInBytes long and laid out by Tensor.strides, and bytes between logical
elements are decoys.  Raise Unsupported(reason) for what the implementation cannot do and
Invalid(reason) for a descriptor it must refuse; any other exception becomes an ERROR reply with
its message, and the adapter keeps serving.  Standard output is the protocol's channel, so
serve() points sys.stdout (and file descriptor 1) at standard error before it starts: print()
is safe for debugging.
"""

import json
import os
import struct
import sys
import traceback
from collections import OrderedDict

PROTOCOL_VERSION = 1
MAGIC = b"DMLP"
HEADER = struct.Struct("<4sIIIQ")  # magic, kind, JSON length, reserved (0), binary length
HELLO, WELCOME, RUN, OK, UNSUPPORTED, INVALID, ERROR = 1, 2, 3, 4, 5, 6, 7

# DirectML data type -> (struct / numpy format character, bytes); formats are little-endian.
TYPES = {
    "FLOAT32": ("f", 4), "FLOAT16": ("e", 2), "FLOAT64": ("d", 8),
    "UINT8": ("B", 1), "INT8": ("b", 1), "UINT16": ("H", 2), "INT16": ("h", 2),
    "UINT32": ("I", 4), "INT32": ("i", 4), "UINT64": ("Q", 8), "INT64": ("q", 8),
}
# Which descriptor tensor each buffer name is.
TENSOR_FIELDS = {"input": "InputTensor", "output": "OutputTensor", "indices": "OutputIndicesTensor"}


class Unsupported(Exception):
    """The implementation cannot run this case (counted as a skip, with the reason)."""


class Invalid(Exception):
    """The implementation refuses the descriptor as invalid at this feature level."""


class ProtocolError(Exception):
    """dmlcheck sent something this helper cannot follow; the adapter exits."""


def packed_strides(shape):
    """Row-major element strides of a gap-free tensor."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


class Tensor:
    """One buffer: its DirectML type, logical shape, element strides (as the buffer is laid
    out: packed strides for a packed child), byte count and, for inputs, its bytes."""

    def __init__(self, name, desc_tensor, nbytes, layout, data=None):
        self.name = name
        self.dtype = desc_tensor["DataType"]
        self.format, self.itemsize = TYPES[self.dtype]
        self.shape = tuple(desc_tensor["Sizes"])
        given = desc_tensor.get("Strides")
        self.strides = tuple(given) if given and layout == "strided" else packed_strides(self.shape)
        self.nbytes = nbytes
        self.data = data

    @property
    def elements(self):
        n = 1
        for size in self.shape:
            n *= size
        return n

    def offsets(self):
        """Element offsets of the logical elements, in row-major order."""
        offsets = [0]
        for size, stride in zip(self.shape, self.strides):
            offsets = [o + i * stride for o in offsets for i in range(size)]
        return offsets

    def values(self):
        """The logical elements as Python numbers, row-major (slow; for small adapters)."""
        unpack = struct.Struct("<" + self.format).unpack_from
        return [unpack(self.data, o * self.itemsize)[0] for o in self.offsets()]

    def pack_values(self, values):
        """A buffer of this tensor's size and layout holding `values` (row-major)."""
        buf = bytearray(self.nbytes)
        pack = struct.Struct("<" + self.format).pack_into
        for o, v in zip(self.offsets(), values):
            pack(buf, o * self.itemsize, v)
        return buf


def descriptor_key(desc):
    """The whole descriptor as one key: its JSON with sorted keys."""
    return json.dumps(desc, sort_keys=True)


class DescriptorCache:
    """What build(*args) makes (a compiled model, a session), kept for the least recently used
    `size` keys, key(*args) each (default: descriptor_key of the one argument, the descriptor).
    An Unsupported that build raises is kept like a result and raised again for its key, so a
    refusal costs one build; any other exception is not kept.  size 0 keeps nothing (builds
    every time)."""

    def __init__(self, build, size, key=descriptor_key):
        if size < 0:
            raise ValueError("a cache of %d entries" % size)
        self.build, self.size, self.key = build, size, key
        self.entries = OrderedDict()

    def __len__(self):
        return len(self.entries)

    def get(self, *args):
        key = self.key(*args)
        try:
            value = self.entries[key]
            self.entries.move_to_end(key)
        except KeyError:
            try:
                value = self.build(*args)
            except Unsupported as refusal:
                value = refusal
            self.entries[key] = value
            if len(self.entries) > self.size:
                self.entries.popitem(last=False)
        if isinstance(value, Unsupported):
            raise value.with_traceback(None)  # not one more traceback per raise
        return value


class Channel:
    """Frames over two file descriptors."""

    def __init__(self, fd_in, fd_out):
        self.inp = os.fdopen(fd_in, "rb", buffering=1 << 16)
        self.out = os.fdopen(fd_out, "wb", buffering=1 << 16)

    def read_exact(self, n):
        data = self.inp.read(n) if n else b""
        if len(data) != n:
            raise EOFError
        return data

    def read(self):
        """(kind, JSON object, binary bytes); EOFError at the end of input."""
        magic, kind, json_len, reserved, bin_len = HEADER.unpack(self.read_exact(HEADER.size))
        if magic != MAGIC or reserved:
            raise ProtocolError("a frame header with magic %r, reserved %d" % (magic, reserved))
        header = json.loads(self.read_exact(json_len))
        return kind, header, self.read_exact(bin_len)

    def write(self, kind, header, buffers=()):
        text = json.dumps(header, separators=(",", ":")).encode()
        self.out.write(HEADER.pack(MAGIC, kind, len(text), 0, sum(len(b) for b in buffers)))
        self.out.write(text)
        for b in buffers:
            self.out.write(b)
        self.out.flush()


def take_stdio():
    """The protocol's channel on duplicates of fds 0 and 1; fd 1 and sys.stdout then go to
    standard error and fd 0 reads /dev/null, so no stray print or library reads the frames."""
    fd_in, fd_out = os.dup(0), os.dup(1)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdout = sys.stderr
    return Channel(fd_in, fd_out)


def error_text(exc):
    """An exception as one message: type, text and where it was raised (last two frames)."""
    where = traceback.extract_tb(exc.__traceback__)[-2:]
    frames = "; ".join("%s:%d in %s" % (os.path.basename(f.filename), f.lineno, f.name) for f in where)
    return "%s: %s (%s)" % (type(exc).__name__, exc, frames)


def tensors_of(request, data):
    """The request's buffers as Tensors: the input with its bytes, the outputs as specs."""
    desc, layout = request["case"], request["layout"]
    tensors, offset = {}, 0
    for spec in request["inputs"]:
        n = spec["bytes"]
        view = memoryview(data)[offset:offset + n]
        tensors[spec["name"]] = Tensor(spec["name"], desc[TENSOR_FIELDS[spec["name"]]], n, layout, view)
        offset += n
    for spec in request["outputs"]:
        tensors[spec["name"]] = Tensor(spec["name"], desc[TENSOR_FIELDS[spec["name"]]], spec["bytes"], layout)
    return tensors


def answer(run, request, data):
    """(reply kind, reply JSON, buffers) for one RUN request."""
    rid = request["id"]
    try:
        tensors = tensors_of(request, data)
        result = run(request["case"], tensors)
        buffers = []
        for spec in request["outputs"]:
            buf = result.get(spec["name"]) if isinstance(result, dict) else None
            if buf is None:
                raise ValueError("the adapter returned no %r buffer" % spec["name"])
            buf = memoryview(buf).cast("B")
            if buf.nbytes != spec["bytes"]:
                raise ValueError("the adapter returned %d bytes for %r; the %s layout needs %d"
                                 % (buf.nbytes, spec["name"], request["layout"], spec["bytes"]))
            buffers.append(buf)
        return OK, {"id": rid}, buffers
    except Unsupported as e:
        return UNSUPPORTED, {"id": rid, "reason": str(e) or "unsupported"}, ()
    except Invalid as e:
        return INVALID, {"id": rid, "reason": str(e) or "invalid"}, ()
    except Exception as e:  # the adapter's bug or limit, reported for this case only
        return ERROR, {"id": rid, "message": error_text(e)}, ()


CLAIM_KEYS = ("input_types", "output_types", "indices_types")


def claims_list(claims):
    """WELCOME's "claims" (docs/PROTOCOL.md, "Claims per operator") from a dict: operator name
    -> a list of input types, or -> a dict with any of input_types, output_types and
    indices_types (absent or empty: every type), and "indices": False for a pooling operator
    claimed only without an OutputIndicesTensor.  {"ARGMAX": ["FLOAT32", "INT32"],
    "MAX_POOLING2": {"input_types": ["FLOAT32"], "indices_types": ["UINT32"]}}."""
    out = []
    for op, types in claims.items():
        entry = {"op": op}
        spec = types if isinstance(types, dict) else {"input_types": types}
        for key, value in spec.items():
            if key == "indices":
                if not isinstance(value, bool):
                    raise ValueError("claims[%r]: 'indices' must be True or False" % op)
                if not value:
                    entry[key] = False
                continue
            if key not in CLAIM_KEYS:
                raise ValueError("claims[%r]: %r is none of %s, indices"
                                 % (op, key, ", ".join(CLAIM_KEYS)))
            if value:
                entry[key] = list(value)
        out.append(entry)
    return out


def welcome(name, version, operators, layout, max_feature_level, input_types, flushes_denormals,
            platform, device, driver, claims=None):
    """The WELCOME frame's JSON (docs/PROTOCOL.md, "Handshake").  With claims (claims_list's
    dict), operators defaults to the claimed ones."""
    if layout not in ("strided", "packed"):
        raise ValueError("layout must be 'strided' or 'packed'")
    if operators is None:
        if not claims:
            raise ValueError("give operators, or claims")
        operators = list(claims)
    w = {"protocol": PROTOCOL_VERSION, "name": name, "version": version,
         "operators": list(operators), "layout": layout,
         "flushes_denormals": bool(flushes_denormals)}
    for key, value in (("max_feature_level", max_feature_level), ("input_types", input_types),
                       ("platform", platform), ("device", device), ("driver", driver)):
        if value:
            w[key] = list(value) if key == "input_types" else value
    if claims:
        w["claims"] = claims_list(claims)
    return w


def serve(run, *, name, version, operators=None, layout="strided", max_feature_level=None,
          input_types=None, flushes_denormals=False, platform="", device="", driver="",
          on_hello=None, claims=None):
    """Answers dmlcheck until it closes the channel.  on_hello(hello_json) may refuse to start
    by raising (the message reaches the user, dmlcheck exits 2).  claims: per operator, the
    types it takes (claims_list); it replaces operators and input_types for dmlcheck."""
    ch = take_stdio()
    try:
        kind, hello, _ = ch.read()
    except EOFError:
        return
    if kind != HELLO:
        raise ProtocolError("the first frame is of kind %d, not HELLO" % kind)
    try:
        if hello.get("protocol") != PROTOCOL_VERSION:
            raise ProtocolError("dmlcheck speaks protocol %r; this helper speaks %d"
                                % (hello.get("protocol"), PROTOCOL_VERSION))
        if on_hello:
            on_hello(hello)
        ch.write(WELCOME, welcome(name, version, operators, layout, max_feature_level, input_types,
                                  flushes_denormals, platform, device, driver, claims))
    except Exception as e:
        ch.write(ERROR, {"message": str(e)})
        return
    while True:
        try:
            kind, request, data = ch.read()
        except EOFError:
            return
        if kind != RUN:
            raise ProtocolError("a frame of kind %d where RUN was expected" % kind)
        ch.write(*answer(run, request, data))
