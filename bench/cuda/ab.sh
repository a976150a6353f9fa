#!/usr/bin/env bash
# ab.sh - Old against new in one device call: the same e2e configurations
# compiled twice, timed alternately (new, old, new, old, ...) so that both
# see the same GPU, clocks and neighbours, then compared case by case.
#
#   AB_OLD=<commit> E2E_ONLY='^(cfg|...)$' bash bench/cuda/ab.sh prepare
#   run(command="bash bench/cuda/ab.sh run",
#       carry=["bench/cuda/gen-xnew", "bench/cuda/gen-xold"], timeout_s=600)
#   bash bench/cuda/ab.sh compare DIR    # DIR: all.tar.gz unpacked
#
# prepare compiles the configurations of this checkout into gen-xnew (with
# build/bin/tlc) and those of the old sources into gen-xold: AB_OLD is a
# commit checked out as a temporary git worktree (removed after) whose
# examples and test inputs are compiled, AB_OLD_TLC the tlc that compiles
# them (default build/bin/tlc: set it to a binary built at the old commit
# when the change is in the compiler; leave AB_OLD unset to compare two
# compilers on the same sources; one of the two must be set). run (GPU
# machine) times AB_ROUNDS (2) rounds without the sanitizers, the order of
# new and old alternating, then runs memcheck and racecheck on new's small
# sizes (AB_SANITIZER=0 skips them); each e2e run is cut at AB_TIMEOUT
# seconds (100: 2 x 2 + 1 runs fit the device tool's 600 s; narrow
# E2E_ONLY to fit), and everything is packed into $OUT/all.tar.gz.
# compare prints a markdown table: per case, tlc / vendor of each run and
# the best old time over the best new time (> 1: new faster).
# Stub headers come from this checkout's include/ at run time for both.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=bench/cuda/carry.sh
. "$here/carry.sh"
root="$(cd "$here/../.." && pwd)"

case "${1:-}" in
prepare)
  if [ -z "${AB_OLD:-}" ] && [ -z "${AB_OLD_TLC:-}" ]; then
    echo "ab: set AB_OLD (a commit) and/or AB_OLD_TLC (a tlc binary)" >&2
    exit 2
  fi
  E2E_GEN="$here/gen-xnew" bash "$here/e2e.sh" prepare || exit 1
  old_src="$root"
  if [ -n "${AB_OLD:-}" ]; then
    old_src="$(mktemp -d /tmp/tlc-ab-old.XXXXXX)"
    git -C "$root" worktree add --detach "$old_src" "$AB_OLD" >/dev/null ||
      exit 1
  fi
  E2E_SRC="$old_src" TLC="${AB_OLD_TLC:-$root/build/bin/tlc}" \
    E2E_GEN="$here/gen-xold" bash "$here/e2e.sh" prepare
  status=$?
  if [ "$old_src" != "$root" ]; then
    git -C "$root" worktree remove --force "$old_src"
    git -C "$root" worktree prune
  fi
  [ $status = 0 ] || exit 1
  check_carry ab "narrow E2E_ONLY" "$here/gen-xnew" "$here/gen-xold" ||
    exit 1
  ;;
run)
  out="${OUT:-$here/gen-xnew/out}"
  mkdir -p "$out"
  # Each e2e run is cut at AB_TIMEOUT; its harness stops 20 s earlier so
  # that results.md is written.
  limit="${AB_TIMEOUT:-100}"
  order="new old"
  for i in $(seq 1 "${AB_ROUNDS:-2}"); do
    for v in $order; do
      E2E_GEN="$here/gen-x$v" E2E_SANITIZER=0 OUT="$out/$v$i" \
        E2E_TIMEOUT=$((limit - 20)) timeout "$limit" \
        bash "$here/e2e.sh" run >"$out/$v$i.log" 2>&1
      echo "ab: $v$i exit $?"
    done
    # Alternate which goes first, so that neither always follows the other.
    [ "$order" = "new old" ] && order="old new" || order="new old"
  done
  if [ "${AB_SANITIZER:-1}" != 0 ]; then
    E2E_GEN="$here/gen-xnew" E2E_SANITIZER_TOOLS="memcheck racecheck" \
      OUT="$out/sanitizer" timeout "$limit" \
      bash "$here/e2e.sh" run --small >"$out/sanitizer.log" 2>&1
    echo "ab: sanitizer exit $?"
  fi
  python3 "$here/ab_compare.py" "$out" >"$out/compare.md" 2>&1
  (cd "$out" && tar czf /tmp/ab-all.tar.gz . &&
    find . -mindepth 1 -maxdepth 1 -exec rm -rf {} + &&
    mv /tmp/ab-all.tar.gz all.tar.gz)
  echo "ab: $out/all.tar.gz (compare.md inside)"
  ;;
compare)
  python3 "$here/ab_compare.py" "${2:?the unpacked directory}"
  ;;
*)
  echo "usage: bash bench/cuda/ab.sh prepare|run|compare DIR" >&2
  exit 2
  ;;
esac
