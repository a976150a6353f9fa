#!/usr/bin/env bash
# round.sh - One device call for a whole round of GPU work: the end-to-end
# checks and timings (e2e.sh), FlashAttention backward (fa_bwd.sh --time)
# and tuning bundles (tune.sh), whichever were prepared, each bounded so the
# call ends within the device tool's 10-minute limit. Starting a GPU
# machine is slow and sometimes fails; one call per round spends the
# session's device time on measuring.
#
#   bash bench/cuda/round.sh prepare   # build machine: E2E_ONLY, TUNE_ONLY
#                                      # (and ROUND_FA_BWD=0 to skip it)
#   run(command="bash bench/cuda/round.sh run",
#       carry=["bench/cuda/gen-e2e", "bench/cuda/gen-xfabwd",
#              "bench/cuda/gen-tune"], timeout_s=600)
#
# prepare runs e2e.sh prepare, fa_bwd.sh prepare and tune.sh prepare with
# TUNE_PREBUILD=1 (tune only when TUNE_ONLY is set: a full tune does not fit
# one call), then checks that the three folders fit the 64 MiB the device
# tool carries (narrow E2E_ONLY when they do not). run gives each prepared
# step its share of ROUND_SECONDS (570): tuning (ROUND_TUNE_SECONDS, 180)
# and the backward first, the end-to-end run with what is left; every step's
# output goes to $OUT (results.md, sanitizer logs, fa_bwd.txt, NAME.json,
# tune.log) and its console to $OUT/round-STEP.log, all packed at the end
# into $OUT/all.tar.gz (the device tool brings back 8 files at most).
# ROUND_EXTRA, a command line (profiles: profile.sh cmd, fa_bwd.sh
# profile), runs after the end-to-end step (whose libraries it may use)
# within ROUND_EXTRA_SECONDS (150), which the end-to-end step leaves it;
# what it writes under $OUT is packed with the rest.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=bench/cuda/carry.sh
. "$here/carry.sh"

case "${1:-}" in
prepare)
  bash "$here/e2e.sh" prepare || exit 1
  if [ "${ROUND_FA_BWD:-1}" != 0 ]; then
    bash "$here/fa_bwd.sh" prepare || exit 1
  else
    rm -rf "$here/gen-xfabwd"
  fi
  if [ -n "${TUNE_ONLY:-}" ]; then
    TUNE_PREBUILD=1 bash "$here/tune.sh" prepare || exit 1
  else
    rm -rf "$here/gen-tune"
  fi
  check_carry round "narrow E2E_ONLY or TUNE_ONLY" "$here"/gen-e2e \
    "$here"/gen-xfabwd "$here"/gen-tune || exit 1
  ;;
run)
  out="${OUT:-$here/gen-e2e/out}"
  mkdir -p "$out"
  deadline=$(($(date +%s) + ${ROUND_SECONDS:-570}))
  left() { echo $((deadline - $(date +%s))); }
  status=0
  step() { # NAME SECONDS COMMAND...
    local name="$1" seconds="$2"
    shift 2
    [ "$seconds" -gt 10 ] || {
      echo "round: no time left for $name"
      status=1
      return
    }
    echo "== $name (at most ${seconds} s)"
    local t0 rc
    t0=$(date +%s)
    timeout "$seconds" "$@" >"$out/round-$name.log" 2>&1
    rc=$?
    [ $rc = 0 ] || status=1
    echo "   $(($(date +%s) - t0)) s, exit $rc"
    tail -n 3 "$out/round-$name.log" | sed 's/^/   /'
  }
  if [ -f "$here/gen-tune/bundles.tar.gz" ]; then
    step tune "${ROUND_TUNE_SECONDS:-180}" bash "$here/tune.sh" run
  fi
  if [ -f "$here/gen-xfabwd/configs.tar.gz" ]; then
    step fa_bwd 120 bash "$here/fa_bwd.sh" run --time
  fi
  if [ -f "$here/gen-e2e/CONFIGS" ]; then
    # The harness and each sanitizer pass get their own limits in e2e.sh;
    # fit them into what is left (about 100 s go to building the
    # libraries and the two sanitizer tools' start-up).
    rest=$(left)
    [ -n "${ROUND_EXTRA:-}" ] && rest=$((rest - ${ROUND_EXTRA_SECONDS:-150}))
    step e2e "$rest" env E2E_TIMEOUT=$(((rest - 100) * 2 / 3)) \
      E2E_SANITIZER_TIMEOUT=$(((rest - 100) / 6)) \
      E2E_SANITIZER_TOOLS="${E2E_SANITIZER_TOOLS:-memcheck racecheck}" \
      bash "$here/e2e.sh" run
  fi
  if [ -n "${ROUND_EXTRA:-}" ]; then
    step extra "$(left)" env OUT="$out" bash -c "$ROUND_EXTRA"
  fi
  # The device tool brings back only a few files (8): everything goes into
  # all.tar.gz, and results.md and up to five tuning databases stay beside
  # it as plain files.
  archive="$(mktemp -d)/all.tar.gz"
  if (cd "$out" && tar czf "$archive" .); then
    kept=$( (cd "$out" && ls results.md 2>/dev/null;
      ls -- *.json 2>/dev/null | grep -v '^results.json$' | head -n 5) )
    find "$out" -mindepth 1 -maxdepth 1 | while read -r f; do
      grep -qxF "$(basename "$f")" <<<"$kept" || rm -rf "$f"
    done
    mv "$archive" "$out/all.tar.gz"
    echo "round: $out/all.tar.gz holds every output; kept beside it:" $kept
  fi
  exit $status
  ;;
*)
  sed -n '2,25p' "$0"
  exit 2
  ;;
esac
