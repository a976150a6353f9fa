#!/usr/bin/env bash
# Checks (or with --fix, applies) LLVM-style formatting of every C++ file of
# tlc with Debian's clang-format from LLVM 22. Run by the test suite
# (test/format.test); exit 1 lists the files that need formatting.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
format="${CLANG_FORMAT:-clang-format-22}"
if ! command -v "$format" >/dev/null; then
  echo "check-format: $format not found (scripts/install-deps.sh installs it)" >&2
  exit 2
fi
cd "$root"
mapfile -t files < <(find include lib tools test examples bench fuzz \
  \( -name '*.cpp' -o -name '*.h' \) -not -path '*/gen-e2e/*' -not -path '*/gen-tune/*' \
  -not -path '*/gen-x*/*' | sort)
if [ "${1:-}" = "--fix" ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  if ! "$format" --dry-run -Werror "$f" >/dev/null 2>&1; then
    bad+=("$f")
  fi
done
if [ ${#bad[@]} -ne 0 ]; then
  echo "check-format: ${#bad[@]} of ${#files[@]} files need clang-format (bash scripts/check-format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
