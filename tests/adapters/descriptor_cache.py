#!/usr/bin/env python3
"""descriptor_cache.py: dmlcheck_adapter.DescriptorCache, the one LRU cache the adapters keep
their sessions, evaluators, executables, interpreters and compiled models in.  A hit builds
nothing and makes its key the most recent; past `size` keys the least recently used goes; an
Unsupported from build is kept and raised again without a build, any other exception is not
kept; size 0 builds every time; a key function sees the same arguments as build.  Standard
library only.
Usage: descriptor_cache.py ADAPTERS_DIR.  TAP."""

import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "python"))
import dmlcheck_adapter as dml  # noqa: E402


class Builder:
    """build(desc): a fresh object per call, counted; raises what the descriptor names."""

    def __init__(self):
        self.calls = []

    def __call__(self, desc):
        self.calls.append(desc["op"])
        if desc.get("refuse"):
            raise dml.Unsupported("refused " + desc["op"])
        if desc.get("fail"):
            raise ValueError("failed " + desc["op"])
        return object()


def d(op, **more):
    return dict(op=op, **more)


def raised(cache, desc):
    try:
        cache.get(desc)
    except Exception as e:
        return e
    return None


def hits_build_once():
    b = Builder()
    c = dml.DescriptorCache(b, 4)
    first = c.get(d("A", Axes=[0]))
    # The same descriptor with its keys in another order is the same key.
    again = c.get({"Axes": [0], "op": "A"})
    return first is again and b.calls == ["A"]


def least_recently_used_goes():
    b = Builder()
    c = dml.DescriptorCache(b, 2)
    c.get(d("A"))
    c.get(d("B"))
    c.get(d("A"))   # A is now the most recent
    c.get(d("C"))   # B goes
    c.get(d("A"))
    c.get(d("B"))   # built again
    return b.calls == ["A", "B", "C", "B"] and len(c) == 2


def unsupported_is_kept():
    b = Builder()
    c = dml.DescriptorCache(b, 4)
    e1, e2 = raised(c, d("R", refuse=True)), raised(c, d("R", refuse=True))
    return (isinstance(e1, dml.Unsupported) and isinstance(e2, dml.Unsupported)
            and str(e2) == "refused R" and b.calls == ["R"])


def other_errors_are_not_kept():
    b = Builder()
    c = dml.DescriptorCache(b, 4)
    e1, e2 = raised(c, d("F", fail=True)), raised(c, d("F", fail=True))
    return isinstance(e1, ValueError) and isinstance(e2, ValueError) and b.calls == ["F", "F"] \
        and len(c) == 0


def size_zero_keeps_nothing():
    b = Builder()
    c = dml.DescriptorCache(b, 0)
    first, second = c.get(d("A")), c.get(d("A"))
    return first is not second and b.calls == ["A", "A"] and len(c) == 0


def key_function_sees_builds_arguments():
    seen = []

    def build(structure, shape):
        seen.append((structure, shape))
        return [structure, shape]

    c = dml.DescriptorCache(build, 8, key=lambda structure, shape: structure)
    first = c.get(("ARG_MAX", "f32"), (2, 3))
    second = c.get(("ARG_MAX", "f32"), (4, 5))   # same structure: no build
    return first is second and seen == [(("ARG_MAX", "f32"), (2, 3))]


def refuses_a_negative_size():
    try:
        dml.DescriptorCache(Builder(), -1)
    except ValueError:
        return True
    return False


CHECKS = [hits_build_once, least_recently_used_goes, unsupported_is_kept,
          other_errors_are_not_kept, size_zero_keeps_nothing,
          key_function_sees_builds_arguments, refuses_a_negative_size]


def main():
    failed = 0
    for n, check in enumerate(CHECKS, 1):
        ok = check()
        failed += not ok
        print("%s %d - %s" % ("ok" if ok else "not ok", n, check.__name__))
    print("1..%d" % len(CHECKS))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
