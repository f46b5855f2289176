#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build.sh: everything lives in the project's own script.
"$SRC/dmlcheck/fuzz/oss-fuzz-build.sh"
