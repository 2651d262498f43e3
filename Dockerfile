# The manager image: `docker build -t applyset-operator:latest .`
# `make image` writes the same image (one layer holding /manager, user
# 65532:65532) as a tarball without Docker; keep the two in step.
FROM golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH
WORKDIR /workspace
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -trimpath -o manager ./cmd/manager

FROM scratch
WORKDIR /
COPY --from=builder /workspace/manager /manager
USER 65532:65532
ENTRYPOINT ["/manager"]
