# applyset-operator

# The version of this checkout: hack/version.sh, `git describe` of the newest v* tag.
# It is stamped into the manager and the plugins (--version), and names the image
# tag, the chart's version and appVersion and the install manifest's image.
VERSION ?= $(shell hack/version.sh)
VERSION := $(VERSION)
# The manager's image, by the one name config/default, the chart and the docs use.
IMAGE_REPO ?= ghcr.io/applyset-operator/applyset-operator
IMG ?= $(IMAGE_REPO):$(VERSION)
# The platforms of the image index `make image` and `make release` write.
PLATFORMS ?= linux/amd64 linux/arm64
# Where `make image` writes the manager image: an OCI image layout with an index of
# PLATFORMS, as a tarball that `kind load image-archive`, `ctr images import`,
# `docker load` and (unpacked) `crane push --index` read.
IMAGE_TAR ?= bin/image/manager.tar
# Where `make release` writes the release's assets.
RELEASE_DIST ?= dist
# Every binary names VERSION (internal/version).
LDFLAGS := -X github.com/applyset-operator/applyset-operator/internal/version.stamped=$(VERSION)
# Where the kustomize tree places the manager.
NAMESPACE ?= applyset-operator-system

SHELL := /usr/bin/env bash
.SHELLFLAGS := -o errexit -o pipefail -c

GO ?= go
# This machine's platform, for images only it runs.
HOST_PLATFORM := linux/$(shell $(GO) env GOARCH)
# CHROMIUM is the browser of the specs of kubectl applyset ui (hack/setup-chromium.sh
# prints one); without it they are skipped, or fail where APPLYSET_REQUIRE_BROWSER is set.
CHROMIUM ?=
CONTROLLER_GEN := $(GO) tool controller-gen
GOLANGCI_LINT := $(GO) tool -modfile=hack/tools/go.mod golangci-lint-kube-api-linter

# kube-apiserver, etcd and kubectl: built once into bin/k8s/<version>/ (see the script);
# `make control-plane` adds kube-controller-manager there, for `make run` and the suites that run it.
CONTROL_PLANE = $(shell hack/setup-control-plane.sh)
KUBECTL ?= $(CONTROL_PLANE)/kubectl

GO_TEST_FLAGS ?= -race
BENCH ?= .
# How many times each API-server benchmark runs, and each scale benchmark
# (BenchmarkScale*, minutes each); the table gives the median of the runs
# with their minimum and maximum. Each run of a scale benchmark is a process
# of its own, with a control plane of its own: in one that kept the Services of
# earlier runs, each Service created cost more (the API server counts every
# allocated ClusterIP on each allocation), four times as slow by the fifth run.
BENCH_RUNS ?= 5
BENCH_SCALE_RUNS ?= 3
# The scale benchmarks run in a full run, or when BENCH names one.
BENCH_SCALE ?= $(if $(filter .,$(BENCH)),Scale,$(filter Scale%,$(BENCH)))
# How long `make fuzz` runs each fuzz test.
FUZZ_TIME ?= 10s
# Extra flags for the manager under `make run`.
ARGS ?= --zap-encoder=console

.DEFAULT_GOAL := help

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make \033[36m<target>\033[0m\n"} \
		/^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2 } \
		/^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Development

.PHONY: manifests
manifests: ## Generate the CRDs, RBAC role and webhook configurations from the Go markers.
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd webhook paths="./..." \
		output:crd:artifacts:config=config/crd/bases

.PHONY: generate
generate: ## Generate the DeepCopy methods of the API types.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./..."

.PHONY: reference
reference: ## Generate docs/reference: the API from the Go types (crd-ref-docs), the flags and metrics from what the manager binds and registers.
	$(GO) tool -modfile=hack/tools/go.mod crd-ref-docs --source-path=./api --config=hack/reference/crd-ref-docs.yaml \
		--templates-dir=hack/reference/templates --renderer=markdown --output-path=docs/reference/api.md --log-level=ERROR
	UPDATE_REFERENCE=1 $(GO) test -count=1 -run '^TestReference$$' ./cmd/manager

.PHONY: fmt
fmt: ## Format the Go code.
	gofmt -w -s $$(git ls-files --cached --others --exclude-standard '*.go')

.PHONY: control-plane
control-plane: ## Build kube-apiserver, etcd, kubectl and kube-controller-manager into bin/k8s (once; cached).
	@hack/setup-control-plane.sh >/dev/null
	@hack/setup-control-plane.sh --controller-manager >/dev/null

# test/helm is a module of its own, so that nothing else depends on Helm: adopt
# on releases Helm's SDK installs. It runs without -race, which would build all
# of Helm again for specs about interop, not concurrency.
.PHONY: test
test: control-plane ## Run the unit tests, the envtest suites and the examples of the README and docs/ against a real kube-apiserver and etcd.
	@rm -rf bin/race && mkdir -p bin/race
	KUBEBUILDER_ASSETS="$(CONTROL_PLANE)" CHROMIUM="$(CHROMIUM)" GORACE="log_path=$(CURDIR)/bin/race/report" $(GO) test $(GO_TEST_FLAGS) -timeout 30m ./... \
		|| { status=$$?; hack/race-reports.sh bin/race; exit $$status; }
	$(GO) test -C hack/tools ./benchtable/ ./image/
	KUBEBUILDER_ASSETS="$(CONTROL_PLANE)" $(GO) test -C test/helm ./...

# The page's screenshots in docs/images/, taken by the browser specs of
# test/install in the Chromium that hack/setup-chromium.sh finds or installs,
# and the waterfall of a reconcile's trace that test/tracing collects.
.PHONY: screenshots
screenshots: control-plane ## Regenerate the screenshots of kubectl applyset ui and of a trace in docs/images/ with headless Chromium.
	chromium="$$(hack/setup-chromium.sh)" && KUBEBUILDER_ASSETS="$(CONTROL_PLANE)" CHROMIUM="$$chromium" \
		APPLYSET_REQUIRE_BROWSER=1 APPLYSET_DOCS_SCREENSHOTS=1 $(GO) test -count=1 ./test/install -ginkgo.focus 'in a browser'
	chromium="$$(hack/setup-chromium.sh)" && KUBEBUILDER_ASSETS="$(CONTROL_PLANE)" CHROMIUM="$$chromium" \
		APPLYSET_DOCS_SCREENSHOTS=1 $(GO) test -count=1 ./test/tracing

# The page's graph layout library, fetched with npm at its pinned version and
# checked against its published digest; its files are committed, so building
# needs no Node.
.PHONY: ui-vendor
ui-vendor: ## Vendor the web page's JavaScript libraries (hack/vendor-ui.sh) into internal/applysetcli/ui/static/vendor.
	hack/vendor-ui.sh

# The e2e suite installs a release as a user would: make release writes it
# into E2E_DIST (its image for this machine's platform only), the suite
# imports the image tarball into the node by the tag and digest install.yaml
# and the chart name, so that the node never pulls it, and checks the running
# manager prints VERSION. The helm CLI is built from test/helm's module, which
# keeps Helm out of the operator's go.mod.
E2E_DIST ?= bin/e2e-dist

.PHONY: test-e2e
test-e2e: ## Run the e2e suite: the operator installed from a release (make release VERSION into E2E_DIST, its image for this machine's platform) with install.yaml and with the chart, into a single-node cluster of its own (root; see docs/development.md).
	$(MAKE) release VERSION=$(VERSION) RELEASE_DIST=$(E2E_DIST) PLATFORMS=$(HOST_PLATFORM)
	$(GO) build -C test/helm -o $(CURDIR)/bin/helm helm.sh/helm/v4/cmd/helm
	$(GO) test -c -o bin/e2e.test ./test/e2e
	E2E_DIST=$(abspath $(E2E_DIST)) E2E_VERSION=$(VERSION) KUBEBUILDER_ASSETS="$(CONTROL_PLANE)" hack/e2e-cluster.sh run -- \
		bin/e2e.test -test.v -test.timeout 20m -ginkgo.v $(if $(E2E_FOCUS),-ginkgo.focus '$(E2E_FOCUS)')

# The oldest Kubernetes the CRDs can be installed on (docs/reference/compatibility.md);
# `make test-compat` runs the API's suites against it.
COMPAT_KUBERNETES_VERSION ?= v1.35.4
# More packages for it, e.g. ./test/install/ (long).
COMPAT_PACKAGES ?=

.PHONY: test-compat
test-compat: ## Run the API's envtest suites (api/, test/validation; COMPAT_PACKAGES adds more) against COMPAT_KUBERNETES_VERSION's kube-apiserver, built like the default one.
	assets="$$(KUBERNETES_VERSION=$(COMPAT_KUBERNETES_VERSION) hack/setup-control-plane.sh)" && \
		KUBEBUILDER_ASSETS="$$assets" $(GO) test -count=1 -timeout 30m ./api/... ./test/validation/ $(COMPAT_PACKAGES)


reliability: control-plane ## Run the reliability suite at scale: restarts over 1,000 objects 5 times, 50 sets of 100 at once, writers for a minute, one set of 100,000, the race hunt over 10 seeds.
	KUBEBUILDER_ASSETS="$(CONTROL_PLANE)" RELIABILITY_OBJECTS=$${RELIABILITY_OBJECTS:-1000} RELIABILITY_RUNS=$${RELIABILITY_RUNS:-5} \
		RELIABILITY_SETS=$${RELIABILITY_SETS:-50} RELIABILITY_SET_OBJECTS=$${RELIABILITY_SET_OBJECTS:-100} RELIABILITY_WINDOW=$${RELIABILITY_WINDOW:-60} \
		RELIABILITY_PARENTS=$${RELIABILITY_PARENTS:-2000} RELIABILITY_CHURN=$${RELIABILITY_CHURN:-60} RELIABILITY_BIG_SET=$${RELIABILITY_BIG_SET:-100000} \
		RELIABILITY_RACE_SEEDS=$${RELIABILITY_RACE_SEEDS:-10} RELIABILITY_RACE_SECONDS=$${RELIABILITY_RACE_SECONDS:-30} \
		$(GO) test -count=1 -timeout 60m -v ./test/reliability/ -ginkgo.v

.PHONY: fuzz
fuzz: ## Run every fuzz test (every parser of input has one) for FUZZ_TIME each, as CI does.
	@GO="$(GO)" hack/fuzz.sh $(FUZZ_TIME)

.PHONY: bench
bench: control-plane ## Run the benchmarks and print their figures (the API-server ones BENCH_RUNS times, the scale ones BENCH_SCALE_RUNS), then one Markdown table: median (min–max).
	@mkdir -p bin
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem ./pkg/... ./internal/... ./api/... | tee bin/bench.txt
	KUBEBUILDER_ASSETS="$(CONTROL_PLANE)" $(GO) test -run '^$$' -bench '$(BENCH)' -skip '^BenchmarkScale' -benchtime 1x -count $(BENCH_RUNS) -timeout 120m ./test/bench/ | tee -a bin/bench.txt
	$(if $(BENCH_SCALE),for run in $$(seq $(BENCH_SCALE_RUNS)); do \
		for bench in $$($(GO) test -list '$(BENCH_SCALE)' ./test/bench/ | grep '^BenchmarkScale'); do \
			BENCH_RUN=$$run KUBEBUILDER_ASSETS="$(CONTROL_PLANE)" $(GO) test -run '^$$' -bench "^$$bench$$" -benchtime 1x -timeout 600m ./test/bench/ | tee -a bin/bench.txt; \
		done; \
	done)
	@echo
	@$(GO) run -C hack/tools ./benchtable < bin/bench.txt

.PHONY: lint
lint: ## Check formatting, run go vet and golangci-lint.
	@unformatted="$$(gofmt -s -l $$(git ls-files --cached --others --exclude-standard '*.go'))"; \
	if [[ -n "$$unformatted" ]]; then echo "gofmt -s needed on:"; echo "$$unformatted"; exit 1; fi
	@upward="$$($(GO) list -f '{{.ImportPath}}: {{join .Imports " "}}' ./pkg/... | grep -E ' github.com/applyset-operator/applyset-operator/(internal|controllers|cmd)/' || true)"; \
	if [[ -n "$$upward" ]]; then echo "packages under pkg/ import internal/, controllers/ or cmd/:"; echo "$$upward"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -C hack/tools ./benchtable/ ./image/ ./pause/
	$(GO) vet -C test/peers ./...
	$(GO) vet -C test/helm ./...
	$(GOLANGCI_LINT) run ./...

# What make verify regenerates and expects unchanged.
GENERATED = go.mod go.sum hack/tools test/peers test/helm/go.mod test/helm/go.sum api config docs/reference

.PHONY: verify
verify: manifests generate reference ## Fail when generated files (CRDs, RBAC, deepcopy, docs/reference) or go.mod are stale.
	$(GO) mod tidy
	cd hack/tools && $(GO) mod tidy
	cd test/peers && $(GO) mod tidy
	cd test/helm && $(GO) mod tidy
	@if [[ -n "$$(git status --porcelain -- $(GENERATED))" ]]; then \
		echo "Generated files are stale; run 'make manifests generate reference' and 'go mod tidy', then commit:"; \
		git status --porcelain -- $(GENERATED); \
		git --no-pager diff --stat -- $(GENERATED); \
		exit 1; \
	fi

##@ Build and run

.PHONY: build
build: ## Build the manager binary into bin/manager.
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/manager ./cmd/manager

.PHONY: image
image: ## Build the manager image IMG (static binary, user 65532) for PLATFORMS as an image index tarball into IMAGE_TAR, without a container engine.
	@mkdir -p bin/image $(dir $(IMAGE_TAR))
	@args=(); for platform in $(PLATFORMS); do arch=$${platform#linux/}; \
		echo "building the manager for $$platform"; \
		CGO_ENABLED=0 GOOS=linux GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/image/manager-$$arch ./cmd/manager && \
		args+=(-platform "$$platform=$(CURDIR)/bin/image/manager-$$arch") || exit 1; \
	done; \
	written="$$($(GO) run -C hack/tools ./image "$${args[@]}" -path /manager -tag $(IMG) -out $(abspath $(IMAGE_TAR)))"; \
	echo "$$written" > $(IMAGE_TAR).digest; \
	echo "wrote $(IMAGE_TAR): $(IMG), an index of $(PLATFORMS), digest $${written##* }"; \
	echo "  into kind:        kind load image-archive $(IMAGE_TAR)"; \
	echo "  into containerd:  ctr -n k8s.io images import $(IMAGE_TAR)"; \
	echo "  into Docker:      docker load -i $(IMAGE_TAR)"; \
	echo "  to a registry:    mkdir -p bin/image/layout && tar -xf $(IMAGE_TAR) -C bin/image/layout && crane push --index bin/image/layout $(IMG)"; \
	echo "  then deploy it:   make deploy IMG=$(IMG)"

.PHONY: plugins
plugins: ## Build the kubectl plugins into bin/ (put bin on PATH: kubectl applyset, kubectl feature-gates), and kubectl applyset's shell completion.
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/kubectl-applyset ./cmd/kubectl-applyset
	ln -sf kubectl-applyset bin/kubectl_complete-applyset
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/kubectl-feature_gates ./cmd/kubectl-feature_gates

.PHONY: build-installer
build-installer: manifests ## Write the release's install artifacts from config/default: dist/install.yaml (with the image IMG) and the Helm chart dist/chart, of VERSION.
	$(GO) run ./hack/build-installer -image $(IMG) -version $(VERSION) -out $(RELEASE_DIST)

PLUGIN_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
PLUGIN_DIST ?= dist
# One archive per platform, named as the URLs of .krew.yaml name them
# (cmd/kubectl-applyset/krew_test.go checks the two against each other).
PLUGIN_ARCHIVES = $(foreach p,$(PLUGIN_PLATFORMS),$(PLUGIN_DIST)/kubectl-applyset_$(subst /,_,$(p)).tar.gz)

.PHONY: plugin-archives
plugin-archives: ## Build the release archives of kubectl applyset into dist/, as .krew.yaml names them.
	@mkdir -p $(PLUGIN_DIST)
	@for archive in $(PLUGIN_ARCHIVES); do \
		platform=$${archive##*/kubectl-applyset_}; platform=$${platform%.tar.gz}; \
		os=$${platform%%_*}; arch=$${platform#*_}; dir=$$(mktemp -d); \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $$dir/kubectl-applyset ./cmd/kubectl-applyset && \
		cp LICENSE $$dir/ && tar -czf $$archive -C $$dir kubectl-applyset LICENSE && \
		rm -rf $$dir && echo $$archive || exit 1; \
	done

# The release's image tarball, among its assets.
RELEASE_IMAGE = $(RELEASE_DIST)/applyset-operator-image.tar

.PHONY: release
release: manifests ## Write the assets of the release VERSION=vX.Y.Z into RELEASE_DIST (dist): install.yaml (image by tag and digest), the packaged chart, the image index for PLATFORMS, the plugin archives and krew manifest, SHA256SUMS.
	$(GO) run ./hack/release -check -version $(VERSION)
	@case "$(abspath $(RELEASE_DIST))" in /|$(CURDIR)) echo "RELEASE_DIST=$(RELEASE_DIST) would remove too much"; exit 1;; esac
	rm -rf $(RELEASE_DIST) && mkdir -p $(RELEASE_DIST)
	$(MAKE) image IMAGE_TAR=$(RELEASE_IMAGE) IMG=$(IMAGE_REPO):$(VERSION)
	digest="$$(awk '{print $$3}' $(RELEASE_IMAGE).digest)" && rm $(RELEASE_IMAGE).digest && \
		$(GO) run ./hack/build-installer -image $(IMAGE_REPO):$(VERSION)@$$digest -version $(VERSION) -out $(RELEASE_DIST)
	$(MAKE) plugin-archives PLUGIN_DIST=$(RELEASE_DIST)
	$(GO) run ./hack/release -version $(VERSION) -dist $(RELEASE_DIST)

# The agreement of a release's assets, checked in a clean clone of HEAD as a
# release is made, with the Go build cache of this machine.
RELEASE_CHECK_DIR ?= bin/release-check

.PHONY: test-release
test-release: ## Run make release VERSION=v0.1.0 in a clean clone of HEAD and check that every asset names that version and SHA256SUMS matches them.
	rm -rf $(RELEASE_CHECK_DIR) && git clone -q --no-hardlinks . $(RELEASE_CHECK_DIR)
	$(MAKE) -C $(RELEASE_CHECK_DIR) release VERSION=v0.1.0
	RELEASE_DIST=$(abspath $(RELEASE_CHECK_DIR))/dist RELEASE_VERSION=v0.1.0 $(GO) test -count=1 ./test/release
	rm -rf $(RELEASE_CHECK_DIR)

# NODE=1 makes `make run` start a single-node cluster whose Pods run (root; the e2e
# cluster, hack/e2e-cluster.sh) and install the operator into it from a local image.
NODE ?=
# CLUSTER=current makes `make run` use the cluster the current kubeconfig reaches,
# which it otherwise only offers at a terminal: it names the context and server first.
CLUSTER ?=

.PHONY: run
run: build plugins control-plane ## Run the manager on a local control plane; CLUSTER=current: against the cluster of the current kubeconfig; NODE=1: in a single-node cluster of its own (root).
ifeq ($(NODE),)
	$(GO) build -o bin/run-local ./hack/run-local
	bin/run-local -cluster=$(CLUSTER) -- bin/manager --artifact-allowed-hosts=http://127.0.0.1,http://[::1] $(ARGS)
else
	$(MAKE) image IMAGE_TAR=bin/image/manager.tar PLATFORMS=$(HOST_PLATFORM)
	IMG=$(IMG) KUBEBUILDER_ASSETS="$(CONTROL_PLANE)" hack/e2e-cluster.sh run -- hack/run-node.sh
endif

##@ Deployment

.PHONY: install
install: ## Install the CRDs into the cluster of the current kubeconfig.
	$(KUBECTL) apply --server-side -k config/crd

.PHONY: uninstall
uninstall: ## Remove the CRDs (and with them every ApplySet and CustomFeatureGates) from the cluster.
	$(KUBECTL) delete --ignore-not-found -k config/crd

.PHONY: deploy
deploy: ## Deploy the operator (CRDs, RBAC, manager, webhooks) to the cluster of the current kubeconfig.
	$(KUBECTL) kustomize config/default | sed 's#image: $(IMAGE_REPO):.*#image: $(IMG)#' | \
		$(KUBECTL) apply --server-side -f -

.PHONY: undeploy
undeploy: ## Remove the operator from the cluster of the current kubeconfig; every set's members stay.
	$(KUBECTL) delete --ignore-not-found --wait --timeout=5m crd applysets.apply.applyset.dev clusterapplysets.apply.applyset.dev
	$(KUBECTL) delete --ignore-not-found -k config/default

.PHONY: clean
clean: ## Remove built binaries (the control-plane build cache in bin/k8s stays).
	rm -rf bin/manager bin/run-local bin/local
