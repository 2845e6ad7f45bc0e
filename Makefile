# webpilot — common tasks. `make` builds bin/webpilot.

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
GO      ?= go
LDFLAGS := -X main.version=$(VERSION)
# No cgo in the product, so the binary is static; the race detector in `make test` still uses cgo.
BUILD   := CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/webpilot ./cmd/webpilot

# Packages whose tests drive a real browser through backend.Backend; `make test` runs them on
# every backend.
BROWSER_SUITE := ./internal/browser/ ./internal/mcpserver/ ./internal/backend/backendtest/

.DEFAULT_GOAL := build
.PHONY: build demo test test-short conformance bench fmt clean release

build:
	$(BUILD)

# Installs Chromium through apt when it is missing, then drives it once, printing every step.
demo:
	bash scripts/ensure-chromium.sh
	@GOFLAGS=-mod=mod GOPROXY=off $(GO) list ./cmd/webpilot >/dev/null 2>&1 || \
		echo "--- first build: Go downloads webpilot's modules (about 30 MB) and compiles it; a minute or two, once"
	$(BUILD)
	./bin/webpilot demo

# What CI runs: Chromium present, gofmt clean, go vet clean, then every test with the race
# detector; browser tests fail (rather than skip) when no browser can be found, and the OpenCLI
# integration test when the real OpenCLI cannot be fetched from npm; last, the MCP
# conformance suite and the Inspector CLI against the built binary (make conformance).
test:
	@echo "--- make test: about 25 minutes on 2 cores. The first run fetches, into caches later runs reuse:"
	@echo "    Chromium (apt, when missing), Go modules (~30 MB), and through npx (~/.npm, about 1.5 GB):"
	@echo "    Node 22, the real OpenCLI and browserless (and its Chromium), the MCP conformance suite and Inspector."
	bash scripts/ensure-chromium.sh
	@files=$$(find . -name '*.go' -not -path './.git/*' -not -path '*/testdata/*' -not -path './bin/*' -not -path './dist/*'); \
	if [ -n "$$files" ]; then \
		bad=$$(gofmt -l $$files); \
		if [ -n "$$bad" ]; then \
			echo "gofmt: these files are not formatted (run 'make fmt'):" >&2; \
			echo "$$bad" >&2; \
			exit 1; \
		fi; \
	fi
	$(GO) vet ./...
	@$(GO) mod tidy -diff >/dev/null || { echo "go.mod/go.sum are not tidy: run 'go mod tidy'" >&2; $(GO) mod tidy -diff; exit 1; }
	@echo "--- cross-builds: windows/amd64, darwin/arm64, linux/arm64"
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/webpilot
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/webpilot
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/webpilot
	@cc=$$($(GO) env CC); command -v "$${cc%% *}" >/dev/null 2>&1 || { \
		echo "make test: 'go test -race' needs a C compiler ($$cc not found)." >&2; \
		echo "On Debian/Ubuntu: apt-get install gcc libc6-dev" >&2; \
		exit 1; }
	@echo "--- the real OpenCLI and the real browserless from npm, for the opencli tools' and the farm's tests (scripts/ensure-opencli.sh, scripts/ensure-browserless.sh)"
	WEBPILOT_REQUIRE_BROWSER=1 WEBPILOT_REQUIRE_OPENCLI=1 WEBPILOT_TEST_OPENCLI_DIR="$$(bash scripts/ensure-opencli.sh)" \
		WEBPILOT_REQUIRE_BROWSERLESS=1 WEBPILOT_TEST_BROWSERLESS_DIR="$$(bash scripts/ensure-browserless.sh)" $(GO) test -race -timeout 25m ./...
	@echo "--- the shared browser suite again, on the bridge backend (the extension in headless Chromium)"
	WEBPILOT_REQUIRE_BROWSER=1 WEBPILOT_TEST_BACKEND=bridge $(GO) test -race -timeout 25m $(BROWSER_SUITE)
	@echo "--- and on the endpoint backend (a Chromium with a debugging port, reached over WebSocket)"
	WEBPILOT_REQUIRE_BROWSER=1 WEBPILOT_TEST_BACKEND=endpoint WEBPILOT_REQUIRE_BROWSERLESS=1 WEBPILOT_TEST_BROWSERLESS_DIR="$$(bash scripts/ensure-browserless.sh)" \
		$(GO) test -race -timeout 25m $(BROWSER_SUITE)
	@echo "--- the extension's relay logic (Node's test runner)"
	node --test extension/test/
	@echo "--- third-party MCP clients: the conformance suite (HTTP) and the MCP Inspector CLI (stdio, HTTP)"
	GO=$(GO) bash scripts/conformance.sh

# The official MCP conformance suite against `webpilot serve`, and the MCP Inspector's CLI over stdio
# and HTTP, driving a fixture page (scripts/conformance.sh; Node 22 and the clients come through npx).
conformance:
	bash scripts/ensure-chromium.sh
	GO=$(GO) bash scripts/conformance.sh

# Unit tests only: no browser needed.
test-short:
	$(GO) test -short ./...

# Cold start (server start → first navigate, against the bare browser launch), peak PSS and USS of
# the whole process tree, snapshot size (chars, o200k tokens), per-tool latency on the fixture
# pages, the bridge beside launch (the same calls, alternating, with the ratio); the opencli tools
# against OpenCLI by hand (the real one, fetched by scripts/ensure-opencli.sh). ARGS="-peers DIR" adds playwright-mcp and chrome-devtools-mcp installed under DIR.
# The first part is cmd/webpilot-bench (not in the webpilot binary), which builds ./cmd/webpilot to
# measure it; ARGS are its flags ("go run ./cmd/webpilot-bench -h"). It appends every row to
# bench/history.jsonl and prints REGRESSION for each row more than 20 % worse than in the last run
# of the same machine shape there (ARGS=-history= turns that off).
bench:
	bash scripts/ensure-chromium.sh
	PATH="$$(bash scripts/ensure-opencli.sh):$$PATH" CI=1 GO=$(GO) $(GO) run ./cmd/webpilot-bench $(ARGS)
	@for b in launch bridge endpoint; do \
		WEBPILOT_BENCH=1 WEBPILOT_TEST_BACKEND=$$b $(GO) test -count=1 -run 'TestLatencyTable|TestRecordLatency' -v ./internal/browser/ | grep -v -e '^=== ' -e '^--- ' -e '^PASS' -e '^ok '; \
	done
	@WEBPILOT_BENCH=1 $(GO) test -count=1 -run 'TestLatencyBridgeBesideLaunch$$' -v ./internal/browser/ | grep -v -e '^=== ' -e '^--- ' -e '^PASS' -e '^ok '
	@echo "a browser farm under load: 8 agents on one serve against browserless with 4 browsers, navigate + fill + read x10 each"
	@WEBPILOT_TEST_BROWSERLESS_DIR="$$(bash scripts/ensure-browserless.sh)" WEBPILOT_REQUIRE_BROWSERLESS=1 WEBPILOT_BENCH=1 $(GO) test -count=1 -run 'TestFarmLoad$$' -v ./cmd/webpilot/ | grep -e 'farm load:' -e FAIL
	@echo "snapshot time by page size (launch; the walk grows linearly)"
	@WEBPILOT_BENCH=1 WEBPILOT_BENCH_SIZES=5000,10000,20000,40000,200000 $(GO) test -count=1 -timeout 20m -run TestBigPageTimes -v ./internal/browser/ | grep -v -e '^=== ' -e '^--- ' -e '^PASS' -e '^ok '

# The release in dist/ (scripts/release, docs/install.md): an archive per platform (Linux, macOS,
# Windows; amd64, arm64) with the binary, LICENSE and README, SHA256SUMS, install.sh and
# install.ps1, the npm packages, a Homebrew formula and a Scoop manifest. Reproducible.
release:
	$(GO) run ./scripts/release -version $(VERSION) -go $(GO)

fmt:
	@files=$$(find . -name '*.go' -not -path './.git/*' -not -path '*/testdata/*' -not -path './bin/*' -not -path './dist/*'); \
	if [ -n "$$files" ]; then gofmt -l -w $$files; fi

clean:
	rm -rf bin dist coverage.out coverage.html
