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
# The sources git knows or would add (generated files are git-ignored);
# without git, every C++ file outside the generated folders.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard \
    -- include lib tools test examples bench fuzz | grep -E '\.(cpp|h)$' | sort)
else
  mapfile -t files < <(find include lib tools test examples bench fuzz \
    \( -name '*.cpp' -o -name '*.h' \) -not -path '*/gen*/*' | sort)
fi
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
