#!/usr/bin/env bash
# The newer library versions the parser-profile oracle runs (test/fixtures/parser-oracle/oracle.py),
# taken from Debian sid's package archive and unpacked (not installed) into a cache outside the
# clone. Nothing of them is kept in the repository (test/fixtures/parser-oracle/PROVENANCE.md).
#
#   libpython3.13-minimal 3.13.18-1: urllib/robotparser.py (the RFC 9309 rewrite), the
#     urllib/parse.py it calls and ipaddress.py (profile python-urllib-rfc9309)
#   python3-protego 0.7.0+dfsg-1: protego/ (profile scrapy-protego-0.7)
#
# Pinned by version and by the sha256 of every file the oracle loads. Idempotent: a package already
# unpacked and checked is left alone. When sid no longer has a pinned version, it fails with one
# line saying so (snapshot.debian.org keeps every version; the pins here and the profiles then move
# together).
#
#   bash test/oracle/debian-oracles.sh          # then: npx vitest run test/integration/robots/profiles
#
# Where: $ROBOTS_AUDIT_ORACLE_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/robots-audit-ci/debian-oracles
# (oracle.py looks in the same place). Needs apt-get and dpkg-deb (Debian or a derivative) and
# network access to deb.debian.org; apt's own lists and keys are not touched.
set -euo pipefail

dest="${ROBOTS_AUDIT_ORACLE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/robots-audit-ci/debian-oracles}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"

# package version: the files the oracle loads, with their sha256 (as Debian ships them).
declare -A files
files['libpython3.13-minimal=3.13.18-1']='
8e029354aa0b96b947fd041363d16c9e9028d460870a888a391acdc06195ce11  usr/lib/python3.13/urllib/robotparser.py
491b233e8d87a2ab73964afff029717177d53ad8def328ed9b00575db983da27  usr/lib/python3.13/urllib/parse.py
00c4ce7f1b8ec798b7b3ebeaf5def4fa7b6e410172747f360b8235233eba56f3  usr/lib/python3.13/ipaddress.py
'
files['python3-protego=0.7.0+dfsg-1']='
070ec0ede3082fcf2734fc5df200906dd6a47397b446617d1f57e6f9a8e0d541  usr/lib/python3/dist-packages/protego/__init__.py
ea687f17a840988b388d2970808cb7c6880345c2610525b581fa3937243672a1  usr/lib/python3/dist-packages/protego/_protego.py
bc6b6c392d11d674fc9552fcd7662cdbc47ee2046f9fe48030c460df90a54e60  usr/lib/python3/dist-packages/protego/_ruleset.py
755c6cf91ecc263d502b24870a4bcbcdabc486d82db17633ba13a0678445581c  usr/lib/python3/dist-packages/protego/_urlpattern.py
17f2ca9064d806c5bfabbb700b46d2ba0ee3263a52cd245792611e15a9f1d00c  usr/lib/python3/dist-packages/protego/_utils.py
'

# One directory per package and version, e.g. $dest/python3-protego_0.7.0+dfsg-1/usr/lib/...
dir_of() { printf '%s/%s' "$dest" "${1/=/_}"; }

missing=()
for pin in "${!files[@]}"; do
  dir="$(dir_of "$pin")"
  if [ -f "$dir/.checked" ] && (cd "$dir" && sha256sum --quiet --strict -c - <<<"${files[$pin]}" >/dev/null 2>&1); then
    echo "debian-oracles: ${pin/=/ } present in $dir"
  else
    missing+=("$pin")
  fi
done
[ "${#missing[@]}" -eq 0 ] && exit 0

# apt with lists, cache and sources of its own, under a scratch directory (absolute paths: apt
# reads relative Dir:: paths against /). The downloads run as the caller: the scratch directory is
# private to it.
work="$(mktemp -d "$dest/.work.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
printf 'deb http://deb.debian.org/debian sid main\n' >"$work/sources.list"
apt=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User="$(id -un)")
echo "debian-oracles: reading Debian sid's package lists"
apt-get "${apt[@]}" -qq update

for pin in "${missing[@]}"; do
  package="${pin%%=*}"
  version="${pin#*=}"
  available="$(apt-cache "${apt[@]}" madison "$package" | awk -F'|' '{gsub(/ /, "", $2); print $2}' | paste -sd' ')"
  if ! tr ' ' '\n' <<<"$available" | grep -qxF "$version"; then
    echo "debian-oracles: $package $version is gone from Debian sid (it has: ${available:-none}); pin a newer version in test/oracle/debian-oracles.sh and move the profile with it, or take $version from snapshot.debian.org" >&2
    exit 1
  fi
  echo "debian-oracles: downloading $package $version"
  (cd "$work/debs" && apt-get "${apt[@]}" -qq download "$pin")
  deb=("$work/debs/${package}_"*.deb)
  unpack="$work/unpack-$package"
  dpkg-deb -x "${deb[0]}" "$unpack"
  if ! (cd "$unpack" && sha256sum --quiet --strict -c - <<<"${files[$pin]}"); then
    echo "debian-oracles: $package $version does not have the files pinned in test/oracle/debian-oracles.sh" >&2
    exit 1
  fi
  touch "$unpack/.checked"
  dir="$(dir_of "$pin")"
  rm -rf "$dir"
  # One rename, so an interrupted run leaves no half a directory.
  mv -T "$unpack" "$dir"
  echo "debian-oracles: ${pin/=/ } unpacked into $dir"
done
