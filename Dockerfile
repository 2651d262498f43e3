# The manager image: `docker build --build-arg VERSION=$(hack/version.sh) -t ghcr.io/applyset-operator/applyset-operator:$(hack/version.sh) .`
# `make image` writes the same image (one layer holding /manager, user
# 65532:65532) as a tarball without Docker; keep the two in step.
FROM golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=v0.0.0-dev
WORKDIR /workspace
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -trimpath \
    -ldflags "-X github.com/applyset-operator/applyset-operator/internal/version.stamped=${VERSION}" -o manager ./cmd/manager

FROM scratch
WORKDIR /
COPY --from=builder /workspace/manager /manager
USER 65532:65532
ENTRYPOINT ["/manager"]
