# syntax=docker/dockerfile:1
#
# Container image for the mcphost gateway ("mcphost serve" over Streamable
# HTTP at /mcp, legacy SSE at /sse, on port 8080).
#
#   docker build -t mcphost .
#   docker build -t mcphost --build-arg VERSION=1.2.0 --build-arg COMMIT=$(git rev-parse HEAD) \
#     --build-arg DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ) .
#   docker run --rm -p 8080:8080 -e MCP_GATEWAY_TOKEN=... \
#     -v "$PWD/gateway:/etc/mcphost:ro" mcphost
#
# The configuration is read from /etc/mcphost/config.yaml (mount a directory
# holding config.yaml and the plugins it names: relative plugin paths are
# taken from the file's directory). Clients must send
# "Authorization: Bearer $MCP_GATEWAY_TOKEN" (16 characters or more); give
# other authentication flags instead of the default ones as the command:
#   docker run ... mcphost --jwt-issuer https://login.example.com --resource-url https://mcp.example.com/mcp
# docs/install.md: "Container image".

ARG GO_VERSION=1.26
ARG ALPINE_VERSION=3.22

# Build on the machine's own platform and cross-compile: no emulation for
# multi-platform images (docker buildx build --platform linux/amd64,linux/arm64).
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION}-alpine AS build
WORKDIR /src
# Dependencies first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod \
    go mod download
COPY . .
ARG TARGETOS TARGETARCH
# Empty values leave "mcphost version" to what the Go toolchain recorded
# ("dev" for a build from a source tree without .git).
ARG VERSION=
ARG COMMIT=
ARG DATE=
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT} -X main.date=${DATE}" \
      -o /out/mcphost ./cmd/mcphost

# Alpine rather than a distroless base: stdio servers need their runtimes
# (node/npx, python/uvx, ...), and an image derived from this one can add
# them with apk (docs/install.md: "Container image").
FROM alpine:${ALPINE_VERSION}
RUN apk add --no-cache ca-certificates tzdata \
    && addgroup -S -g 10001 mcphost \
    && adduser -S -D -u 10001 -G mcphost -h /home/mcphost -s /sbin/nologin mcphost \
    && mkdir -p /etc/mcphost
COPY --from=build /out/mcphost /usr/local/bin/mcphost

# No OS keychain in a container: OAuth logins of backends are kept in
# $HOME/.config/mcphost/mcp-auth.json, secrets ("mcphost secret set") in
# secrets.json beside it (mount a volume there to keep them).
ENV MCPHOST_TOKEN_STORE=file MCPHOST_SECRET_STORE=file
USER 10001:10001
# An empty directory: no project files (.mcphost.*, .mcp.json) are read.
WORKDIR /home/mcphost
EXPOSE 8080
# SIGTERM stops accepting and gives calls in flight --grace (30 s) to
# finish; stdio servers' processes end with the gateway.
STOPSIGNAL SIGTERM
# The fixed part: the gateway, its configuration file, HTTP on every
# interface of the container.
ENTRYPOINT ["mcphost", "serve", "--config", "/etc/mcphost/config.yaml", "--http", "0.0.0.0:8080"]
# The replaceable part: incoming authentication (a non-loopback listener
# refuses to start without one). Arguments given to "docker run" replace
# these, so repeat --auth-token-env when adding flags such as --watch.
CMD ["--auth-token-env", "MCP_GATEWAY_TOKEN"]
