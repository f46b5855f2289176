#!/usr/bin/env python3
"""hostile_adapter: a process adapter that misbehaves the way issue 23 found dmlcheck could not
take (tests/process/hostile.sh).  It answers every RUN with zero-filled buffers (as
echo_adapter.py: the channel is what is tested), and on every Nth RUN of its life:

  --grandchild crash    starts a grandchild in a session of its own (setsid) that keeps the
                        socket open and sleeps for an hour, then dies by SIGSEGV
  --grandchild exit     ... then exits with status 3
  --grandchild linger   ... then answers as usual (the grandchild must still not outlive dmlcheck)
  --every N             which RUNs (default 1)
  --text TEXT           names its platform, device and driver TEXT and refuses every
                        MAX_POOLING2 case as UNSUPPORTED with TEXT as the reason (hostile text
                        for the reports; "\\e" in TEXT becomes ESC, "\\a" BEL, "\\n" a newline)
"""

import argparse
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))
import dmlcheck_adapter as dml  # noqa: E402


def zeros(desc, tensors):
    return {name: bytes(t.nbytes) for name, t in tensors.items() if name != "input"}


def grandchild():
    """A process outside the adapter's group that holds every descriptor the adapter holds."""
    if os.fork() == 0:
        os.setsid()
        time.sleep(3600)
        os._exit(0)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--grandchild", choices=["crash", "exit", "linger"])
    p.add_argument("--every", type=int, default=1)
    p.add_argument("--text")
    a = p.parse_args()
    text = (a.text or "").replace("\\e", "\x1b").replace("\\a", "\x07").replace("\\n", "\n")
    ch = dml.take_stdio()
    try:
        ch.read()
    except EOFError:
        return
    w = dml.welcome("hostile", "1", ["ARGMIN", "ARGMAX", "MAX_POOLING1", "MAX_POOLING2"],
                    "strided", None, None, False, text, text, text)
    ch.write(dml.WELCOME, w)

    def refuse_pooling(desc, tensors):
        if text and desc.get("op") == "MAX_POOLING2":
            raise dml.Unsupported(text)
        return zeros(desc, tensors)

    served = 0
    while True:
        try:
            kind, request, data = ch.read()
        except EOFError:
            return
        served += 1
        if a.grandchild and served % a.every == 0:
            grandchild()
            if a.grandchild == "crash":
                os.kill(os.getpid(), signal.SIGSEGV)
            elif a.grandchild == "exit":
                os._exit(3)
        ch.write(*dml.answer(refuse_pooling, request, data))


if __name__ == "__main__":
    main()
