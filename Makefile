# Salve's build. `make demo` runs the main job on the embedded default (no API
# key); `make test` installs what the tests need, then runs every check.
GO      ?= go
BIN     := bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
PKGS    := ./...
# staticcheck, installed at its pinned version by `make setup` (scripts/staticcheck/setup.sh)
STATICCHECK := .deps/bin/staticcheck

.PHONY: all build setup test check fmt-check vet staticcheck validate unit demo bench cross dist clean

all: build

## build: the three binaries, static (CGO_ENABLED=0), into bin/
build:
	@echo "build: compiling salve, git_agent and ai-agent into $(BIN)/; on a cold cache each package is named as it compiles (SQLite, gRPC and the tokenizer take a few minutes)" >&2
	CGO_ENABLED=0 $(GO) build -v -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/...

## setup: install what the tests need (idempotent; each part skips with a note when it cannot)
setup:
	bash scripts/setup.sh

## test: setup, then formatting, vet, staticcheck, the contract validator and every test
test: setup build check unit

check: fmt-check vet staticcheck validate

fmt-check:
	@out=$$(git ls-files '*.go' | grep -Ev '(^|/)testdata/' | xargs gofmt -l); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

staticcheck:
	@if [ ! -x "$(STATICCHECK)" ]; then echo "staticcheck: $(STATICCHECK) is missing; run make setup to install it" >&2; exit 1; fi
	$(STATICCHECK) $(PKGS)

validate:
	bash scripts/validate.sh

unit:
	PATH="$(CURDIR)/.deps/npm/bin:$$PATH" $(GO) test -count=1 -timeout 15m $(PKGS)

## demo: the main job on bundled examples, with no API key
demo: build
	bash scripts/demo.sh

## bench: a small run of every benchmark behind BENCHMARKS.md, so that a move cannot silently
## break one: each Go benchmark once (-short: scale benchmarks at their smallest size), and each
## benchmark script at its small size (BENCH_SMALL=1, or the flags of a small run). Its figures
## are not to quote: BENCHMARKS.md gives each command at full size. internal/housetest checks
## that every script the benchmark pages name is run here.
BENCH_PKGS = $(shell git ls-files '*_test.go' | grep -v '/testdata/' | xargs grep -l '^func Benchmark' | xargs -n1 dirname | sort -u | sed 's|^|./|')
bench:
	$(GO) test -short -run '^$$' -bench . -benchtime 1x -benchmem $(BENCH_PKGS)
	BENCH_SMALL=1 bash scripts/corpus/bench.sh
	BENCH_SMALL=1 bash scripts/bench-heal-speed.sh
	BENCH_SMALL=1 bash scripts/ai-agent/bench.sh
	BENCH_SMALL=1 bash scripts/fuzz.sh internal/textdist
	BENCH_SMALL=1 bash scripts/heal-corpus/check-cases.sh
	BENCH_SMALL=1 bash scripts/history/smoke.sh
	$(GO) run ./scripts/service/bench -jobs 4 -workers 2 -nodes 1 -kill=false
	$(GO) run ./scripts/service/workerbench -rounds 1

## cross: build every promised program for every promised platform (also part of `make test`)
cross:
	$(GO) test -count=1 -timeout 30m -run '^TestCrossBuild$$' ./internal/housetest/

## dist: release archives in dist/: a tarball for linux and darwin on amd64 and arm64 (the three
## programs and ai-agent-telemetry, LICENSE, README.md), a zip for windows/amd64 (ai-agent, ai-agent-telemetry, git_agent, LICENSE), SHA256SUMS
dist:
	VERSION=$(VERSION) bash scripts/dist.sh dist

clean:
	rm -rf $(BIN) dist
