#!/bin/sh
# Compares the engine with Google's reference parser on the corpus and on random edge-case files.
# Builds the driver first when it is missing (see build.sh for ROBOTSTXT_SRC).
#   sh test/oracle/run.sh [--fuzz N] [--shards K] [--max-diffs N] [--selftest]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export ORACLE_DIR=${ORACLE_DIR:-${TMPDIR:-/tmp}/robots-audit-oracle}
[ -x "$ORACLE_DIR/driver" ] || sh "$here/build.sh"
cd "$here/../.." && exec node --import tsx test/oracle/compare.ts "$@"
