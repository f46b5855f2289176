#!/usr/bin/env python3
"""echo_adapter: the protocol's own test child (tests/process/process_cli.sh, the benchmark).
It answers every RUN with zero-filled buffers of exactly the requested sizes (it computes
nothing, so dmlcheck judges most answers wrong; what is tested is the channel), and misbehaves
on request, to show that each fault costs one case and the run goes on:

  --fault KIND --every N   on every Nth RUN request of this child's life:
      crash        dies by SIGSEGV            hang         sleeps for an hour
      exit         exits with status 3        garbage      writes bytes that are no frame
      short        OK with one byte too few   order        OK with the wrong id
      kind         a WELCOME frame instead    error        ERROR with a message
      invalid      INVALID                    unsupported  UNSUPPORTED
  --protocol V             claims protocol version V in its WELCOME
  --refuse TEXT            answers HELLO with ERROR TEXT
  --layout strided|packed  the buffers it asks for (default strided)
  --ops LIST               the operators it claims (default all four)
  --claims JSON            per-operator claims, the helper's dict ({"ARGMAX": ["INT32"]}):
                           WELCOME's "claims" list, which replaces --ops for dmlcheck; a JSON
                           list is sent as WELCOME's "claims" unchecked
  --echo-device            names its device after HELLO's "device" (dmlcheck's --device), so
                           a test can make dmlcheck print a device name of its choosing
It uses the helper's building blocks (Channel, welcome, answer) rather than serve(), because
a fault child must be able to break the protocol the helper keeps.
"""

import argparse
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))
import dmlcheck_adapter as dml  # noqa: E402


def zeros(desc, tensors):
    return {name: bytes(t.nbytes) for name, t in tensors.items() if name != "input"}


def refuse(kind):
    def run(desc, tensors):
        raise (dml.Invalid if kind == "invalid" else dml.Unsupported)("echo_adapter --fault " + kind)
    return run


def fail(desc, tensors):
    raise RuntimeError("echo_adapter --fault error")


def misbehave(ch, kind, request, data):
    """Writes or does what fault `kind` means for this request."""
    rid = request["id"]
    if kind == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif kind == "hang":
        time.sleep(3600)
    elif kind == "exit":
        os._exit(3)
    elif kind == "garbage":
        ch.out.write(b"Traceback (most recent call last): not a frame\n" * 4)
        ch.out.flush()
    elif kind in ("short", "order"):
        _, _, buffers = dml.answer(zeros, request, data)
        joined = b"".join(bytes(b) for b in buffers)
        ch.write(dml.OK, {"id": rid + 1 if kind == "order" else rid},
                 [joined[:-1] if kind == "short" else joined])
    elif kind == "kind":
        ch.write(dml.WELCOME, {"id": rid})
    else:
        ch.write(*dml.answer({"error": fail}.get(kind) or refuse(kind), request, data))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fault", choices=["crash", "hang", "exit", "garbage", "short", "order", "kind",
                                       "error", "invalid", "unsupported"])
    p.add_argument("--every", type=int, default=1)
    p.add_argument("--protocol", type=int, default=dml.PROTOCOL_VERSION)
    p.add_argument("--refuse")
    p.add_argument("--layout", choices=["strided", "packed"], default="strided")
    p.add_argument("--ops", default="ARGMIN,ARGMAX,MAX_POOLING1,MAX_POOLING2")
    p.add_argument("--echo-device", action="store_true")
    p.add_argument("--claims", type=json.loads)
    a = p.parse_args()
    ch = dml.take_stdio()
    try:
        kind, hello, _ = ch.read()
    except EOFError:
        return
    if a.refuse:
        ch.write(dml.ERROR, {"message": a.refuse})
        return
    device = str(hello.get("device") or "") if a.echo_device else ""
    w = dml.welcome("echo", "1", a.ops.split(","), a.layout, None, None, False, "", device, "",
                    a.claims if isinstance(a.claims, dict) else None)
    if isinstance(a.claims, list):  # sent as given, unchecked: dmlcheck's own checks are tested
        w["claims"] = a.claims
    w["protocol"] = a.protocol
    ch.write(dml.WELCOME, w)
    served = 0
    while True:
        try:
            kind, request, data = ch.read()
        except EOFError:
            return
        served += 1
        if a.fault and served % a.every == 0:
            misbehave(ch, a.fault, request, data)
        else:
            ch.write(*dml.answer(zeros, request, data))


if __name__ == "__main__":
    main()
