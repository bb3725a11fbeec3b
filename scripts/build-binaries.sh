#!/usr/bin/env bash
# Builds the pinned third-party binaries the test harness needs (Kubernetes control plane, etcd, kwok, OpenBao)
# from the Go module proxy into a cache outside the repository, once per version:
#   ${SVC_CACHE_DIR:-~/.cache/svc}/<name>-<version>/<binary>
# A component whose cache directory holds a `.done` marker is never rebuilt.
# Usage: scripts/build-binaries.sh [kubernetes|etcd|kwok|openbao ...]   (default: all)
set -euo pipefail

CACHE="${SVC_CACHE_DIR:-$HOME/.cache/svc}"
K8S_VERSION=v1.35.4
ETCD_VERSION=v3.6.16
KWOK_VERSION=v0.8.0
# OpenBao v2.4.0: the proxy refuses its v2 tags (module path has no /v2), so it is pinned by commit.
OPENBAO_VERSION=v2.4.0
OPENBAO_COMMIT=f9407a27fbee
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOTOOLCHAIN=local

log() { printf '[build-binaries] %s\n' "$*" >&2; }

# done_or_build <dir> <function>: runs the build function in a scratch module dir unless <dir>/.done exists.
done_or_build() {
  local out="$1" fn="$2"
  if [[ -f "$out/.done" ]]; then log "cached: $out"; return 0; fi
  local work; work="$(mktemp -d)"
  mkdir -p "$out"
  local start=$SECONDS
  ( cd "$work" && "$fn" "$out" )
  rm -rf "$work"
  touch "$out/.done"
  log "built $out in $((SECONDS - start))s"
}

build_kubernetes() {
  local out="$1" mod="/root/go/pkg/mod"
  local staging=(api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider
    cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api cri-client
    csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms kube-aggregator
    kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics mount-utils pod-security-admission
    sample-apiserver sample-cli-plugin sample-controller)
  local minor="v0.${K8S_VERSION#v1.}"
  go mod init svc.local/k8s-build >/dev/null 2>&1
  {
    echo "require k8s.io/kubernetes $K8S_VERSION"
    for s in "${staging[@]}"; do echo "replace k8s.io/$s => k8s.io/$s $minor"; done
  } >> go.mod
  cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
  go mod tidy >/dev/null
  local pkg=k8s.io/component-base/version
  local ld="-s -w -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=${K8S_VERSION#v1.}"
  ld="${ld%.*}"  # gitMinor is the minor number only
  ld="$ld -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  ld="$ld -X k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION"
  for cmd in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
    go build -trimpath -ldflags "$ld" -o "$out/$cmd" "k8s.io/kubernetes/cmd/$cmd"
  done
}

build_etcd() {
  local out="$1"
  go mod init svc.local/etcd-build >/dev/null 2>&1
  cat > main.go <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >/dev/null
  go mod tidy >/dev/null
  go build -trimpath -ldflags "-s -w" -o "$out/etcd" .
}

build_kwok() {
  local out="$1"
  GOBIN="$out" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  local src; src="$(go env GOMODCACHE)/sigs.k8s.io/kwok@$KWOK_VERSION"
  mkdir -p "$out/stages"
  cp -r "$src/kustomize/stage/." "$out/stages/"
  chmod -R u+w "$out/stages"
}

build_openbao() {
  local out="$1"
  go mod init svc.local/openbao-build >/dev/null 2>&1
  cat > main.go <<'GO'
package main

import (
	"os"

	"github.com/openbao/openbao/command"
)

func main() { os.Exit(command.Run(os.Args[1:])) }
GO
  # Upstream's go.mod maps its api/sdk submodules to ./api and ./sdk; pin them to the same commit instead.
  go get "github.com/openbao/openbao@$OPENBAO_COMMIT" >/dev/null
  local sub
  for sub in api/v2 sdk/v2 api/auth/approle/v2 api/auth/userpass/v2; do
    go mod edit -replace "github.com/openbao/openbao/$sub=github.com/openbao/openbao/$sub@$OPENBAO_COMMIT"
  done
  go mod tidy >/dev/null
  go build -trimpath -ldflags "-s -w" -o "$out/bao" .
}

targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(kubernetes etcd kwok openbao)
for t in "${targets[@]}"; do
  case "$t" in
    kubernetes) done_or_build "$CACHE/kubernetes-$K8S_VERSION" build_kubernetes ;;
    etcd) done_or_build "$CACHE/etcd-$ETCD_VERSION" build_etcd ;;
    kwok) done_or_build "$CACHE/kwok-$KWOK_VERSION" build_kwok ;;
    openbao) done_or_build "$CACHE/openbao-$OPENBAO_VERSION" build_openbao ;;
    *) echo "unknown component: $t" >&2; exit 2 ;;
  esac
done
