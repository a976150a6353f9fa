#!/usr/bin/env bash
# carry.sh - sourced by round.sh and ab.sh: the device tool carries at most
# 64 MiB of ignored build outputs to the GPU machine.

# check_carry WHO HINT DIR... : prints what the existing DIRs add up to and
# fails (saying HINT) when it is over the limit.
check_carry() {
  local who="$1" hint="$2" total
  shift 2
  total=$(du -scm "$@" 2>/dev/null | tail -n 1 | cut -f 1)
  echo "$who: ${total} MiB to carry (the device tool carries at most 64)"
  [ "$total" -le 64 ] || {
    echo "$who: too large; $hint" >&2
    return 1
  }
}
