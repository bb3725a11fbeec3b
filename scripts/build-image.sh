#!/usr/bin/env bash
# `npm run image`: builds svc's OCI image without a Docker engine, and optionally pushes it.
#   1. base layer: a minimal Debian bookworm root filesystem (mmdebstrap, variant essential, plus ca-certificates,
#      git and libstdc++6) with the non-root user svc (65532); cached as a tar under the tools cache, keyed by
#      every input of this step, so only a change here (or a cold machine) builds it again (about 30 s);
#   2. app layer: Node 24 (the binary of the npm package node@24, the devDependency), svc's production
#      node_modules, bin/, src/ (tests left out), Node's compile cache of those modules, the web UI (web/dist,
#      built first when stale), kustomize, helm and sops
#      (the pinned builds of scripts/build-binaries.sh) under /opt/svc;
#   3. assembled with umoci as an OCI image layout (entrypoint svc, command server, user 65532), then with --push
#      copied by skopeo to a registry, keeping its digest; the image is then named by that digest.
# The Dockerfile beside this script states the same steps for Docker users.
# Usage: scripts/build-image.sh [--out DIR] [--push HOST[:PORT]/REPO] [--insecure]
#   --out     OCI image layout to write (default .svc/image), tag = svc's version
#   --push    registry repository to push to; prints REPO@sha256:...
#   --insecure  plain HTTP / unverified TLS to the registry (the test registry on loopback)
# Writes <out>/image.json: {"tag","digest","reference","compressedBytes","uncompressedBytes"}. Needs root (the
# base's files belong to several users) and the Debian packages mmdebstrap, umoci and, to push, skopeo.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
log() { printf '[build-image %ss] %s\n' "$((SECONDS - started))" "$*" >&2; }

out=.svc/image
push=''
tls=true
while (($#)); do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --push) push="$2"; shift 2 ;;
    --insecure) tls=false; shift ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

# Inputs of the base layer: changing any of them gives a new cache key.
BASE_SUITE=bookworm
BASE_MIRROR=http://deb.debian.org/debian
BASE_PACKAGES=ca-certificates,git,libstdc++6
SVC_UID=65532
base_hook() {
  # Runs with the root filesystem as $1: the user svc, its home and data directory, nothing left to cache.
  cat <<HOOK
echo "svc:x:${SVC_UID}:${SVC_UID}:svc:/home/svc:/usr/sbin/nologin" >> "\$1/etc/passwd"
echo "svc:x:${SVC_UID}:" >> "\$1/etc/group"
echo "svc:!:1::::::" >> "\$1/etc/shadow"
mkdir -p "\$1/home/svc" "\$1/var/lib/svc"
chown ${SVC_UID}:${SVC_UID} "\$1/home/svc" "\$1/var/lib/svc"
rm -rf "\$1"/var/cache/* "\$1"/var/log/* "\$1"/var/lib/dpkg/*-old
HOOK
}
dpkg_excludes=('/usr/share/man/*' '/usr/share/doc/*' '/usr/share/info/*' '/usr/share/locale/*' '/usr/share/lintian/*')

for tool in mmdebstrap umoci; do
  command -v "$tool" >/dev/null || { echo "$tool is needed (apt-get install $tool)" >&2; exit 1; }
done
[[ -z "$push" ]] || command -v skopeo >/dev/null || { echo "skopeo is needed to push (apt-get install skopeo)" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "build-image.sh runs as root (the base layer holds files of several users)" >&2; exit 1; }
node_bin=node_modules/node/bin/node
[[ -x "$node_bin" ]] || { echo "no $node_bin: run npm ci first (the image takes Node from node@24)" >&2; exit 1; }
version="$("$node_bin" -p 'require("./package.json").version')"

cache="${SVC_TOOLS_DIR:-$HOME/.cache/svc}"
base_key="$(printf '%s\n' "$BASE_SUITE" "$BASE_MIRROR" "$BASE_PACKAGES" "$(base_hook)" "${dpkg_excludes[@]}" \
  | sha256sum | cut -c1-16)"
base_dir="$cache/image-base-$base_key"
if [[ -f "$base_dir/.done" ]]; then
  log "base layer cached: $base_dir"
else
  log "base layer: mmdebstrap $BASE_SUITE ($BASE_PACKAGES)"
  rm -rf "$base_dir" && mkdir -p "$base_dir"
  dpkg_opts=()
  for p in "${dpkg_excludes[@]}"; do dpkg_opts+=("--dpkgopt=path-exclude=$p"); done
  # Licences stay.
  dpkg_opts+=("--dpkgopt=path-include=/usr/share/doc/*/copyright")
  hook_file="$base_dir/hook.sh"
  base_hook > "$hook_file"
  # Downloads from the mirror are retried; the log is shown when the build fails.
  if ! mmdebstrap --variant=essential --include="$BASE_PACKAGES" "${dpkg_opts[@]}" \
    --aptopt='Acquire::Retries "5"' --customize-hook="sh $hook_file \"\$1\"" \
    "$BASE_SUITE" "$base_dir/rootfs.tar" "$BASE_MIRROR" >"$base_dir/mmdebstrap.log" 2>&1; then
    tail -n 40 "$base_dir/mmdebstrap.log" >&2
    exit 1
  fi
  touch "$base_dir/.done"
  log "base layer built ($(du -h "$base_dir/rootfs.tar" | cut -f1))"
fi

log "app layer"
bash scripts/build-binaries.sh kustomize helm sops
tools_versions="$(grep -E '^(KUSTOMIZE|HELM|SOPS)_VERSION=' scripts/build-binaries.sh)"
kustomize_version="$(sed -n 's/^KUSTOMIZE_VERSION=//p' <<<"$tools_versions")"
helm_version="$(sed -n 's/^HELM_VERSION=//p' <<<"$tools_versions")"
sops_version="$(sed -n 's/^SOPS_VERSION=//p' <<<"$tools_versions")"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
root="$stage/root"
app="$root/opt/svc/app"
mkdir -p "$app" "$root/usr/local/bin" "$root/opt/svc/tools/kustomize-$kustomize_version" \
  "$root/opt/svc/tools/helm-$helm_version" "$root/opt/svc/tools/sops-$sops_version"
cp package.json package-lock.json "$app/"
cp -r bin "$app/"
tar -C . --exclude='*.test.ts' -cf - src | tar -C "$app" -xf -
# The web UI, built here when web/dist is missing or stale (scripts/build-web.ts; vite is a devDependency of this
# checkout, not of the image): the server serves it from the same place as in a checkout.
"$node_bin" scripts/build-web.ts
mkdir -p "$app/web" && cp -r web/dist "$app/web/"
log "UI included (web/dist, $(du -sh web/dist | cut -f1))"
# Production dependencies only (devOptional packages, such as the peers vitest brings, are dev here).
(cd "$app" && npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error >&2)
# better-sqlite3 ships every platform's prebuilt addon and its C sources; keep the one this image runs.
sqlite="$app/node_modules/better-sqlite3"
find "$sqlite/prebuilds" -type f ! -name 'linux-x64.node' -delete
rm -rf "$sqlite/deps" "$sqlite/src"
find "$app/node_modules" \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' \) -delete
# Node's compile cache of every module (scripts/warm-compile-cache.ts): without it each container start would load
# Node's TypeScript stripper, ≈ 25 MiB resident for the process's life. Built portable (paths relative to the cache)
# at the depth of /tmp/node-compile-cache, where bin/svc.js copies it from /opt/svc/compile-cache at start, so that
# ../../../opt/svc/app leads to the modules there as it does here. Built as the image's user: Node keeps each user's
# cache apart (its directory name ends in the uid), and a container run as another uid starts cold, nothing worse.
# Everything it reads is under the stage (the checkout may be where that user cannot read).
warm="$root/.warm"
chmod 0755 "$stage"
mkdir "$warm" && cp scripts/warm-compile-cache.ts "$warm/" && chown -R "$SVC_UID:$SVC_UID" "$warm"
install -m 0755 "$node_bin" "$warm/node"
NODE_COMPILE_CACHE="$warm/node-compile-cache" NODE_COMPILE_CACHE_PORTABLE=1 \
  setpriv --reuid="$SVC_UID" --regid="$SVC_UID" --clear-groups "$warm/node" "$warm/warm-compile-cache.ts" "$app" >&2
mv "$warm/node-compile-cache" "$root/opt/svc/compile-cache" && rm -rf "$warm"
chmod -R a+rX "$root/opt/svc/compile-cache"
log "compile cache included ($(du -sh "$root/opt/svc/compile-cache" | cut -f1))"
install -m 0755 "$node_bin" "$root/usr/local/bin/node"
ln -s ../../../opt/svc/app/bin/svc.js "$root/usr/local/bin/svc"
install -m 0755 "$cache/kustomize-$kustomize_version/kustomize" "$root/opt/svc/tools/kustomize-$kustomize_version/"
install -m 0755 "$cache/helm-$helm_version/helm" "$root/opt/svc/tools/helm-$helm_version/"
ln -s "../../../opt/svc/tools/kustomize-$kustomize_version/kustomize" "$root/usr/local/bin/kustomize"
ln -s "../../../opt/svc/tools/helm-$helm_version/helm" "$root/usr/local/bin/helm"
install -m 0755 "$cache/sops-$sops_version/sops" "$root/opt/svc/tools/sops-$sops_version/"
ln -s "../../../opt/svc/tools/sops-$sops_version/sops" "$root/usr/local/bin/sops"
epoch="$(git log -1 --format=%ct 2>/dev/null || echo 0)"
tar -C "$root" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -cf "$stage/app.tar" .

log "assembling $out:$version"
rm -rf "$out" && mkdir -p "$(dirname "$out")"
umoci init --layout "$out"
umoci new --image "$out:$version"
umoci raw add-layer --image "$out:$version" --history.created_by "mmdebstrap $BASE_SUITE $BASE_PACKAGES" \
  "$base_dir/rootfs.tar"
umoci raw add-layer --image "$out:$version" --history.created_by "svc $version: node, node_modules, src, tools" \
  "$stage/app.tar"
config=(
  --config.user "$SVC_UID:$SVC_UID"
  --config.entrypoint /usr/local/bin/svc
  --config.cmd server
  --config.workingdir /home/svc
  --config.env PATH=/usr/local/bin:/usr/bin:/bin
  --config.env HOME=/home/svc
  --config.env NODE_ENV=production
  --config.env SVC_DATA_DIR=/var/lib/svc
  --config.env SVC_TOOLS_DIR=/opt/svc/tools
  --config.env SVC_COMPILE_CACHE_SEED=/opt/svc/compile-cache
  --config.env NODE_COMPILE_CACHE_PORTABLE=1
  --config.exposedports 3000/tcp --config.exposedports 8080/tcp
  --config.exposedports 8081/tcp --config.exposedports 8082/tcp
  --config.volume /var/lib/svc
  --config.label "org.opencontainers.image.title=svc"
  --config.label "org.opencontainers.image.version=$version"
  --config.label "org.opencontainers.image.revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)"
  --created "$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)"
)
umoci config --image "$out:$version" --no-history "${config[@]}"
umoci gc --layout "$out"

# Sizes: compressed = what a registry stores (layers + config), uncompressed = the two layer tars.
manifest_digest="$(python3 -c '
import json, sys
index = json.load(open(sys.argv[1] + "/index.json"))
print([m for m in index["manifests"] if m["annotations"]["org.opencontainers.image.ref.name"] == sys.argv[2]][0]["digest"])
' "$out" "$version")"
# The layers' compressed sizes, base first, then app.
read -r base_gz app_gz < <(python3 -c '
import json, sys
m = json.load(open(sys.argv[1] + "/blobs/sha256/" + sys.argv[2].split(":")[1]))
print(*[l["size"] for l in m["layers"]])
' "$out" "$manifest_digest")
config_size="$(python3 -c '
import json, sys
print(json.load(open(sys.argv[1] + "/blobs/sha256/" + sys.argv[2].split(":")[1]))["config"]["size"])
' "$out" "$manifest_digest")"
compressed=$((config_size + base_gz + app_gz))
base_tar=$(stat -c %s "$base_dir/rootfs.tar")
app_tar=$(stat -c %s "$stage/app.tar")
uncompressed=$((base_tar + app_tar))
# MiB with one decimal: the figures docs/install.md states are the ones this line prints.
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
reference=''
if [[ -n "$push" ]]; then
  log "pushing to $push"
  digest_file="$stage/digest"
  skopeo copy --quiet --preserve-digests --dest-tls-verify="$tls" --digestfile "$digest_file" \
    "oci:$out:$version" "docker://$push:$version"
  pushed="$(cat "$digest_file")"
  [[ "$pushed" == "$manifest_digest" ]] || { echo "pushed digest $pushed differs from $manifest_digest" >&2; exit 1; }
  reference="$push@$pushed"
fi
printf '{"tag":"%s","digest":"%s","reference":"%s","compressedBytes":%s,"uncompressedBytes":%s}\n' \
  "$version" "$manifest_digest" "$reference" "$compressed" "$uncompressed" | tee "$out/image.json"
log "done: $out:$version $manifest_digest, $(mib "$compressed") MiB compressed (base $(mib "$base_gz"), app $(mib "$app_gz")), $(mib "$uncompressed") MiB unpacked (base $(mib "$base_tar"), app $(mib "$app_tar"))${reference:+, pushed as $reference}"
