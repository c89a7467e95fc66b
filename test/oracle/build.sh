#!/bin/sh
# Builds the oracle driver (driver.cc) against Google's reference parser, unmodified.
#   ROBOTSTXT_SRC: a checkout of https://github.com/google/robotstxt (robots.cc, robots.h)
#   ORACLE_DIR:    where the driver is built (default: $TMPDIR/robots-audit-oracle)
# Needs g++ and abseil (Debian: apt-get install g++ libabsl-dev pkg-config).
# `build.sh --test` also builds and runs Google's own robots_test.cc (needs libgtest-dev).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${ORACLE_DIR:-${TMPDIR:-/tmp}/robots-audit-oracle}
src=${ROBOTSTXT_SRC:?set ROBOTSTXT_SRC to a checkout of github.com/google/robotstxt}
mkdir -p "$out"
g++ -std=c++17 -O2 -DNDEBUG -I"$src" -o "$out/driver" "$here/driver.cc" "$src/robots.cc" $(pkg-config --libs absl_strings)
if [ "${1:-}" = "--test" ]; then
  g++ -std=c++17 -O1 -I"$src" -o "$out/robots_test" "$src/robots_test.cc" "$src/robots.cc" $(pkg-config --libs gtest_main absl_strings) -lpthread
  "$out/robots_test" --gtest_brief=1
fi
echo "built $out/driver"
