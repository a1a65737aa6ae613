# Checkpoint Explorer. `make run` installs what is missing, builds and opens the
# app; `make test` runs every test. See README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := build

# Two builds of one program: BIN, the command line and serve, links no window libraries (it
# starts in milliseconds); WINDOW_BIN, the desktop build, is what BIN runs to open the window.
BIN        := build/bin/checkpoint-explorer
WINDOW_BIN := build/bin/checkpoint-explorer-window
VERSION    ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT     ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS    := -X checkpoint-explorer/app.BuildVersion=$(VERSION) -X checkpoint-explorer/app.BuildCommit=$(COMMIT)
TAGS       := desktop,production,webkit2_41
GO_SOURCES := $(shell find . -name '*.go' -not -path './frontend/*' -not -path './testenv/.cache/*' 2>/dev/null)
FE_SOURCES := $(shell find frontend/src frontend/index.html frontend/vite.config.ts frontend/package.json -type f 2>/dev/null)

.PHONY: deps deps-build deps-package deps-test build package icons test-package frontend generate run test test-go test-fuzz test-frontend test-e2e test-desktop vet bench fuzz soak clean stop-testenv

# Debian packages, installed only when missing (testenv/install-deps.sh lists each set):
# deps-build what building needs, deps-package that and the packaging tools, deps-test
# that and the test stack (Xvfb, Chromium, Prometheus, ImageMagick, Java, Maven...).
deps-build:
	@testenv/install-deps.sh build

deps-package:
	@testenv/install-deps.sh package

deps-test:
	@testenv/install-deps.sh test

deps: deps-test

frontend/node_modules/.installed: frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	touch $@

frontend/dist/index.html: frontend/node_modules/.installed $(FE_SOURCES)
	cd frontend && npm run build

frontend: frontend/dist/index.html

# The UI's contract with the backend (frontend/src/lib/contract.gen.ts, and types.gen.ts: each
# type as the UI reads it, with the Go doc comments) from the Go types; a test in test-go fails
# when the checked-in files differ from what this writes.
generate:
	go run ./app/contractgen

GO_BUILD   = go build -ldflags "-w -s $(LDFLAGS)"

$(BIN): frontend/dist/index.html $(GO_SOURCES) go.mod go.sum
	@mkdir -p build/bin
	$(GO_BUILD) -o $(BIN) .

$(WINDOW_BIN): frontend/dist/index.html $(GO_SOURCES) go.mod go.sum
	@mkdir -p build/bin
	$(GO_BUILD) -tags $(TAGS) -o $(WINDOW_BIN) .

build: deps-build $(BIN) $(WINDOW_BIN)

# build/package/: a Debian package (.deb) and a tarball for other distributions, versioned
# from git (packaging/build.sh). The binary is built here with the version of this moment,
# the same production builds as $(BIN) and $(WINDOW_BIN) (no test support: build_test.go
# checks both builds' deps).
package: deps-package frontend/dist/index.html
	@mkdir -p build/package
	$(GO_BUILD) -o build/package/checkpoint-explorer .
	$(GO_BUILD) -tags $(TAGS) -o build/package/checkpoint-explorer-window .
	packaging/build.sh build/package/checkpoint-explorer build/package/checkpoint-explorer-window $(VERSION) build/package

# The window's icon (app/window/appicon.png) from packaging/icon.svg, the source of every size.
icons:
	rsvg-convert -w 512 -h 512 packaging/icon.svg -o app/window/appicon.png

# Opens the window; without a display, serves the UI to a browser and prints the address.
# Needs what the build needs (the WebKitGTK runtime comes with its headers), not the test stack.
run: build
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then exec $(BIN); else exec $(BIN) serve; fi

vet: frontend/dist/index.html
	gofmt -l . | grep -v '^frontend/' | (! grep .) || (echo "gofmt needed on the files above" && false)
	go vet ./...

# The Go tests: app's (whose real tests run side by side, a track per cluster) beside every
# other package's; testenv/test-suites.sh says how.
test-go: frontend/dist/index.html
	@SUITES="go-app go" testenv/test-suites.sh

# Every Go fuzz target briefly (its seeds also run in test-go); `make fuzz` searches longer.
test-fuzz: frontend/dist/index.html
	FUZZ_TIME=$${FUZZ_TIME:-3s} testenv/fuzz.sh

test-frontend: frontend/node_modules/.installed
	cd frontend && npm run check && npm test

test-e2e: $(BIN)
	testenv/e2e.sh

test-desktop: $(BIN) $(WINDOW_BIN)
	testenv/desktop-smoke.sh
	testenv/desktop-drop.sh

# Builds the package, unpacks it into a fresh root, runs the installed binary (version, the
# window under Xvfb) and validates the desktop entry and the AppStream metainfo.
test-package: package
	testenv/package-test.sh build/package

# Every test: vet, frontend unit tests, Go (with the real Flink, SeaTunnel, Prometheus and Jaeger
# it starts), each fuzz target briefly, the browser end-to-end test, the desktop window under
# Xvfb, the package. testenv/test-suites.sh runs them side by side where they share nothing,
# keeps each suite's output in test-results/<suite>.log (printed when it fails) and ends with each
# suite's wall time. Jaeger's first build (minutes)
# runs at a low priority beside the first suites.
test: deps-test
	@mkdir -p test-results; trap 'testenv/stop-all.sh' EXIT; \
	(nice -n 19 testenv/jaeger/build.sh >test-results/jaeger-build.log 2>&1 &); \
	testenv/test-suites.sh

bench: deps-test $(BIN)
	@trap 'testenv/stop-all.sh' EXIT; testenv/bench.sh

# Each fuzz target for FUZZ_TIME (default 30s); what it finds is kept under testdata/fuzz/.
fuzz: frontend/dist/index.html
	testenv/fuzz.sh

# Crashes (kill -9 × 200), long histories and load, with figures (testenv/soak.sh; about an hour).
soak: deps-test $(BIN)
	@trap 'testenv/stop-all.sh' EXIT; testenv/soak.sh

stop-testenv:
	testenv/stop-all.sh

clean:
	rm -rf build/bin build/package frontend/dist test-results
