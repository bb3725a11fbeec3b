#!/usr/bin/env bash
# The layering check of `npm test` (ARCHITECTURE.md): dependency-cruiser over src/ and web/src/ with the rules of
# .dependency-cruiser.cjs; any violation or cycle fails. Arguments replace the paths checked (the unit test points it
# at scripts/layer-fixture to prove a wrong import fails).
set -euo pipefail
cd "$(dirname "$0")/.."
config="$PWD/.dependency-cruiser.cjs"
if (($#)); then
  cd "$1"
  shift
  exec depcruise "${@:-src}" --config "$config" --output-type err --no-cache
fi
exec depcruise src web/src --config "$config" --output-type err
