#!/usr/bin/env bash
# `npm test`: the whole gate, set up by itself, the same on a developer machine and in CI (`.ci/run` runs exactly this).
#   1. machine setup (scripts/ci-setup.sh: apt packages as root, pinned binaries cached in ~/.cache/svc, the test
#      PostgreSQL); idempotent and quick when everything is there; its `export` lines reach the test run;
#   2. typecheck (tsc), lint (Biome) and the layering rules (dependency-cruiser, scripts/check-layers.sh): seconds,
#      and a failure there fails the run like a failing test;
#   3. vitest (unit and integration projects; arguments after `npm test --` go to vitest), ending with one line a
#      reader of the log can count: "N passed, N failed, N skipped".
# A failed setup stops the run; a failed typecheck or lint does not (one run reports everything), and the exit
# status is then the first failure's. SVC_TEST_SKIP_SETUP=1 skips step 1 on a machine prepared another way.
set -uo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
step() { printf '\n== %s (%ss)\n' "$*" "$((SECONDS - started))" >&2; }
status=0
fail() { ((status == 0)) && status=$1; }

if [[ "${SVC_TEST_SKIP_SETUP:-}" != 1 ]]; then
  step "setup: apt packages, pinned binaries, PostgreSQL"
  env_lines="$(bash scripts/ci-setup.sh)" || {
    echo "setup failed (see above): run as root on Debian bookworm, or prepare the machine and set SVC_TEST_SKIP_SETUP=1" >&2
    exit 1
  }
  eval "$env_lines"
fi

checks=()
step "typecheck"
if tsc --noEmit && tsc --noEmit -p web; then checks+=("typecheck ok"); else fail $?; checks+=("typecheck FAILED"); fi
step "lint"
if biome check .; then checks+=("lint ok"); else fail $?; checks+=("lint FAILED"); fi

step "layers"
if bash scripts/check-layers.sh; then checks+=("layers ok"); else fail $?; checks+=("layers FAILED"); fi

step "vitest"
results="$(mktemp --suffix=.json)"
trap 'rm -f "$results"' EXIT
vitest_rc=0
vitest run --reporter=default --reporter=json --outputFile.json="$results" "$@" || vitest_rc=$?
((vitest_rc == 0)) || fail "$vitest_rc"
summary="$(printf '%s; ' "${checks[@]}")"
printf '\n%s (%ss)\n' "${summary%; }" "$((SECONDS - started))"
# The closing line: tests counted by vitest's JSON report.
# A run whose tests all passed can still fail after them (the run-wide leak scan in the global teardown): say so.
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const after = Number(process.argv[2]) !== 0 && r.numFailedTests === 0 ? " (the run failed after its tests: see LEAK SCAN FAILED or the error above)" : "";
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped${after}`);
' "$results" "$vitest_rc" 2>/dev/null || echo "0 passed, 1 failed, 0 skipped (vitest wrote no results)"
exit "$status"
