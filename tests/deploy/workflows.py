#!/usr/bin/python3
"""workflows.py: checks the GitHub workflows (.github/workflows/*.yml) without GitHub.

Each file must parse as YAML with `on` and `jobs`; no `run:` script may hold a `${{ }}`
expression (an input or event field pasted into shell is a template injection: it must reach
the script through `env:`); every actions/* action must be at major version 4 or later (the
older ones run on a retired Node and artifacts v3 are shut down): a tag `@vN`, or a full
commit with its release in a comment (`@<40 hex> # vN.M.K`, how the workflows pin them since
zizmor asks for commits; tests/deploy/lint.py); every script must pass
shellcheck as bash, the shell GitHub runs it with, where shellcheck is installed; and the
sharded run's merge must refuse an incomplete set (`merge --expect-shards`).  actionlint runs
too where it is installed (it is not packaged for Debian 12).  The checker first proves it
can fail: a workflow with each mistake must be refused for each.
Usage: workflows.py REPO_ROOT [SHELLCHECK].  Prints TAP.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    print("1..0 # SKIP PyYAML is not installed (Debian: python3-yaml)")
    sys.exit(0)

MIN_MAJOR = 4


def steps_of(doc):
    for job_name, job in (doc.get("jobs") or {}).items():
        for i, step in enumerate(job.get("steps") or []):
            yield job_name, i, step


def release_comments(text):
    """{'owner/action@<commit>': 'vN...'}: the release each commit pin names in its comment."""
    return dict(re.findall(r"uses:\s*['\"]?([\w./-]+@[0-9a-f]{40})['\"]?\s+#\s*(v[\d.]+)", text))


def problems(doc, shellcheck, releases=None):
    """Every rule doc breaks, as text.  releases: release_comments of its text."""
    found = []
    # PyYAML reads the key `on` as the boolean True (YAML 1.1).
    if not isinstance(doc, dict) or "jobs" not in doc or not (True in doc or "on" in doc):
        return ["not a workflow: `on` or `jobs` missing"]
    for job, i, step in steps_of(doc):
        where = f"job {job} step {i + 1}"
        uses = step.get("uses", "")
        version = (releases or {}).get(uses, "") if re.search(r"@[0-9a-f]{40}$", uses) else uses
        m = re.search(r"@v(\d+)", "@" + version.split("@")[-1])
        if uses.startswith("actions/") and (not m or int(m.group(1)) < MIN_MAJOR):
            found.append(f"{where}: {uses} is older than v{MIN_MAJOR} (or not pinned to a major, "
                         "or a commit without its release in a comment)")
        script = step.get("run")
        if script is None:
            continue
        if "${{" in script:
            found.append(f"{where}: ${{{{ }}}} inside run: (pass it through env:)")
        if shellcheck:
            with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
                f.write("#!/bin/bash\nset -e\n" + script)
            out = subprocess.run([shellcheck, "-s", "bash", f.name], capture_output=True, text=True)
            os.unlink(f.name)
            if out.returncode:
                found.append(f"{where}: shellcheck: " + " | ".join(
                    line for line in out.stdout.splitlines() if "SC" in line))
    return found


def main():
    root = sys.argv[1]
    shellcheck = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else shutil.which("shellcheck")
    files = sorted(glob.glob(os.path.join(root, ".github", "workflows", "*.yml")))
    tests = []

    # A workflow with each mistake (the upload-artifact commit is made up: only its comment is read).
    bad_text = """
on: {workflow_dispatch: {inputs: {seed: {default: "1"}}}}
jobs:
  a:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@v2
      - uses: actions/cache@0057852bfaa89a56745cba8c7296529d2fc39830
      - uses: actions/upload-artifact@0123456789abcdef0123456789abcdef01234567 # v3.1.2
      - run: dmlcheck run --seed "${{ inputs.seed }}"
      - run: echo $unquoted_undefined
"""
    got = problems(yaml.safe_load(bad_text), shellcheck, release_comments(bad_text))
    want = ["checkout@v2 is older", "cache@0057852bfaa89a56745cba8c7296529d2fc39830 is older",
            "upload-artifact@0123456789abcdef0123456789abcdef01234567 is older",
            "inside run:"] + (["shellcheck"] if shellcheck else [])
    tests.append(("checker_refuses_each_mistake", all(any(w in p for p in got) for w in want),
                  "; ".join(got)))

    for path in files:
        name = os.path.relpath(path, root)
        try:
            with open(path) as f:
                text = f.read()
            doc = yaml.safe_load(text)
        except yaml.YAMLError as e:
            tests.append((f"{name} parses", False, str(e).replace("\n", " ")))
            continue
        found = problems(doc, shellcheck, release_comments(text))
        tests.append((f"{name} {'passes' if not found else 'breaks'} the rules", not found,
                      "; ".join(found)))
        if os.path.basename(path) == "sharded-run.yml":
            merge = " ".join(s.get("run", "") for _, _, s in steps_of({"jobs": {
                "merge": doc["jobs"].get("merge", {})}}))
            tests.append((f"{name} merges with --expect-shards", "--expect-shards" in merge, ""))
    actionlint = shutil.which("actionlint")
    if actionlint and files:
        out = subprocess.run([actionlint] + files, capture_output=True, text=True)
        tests.append(("actionlint", out.returncode == 0, out.stdout.replace("\n", " | ")))

    print(f"1..{len(tests)}")
    for n, (title, ok, detail) in enumerate(tests, 1):
        print(f"{'ok' if ok else 'not ok'} {n} - {title}")
        if not ok and detail:
            print(f"# {detail}")
            print(f"# replay: python3 tests/deploy/workflows.py {root}")
    if not files:
        print("# no workflows found under .github/workflows")
    if not shellcheck:
        print("# shellcheck not installed: scripts were not checked")
    return 0


sys.exit(main())
