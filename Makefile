# offsetctl developer targets. See scripts/kafka.sh for the real-Kafka harness.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c

GO        ?= go
FUZZTIME  ?= 30s
BIN       ?= offsetctl
KAFKA_SH  := $(CURDIR)/scripts/kafka.sh
KAFKA_PORT ?= 19092
export KAFKA_PORT

# VERSION is stamped into the binary (-X main.version): the tag when HEAD
# has one, else devel+<commit>[-dirty]; `make build VERSION=v1.2.3` sets it.
# (A build without it falls back to what Go's build info records: see
# internal/buildinfo.)
VERSION ?= $(shell git describe --tags --exact-match --dirty 2>/dev/null || \
	{ r=$$(git rev-parse --short=12 HEAD 2>/dev/null) && echo "devel+$$r$$(git diff --quiet HEAD 2>/dev/null || echo -dirty)"; } || \
	echo devel)
LDFLAGS   := -X main.version=$(VERSION)

.PHONY: all build test test-kafka kafka-start kafka-stop fuzz fuzz-short bench demo vet fmt-check docs docs-check release release-check mutate mutate-full

all: build test

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) .

# Unit tests + in-process kfake integration tests. Never against a real broker.
# testprogress prints each package's line as soon as it finishes (plain go
# test prints them in import-path order, so a slow early package held back
# every line after it), with the output of what failed.
test:
	env -u KAFKA_BROKERS -u OFFSETCTL_KAFKA_SCRIPT $(GO) test -json ./... 2>&1 | $(GO) run ./internal/tools/testprogress

# The same suite, plus the tests gated on KAFKA_BROKERS, against a real
# single-node Apache Kafka 4.x, then the security and fault tests against the
# secure broker (test-kafka-secure); each broker is stopped even when tests
# fail. Last, scripts/broker-tests-ran.sh checks in the -v logs that every
# broker-gated test (each skips in make test) ran and passed here.
# The console shows failures, skips and package results; not every PASS.
# KAFKA_TEST_TIMEOUT replaces go test's default 10m per package: internal/cli
# is most of this target's 10-12 minutes on a real broker, and on the loaded
# 2-core machine it passed 10m (panic: test timed out after 10m0s, with
# every test before it passing); each test that waits on the broker has its
# own bound, so this only catches a hang.
KAFKA_TEST_TIMEOUT ?= 30m
# Keeps a passing test's line when it took 10 s or more: CI's log then says
# where the broker suites' time goes.
TEST_FILTER := awk '/^ *--- PASS/ { if (match($$0, /\(([0-9.]+)s\)$$/) && substr($$0, RSTART+1, RLENGTH-3) + 0 >= 10) print; next } !/^ *=== (RUN|PAUSE|CONT|NAME)/'
test-kafka:
	@logs="$$(mktemp -d)"; trap 'rm -rf "$$logs"' EXIT; \
	rc=0; \
	( trap '"$(KAFKA_SH)" stop || true' EXIT; \
	  "$(KAFKA_SH)" start; \
	  KAFKA_BROKERS=127.0.0.1:$(KAFKA_PORT) OFFSETCTL_KAFKA_SCRIPT="$(KAFKA_SH)" \
		$(GO) test -count=1 -p 1 -timeout $(KAFKA_TEST_TIMEOUT) -v ./... 2>&1 | tee "$$logs/plain" | $(TEST_FILTER) ) || rc=$$?; \
	$(MAKE) --no-print-directory test-kafka-secure TEST_KAFKA_LOG="$$logs/secure" || rc=$$?; \
	scripts/broker-tests-ran.sh "$$logs/plain" "$$logs/secure" || rc=1; \
	exit $$rc

# Security and fault tests (TestSecur*, TestFault*) against a second broker
# with SASL_SSL/SCRAM, mTLS and PLAINTEXT listeners (scripts/kafka-secure.sh,
# ports 19192-19195); it is stopped even when tests fail. TEST_KAFKA_LOG
# keeps the -v log (for test-kafka's check).
KAFKA_SECURE_SH := $(CURDIR)/scripts/kafka-secure.sh
TEST_KAFKA_LOG ?= /dev/null
.PHONY: test-kafka-secure
test-kafka-secure:
	@trap '"$(KAFKA_SECURE_SH)" stop || true' EXIT; \
	env_lines="$$("$(KAFKA_SECURE_SH)" start)"; \
	set -a; eval "$$env_lines"; set +a; \
	rc=0; \
	env -u KAFKA_BROKERS OFFSETCTL_KAFKA_SCRIPT="$(KAFKA_SH)" \
		$(GO) test -count=1 -p 1 -timeout $(KAFKA_TEST_TIMEOUT) -v -run '^(TestSecur|TestFault)' ./internal/cli 2>&1 | tee "$(TEST_KAFKA_LOG)" | $(TEST_FILTER) || rc=$$?; \
	exit $$rc

kafka-start:
	"$(KAFKA_SH)" start

kafka-stop:
	"$(KAFKA_SH)" stop

# A run that ends with only "context deadline exceeded" (the fuzzer's own
# deadline racing its workers on a loaded machine, no failing input written)
# is reported but not a failure; any failing input is.
# Runs every Fuzz* target of every package for FUZZTIME each (go fuzzes one
# target per invocation). `go test -list` prints a package's names, then its
# "ok  <pkg>" line; awk pairs them up.
fuzz:
	@targets="$$($(GO) test -list '^Fuzz' ./... | awk '/^Fuzz/ {f[n++]=$$1; next} /^ok/ {for (i = 0; i < n; i++) print $$2 " " f[i]; n = 0}')"; \
	if [ -z "$$targets" ]; then echo "no Fuzz* targets found"; exit 0; fi; \
	while read -r pkg f; do \
		echo "== fuzz $$pkg $$f ($(FUZZTIME))"; \
		out="$$($(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) "$$pkg" </dev/null 2>&1)" && { echo "$$out" | tail -3; continue; }; \
		echo "$$out"; \
		if grep -q 'Failing input written to' <<< "$$out" || ! grep -q 'context deadline exceeded' <<< "$$out"; then exit 1; fi; \
		echo "(go's fuzzer hit its own deadline while coordinating workers — no failing input was found; not a failure)"; \
	done <<< "$$targets"

fuzz-short:
	$(MAKE) --no-print-directory fuzz FUZZTIME=3s

# Mutation testing (gremlins) of admin, replay, cluster and report, each
# against its own tests, failing below MUTATE_FLOOR (90) % of covered mutants
# killed; equivalent mutants are listed with reasons in
# scripts/mutate-equivalents.txt. `mutate` (CI) mutates every line changed
# since the commit of the last passing full run (scripts/mutate-baseline), so
# a fresh clone checks the real diff; it fails on a shallow clone and on a
# diff of more than MUTATE_MAX (150) mutants, when the full run is due.
# `mutate-full` mutates all four (nightly: an hour or more on a shared 2-core
# machine, see docs/testing.md); `MUTATE_RECORD=1 make mutate-full` on a clean
# tree rewrites the baseline when every floor passes.
mutate:
	scripts/mutate.sh changed

mutate-full:
	scripts/mutate.sh all

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

demo:
	$(GO) run . demo

vet:
	$(GO) vet ./...

fmt-check:
	@out="$$(gofmt -l .)"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

# The command reference (docs/cli/*.md) and man pages (docs/man/*.1),
# generated from the cobra commands' help text: run after changing a
# command, flag or help string, and commit the result.
docs:
	$(GO) run ./internal/tools/gendocs -out docs

# Fails when the checked-in reference differs from what `make docs` makes,
# when a relative link in any *.md (a file, a directory or a heading) is
# dead, or when docs/README.md does not list a page of docs/, or when a
# benchmark command a page documents finds no benchmark (go test -list:
# compiles, runs nothing).
docs-check:
	@$(GO) run ./internal/tools/doclinks
	@$(GO) run ./internal/tools/benchdocs
	@tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	$(GO) run ./internal/tools/gendocs -out "$$tmp"; \
	if ! diff -r docs/cli "$$tmp/cli" || ! diff -r docs/man "$$tmp/man"; then \
		echo "docs/cli or docs/man is stale: run make docs and commit the result" >&2; exit 1; \
	fi; \
	echo "docs/cli and docs/man are up to date"

# Release archives without goreleaser, the same builds as .goreleaser.yaml:
# every platform below with -trimpath, CGO off (static, cross-compiles
# without a C toolchain), the version stamped, symbols stripped; one
# archive per platform (zip for Windows) holding the binary, LICENSE,
# README.md, CHANGELOG.md and the man pages; checksums.txt (SHA-256).
# Archives are reproducible: fixed order, owner and mtime (the commit's).
# A list without Windows makes no .zip: nullglob keeps sha256sum from being
# handed the literal '*.zip' (it failed `make release RELEASE_PLATFORMS=linux/amd64`).
RELEASE_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
DIST ?= dist
release:
	@rm -rf "$(DIST)"; mkdir -p "$(DIST)"; \
	mtime="$$(git log -1 --format=%cI 2>/dev/null || echo 2026-12-01T00:00:00Z)"; \
	for p in $(RELEASE_PLATFORMS); do \
		os="$${p%/*}"; arch="$${p#*/}"; name="$(BIN)_$(VERSION)_$${os}_$${arch}"; ext=""; \
		[ "$$os" = windows ] && ext=".exe"; \
		echo "== $$os/$$arch"; \
		mkdir -p "$(DIST)/$$name"; \
		CGO_ENABLED=0 GOOS="$$os" GOARCH="$$arch" $(GO) build -trimpath -ldflags '-s -w $(LDFLAGS)' \
			-o "$(DIST)/$$name/$(BIN)$$ext" .; \
		cp LICENSE README.md CHANGELOG.md "$(DIST)/$$name/"; \
		mkdir -p "$(DIST)/$$name/man"; cp docs/man/*.1 "$(DIST)/$$name/man/"; \
		find "$(DIST)/$$name" -exec touch -d "$$mtime" {} +; \
		if [ "$$os" = windows ]; then \
			(cd "$(DIST)" && find "$$name" | LC_ALL=C sort | zip -X -q "$$name.zip" -@); \
		else \
			tar -C "$(DIST)" --sort=name --owner=0 --group=0 --numeric-owner --mtime="$$mtime" \
				-cf - "$$name" | gzip -n > "$(DIST)/$$name.tar.gz"; \
		fi; \
		rm -rf "$(DIST)/$$name"; \
	done; \
	(cd "$(DIST)" && shopt -s nullglob && sha256sum *.tar.gz *.zip > checksums.txt); \
	cat "$(DIST)/checksums.txt"

# Checks what `make release` made: every platform has an archive, the
# checksums match, and the host's binary reports the stamped version.
release-check:
	@cd "$(DIST)" && sha256sum -c --quiet checksums.txt; \
	for p in $(RELEASE_PLATFORMS); do \
		f="$(BIN)_$(VERSION)_$${p%/*}_$${p#*/}"; \
		[ -f "$$f.tar.gz" ] || [ -f "$$f.zip" ] || { echo "missing archive for $$p" >&2; exit 1; }; \
	done; \
	host="$(BIN)_$(VERSION)_$$($(GO) env GOOS)_$$($(GO) env GOARCH)"; \
	tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	tar -C "$$tmp" -xzf "$$host.tar.gz"; \
	got="$$("$$tmp/$$host/$(BIN)" --version)"; \
	[ "$$got" = "$(BIN) $(VERSION)" ] || { echo "release binary says '$$got', want '$(BIN) $(VERSION)'" >&2; exit 1; }; \
	echo "release ok: $$got, checksums verified"
