#!/usr/bin/python3
"""lint.py: the GitHub workflows and the Kubernetes manifest through linters made for them,
offline (issue 22), from the venv .ci/install-lint.sh makes (.venv-lint, pinned in
.ci/lint-requirements.txt):

  - check-jsonschema: every .github/workflows/*.yml (the ClusterFuzzLite ones included)
    against the GitHub workflow schema it vendors (--builtin-schema vendor.github-workflows);
  - zizmor: the GitHub Actions security linter, --offline, --persona auditor (its strictest),
    with .github/zizmor.yml (which says why each ignored finding is ignored): no finding, and
    each ignore there still needed (without the ignores it finds exactly those).  Offline it
    skips its five audits that need GitHub's API (.github/zizmor.yml names them);
  - kubernetes-validate: deploy/kubernetes/*.yaml, --strict (no unknown field), against the
    oldest and the newest Kubernetes API schemas it vendors.

Where this machine can, the linters run in a network namespace of their own with no network
(unshare -n), which shows they need none.  Each linter first proves it can fail: a workflow
with a schema error, one with a template injection and a tag-pinned action, and a manifest
with a misspelt and a mistyped field must each be refused.

Without .venv-lint the test skips (a local build), unless DMLCHECK_REQUIRE_LINT is set, as
.ci/run sets it: then it fails.
Usage: lint.py REPO_ROOT VENV.  Prints TAP.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    print("1..0 # SKIP PyYAML is not installed (Debian: python3-yaml)")
    sys.exit(0)

KUBERNETES_VERSIONS = ("1.25.0", "1.37.0")  # the oldest and newest kubernetes-validate 1.37 ships
TOOLS = ("check-jsonschema", "zizmor", "kubernetes-validate")


def offline_prefix():
    """A command prefix that runs a program with no network, or [] where none works here."""
    for prefix in (["unshare", "-n"], ["unshare", "-r", "-n"]):
        try:
            if subprocess.run(prefix + ["true"], capture_output=True, timeout=10).returncode == 0:
                return prefix
        except (OSError, subprocess.TimeoutExpired):
            pass
    return []


class Linters:
    def __init__(self, venv, root, prefix):
        self.bin = os.path.join(venv, "bin")
        self.root = root
        self.prefix = prefix
        self.zizmor_config = os.path.join(root, ".github", "zizmor.yml")

    def run(self, tool, *args):
        cmd = self.prefix + [os.path.join(self.bin, tool)] + list(args)
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=self.root)
        except subprocess.TimeoutExpired:
            return 124, f"{tool} ran past 120 s"
        return out.returncode, (out.stdout + out.stderr).strip()

    def workflow_schema(self, path):
        return self.run("check-jsonschema", "--builtin-schema", "vendor.github-workflows", path)

    def zizmor(self, *paths, where=False, ignores=True):
        """(exit code, the rule names of its findings (with their files where asked), its
        findings as text)."""
        args = ["--offline", "--persona", "auditor", "--config", self.zizmor_config, "--quiet"]
        args += [] if ignores else ["--no-ignores"]
        rc, out = self.run("zizmor", *args, "--format", "json", *paths)
        try:
            found = sorted({(f["ident"], os.path.basename(
                f["locations"][0]["symbolic"]["key"]["Local"]["verbatim_path"])) if where
                else f["ident"] for f in json.loads(out[out.index("["):])})
        except (ValueError, KeyError, TypeError, IndexError):
            found = None
        if rc != 0 or found:
            out = self.run("zizmor", *args, "--format", "plain", *paths)[1]
        return rc, found, out

    def kubernetes(self, version, path):
        return self.run("kubernetes-validate", "--strict", "--quiet", "-k", version, path)


def zizmor_ignores(config):
    """{(rule, file)}: what .github/zizmor.yml ignores (entries are FILE[:LINE[:COLUMN]])."""
    with open(config) as f:
        rules = (yaml.safe_load(f) or {}).get("rules") or {}
    return {(rule, entry.split(":")[0]) for rule, settings in rules.items()
            for entry in (settings or {}).get("ignore", [])}


def pinned_versions(root):
    pins = {}
    with open(os.path.join(root, ".ci", "lint-requirements.txt")) as f:
        for line in f:
            m = re.match(r"([\w.-]+)==(\S+)", line.strip())
            if m:
                pins[m.group(1).lower()] = m.group(2)
    return pins


def self_checks(lint, tmp):
    """Each linter refuses what it is here to refuse."""
    tests = []
    broken = os.path.join(tmp, "broken.yml")
    with open(broken, "w") as f:
        f.write("on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    timeout-minutes: soon\n"
                "    stepz:\n      - run: echo hi\n")
    rc, out = lint.workflow_schema(broken)
    tests.append(("check_jsonschema_refuses_a_broken_workflow",
                  rc == 1 and "'stepz' was unexpected" in out, out))

    unsafe_dir = os.path.join(tmp, ".github", "workflows")
    os.makedirs(unsafe_dir)
    unsafe = os.path.join(unsafe_dir, "unsafe.yml")
    with open(unsafe, "w") as f:
        f.write("name: unsafe\non: {issues: {types: [opened]}}\npermissions: {}\njobs:\n  a:\n"
                "    name: a\n    runs-on: ubuntu-24.04\n    steps:\n"
                "      - uses: actions/checkout@v4\n        with: {persist-credentials: false}\n"
                "      - run: echo \"${{ github.event.issue.title }}\"\n")
    rc, found, out = lint.zizmor(unsafe)
    want = {"template-injection", "unpinned-uses"}
    tests.append(("zizmor_refuses_an_injection_and_a_tag_pin",
                  rc != 0 and found is not None and want <= set(found),
                  f"findings {found}, wanted {sorted(want)}: {out}"))

    manifest = os.path.join(tmp, "broken.yaml")
    with open(manifest, "w") as f:
        f.write("apiVersion: batch/v1\nkind: Job\nmetadata: {name: misspelt}\nspec:\n"
                "  parallelizm: 4\n  template: {spec: {restartPolicy: Never, containers: "
                "[{name: c, image: busybox}]}}\n---\napiVersion: batch/v1\nkind: Job\n"
                "metadata: {name: mistyped}\nspec:\n  completions: four\n  template: {spec: "
                "{restartPolicy: Never, containers: [{name: c, image: busybox}]}}\n")
    rc, out = lint.kubernetes(KUBERNETES_VERSIONS[0], manifest)
    tests.append(("kubernetes_validate_refuses_a_misspelt_and_a_mistyped_field",
                  rc == 1 and "job/misspelt" in out and "job/mistyped" in out, out))
    return tests


def repository_checks(lint, root):
    tests = []
    workflows = sorted(glob.glob(os.path.join(root, ".github", "workflows", "*.yml")))
    for path in workflows:
        name = os.path.relpath(path, root)
        rc, out = lint.workflow_schema(name)
        tests.append((f"{name} matches the GitHub workflow schema", rc == 0, out))
    if workflows:
        rc, found, out = lint.zizmor(".github/workflows")
        tests.append(("zizmor finds nothing in .github/workflows (persona auditor)",
                      rc == 0 and found == [], out))
        ignored = zizmor_ignores(lint.zizmor_config)
        rc, found, out = lint.zizmor(".github/workflows", where=True, ignores=False)
        tests.append(("every ignore in .github/zizmor.yml is still needed, and no other",
                      found is not None and set(found) == ignored,
                      f"ignored {sorted(ignored)}; found without the ignores {found}: {out}"))
    manifests = sorted(glob.glob(os.path.join(root, "deploy", "kubernetes", "*.yaml")))
    for path in manifests:
        name = os.path.relpath(path, root)
        for version in KUBERNETES_VERSIONS:
            rc, out = lint.kubernetes(version, name)
            tests.append((f"{name} matches the Kubernetes {version} schema (strict)",
                          rc == 0, out))
    if not workflows or not manifests:
        tests.append(("workflows and manifests found", False,
                      f"{len(workflows)} workflows, {len(manifests)} manifests"))
    return tests


def main():
    root, venv = sys.argv[1], sys.argv[2]
    missing = [t for t in TOOLS if not os.access(os.path.join(venv, "bin", t), os.X_OK)]
    if missing:
        why = f"no {', '.join(missing)} in {venv}: bash .ci/install-lint.sh installs them"
        if os.environ.get("DMLCHECK_REQUIRE_LINT"):
            print(f"1..1\nnot ok 1 - the pinned linters are installed\n# {why}")
            return 1
        print(f"1..0 # SKIP {why} (.ci/run requires them)")
        return 0
    prefix = offline_prefix()
    lint = Linters(venv, root, prefix)
    pins = pinned_versions(root)
    versions = {t: lint.run(t, "--version")[1] for t in TOOLS}
    tests = [("the linters are the pinned versions",
              all(pins.get(t) and pins[t] in versions[t] for t in TOOLS),
              f"pinned {[(t, pins.get(t)) for t in TOOLS]}, installed {versions}")]
    with tempfile.TemporaryDirectory() as tmp:
        tests += self_checks(lint, tmp)
    tests += repository_checks(lint, root)

    print(f"1..{len(tests)}")
    failed = 0
    for n, (title, ok, detail) in enumerate(tests, 1):
        print(f"{'ok' if ok else 'not ok'} {n} - {title}")
        if not ok:
            failed += 1
            for line in (detail or "").splitlines()[:40]:
                print(f"# {line}")
            print(f"# replay: /usr/bin/python3 tests/deploy/lint.py {root} {venv}")
    print("# linters ran " + ("with no network (" + " ".join(prefix) + ")" if prefix else
                              "with the network present (unshare -n is not allowed here); "
                              "zizmor with --offline"))
    return 1 if failed else 0


sys.exit(main())
