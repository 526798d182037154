# offsetctl developer targets. See scripts/kafka.sh for the real-Kafka harness.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c

GO        ?= go
FUZZTIME  ?= 30s
BIN       ?= offsetctl
KAFKA_SH  := $(CURDIR)/scripts/kafka.sh
KAFKA_PORT ?= 19092
export KAFKA_PORT

.PHONY: all build test test-kafka kafka-start kafka-stop fuzz fuzz-short bench demo vet fmt-check

all: build test

build:
	$(GO) build -o $(BIN) .

# Unit tests + in-process kfake integration tests. Never against a real broker.
test:
	env -u KAFKA_BROKERS -u OFFSETCTL_KAFKA_SCRIPT $(GO) test ./...

# The same suite, plus the tests gated on KAFKA_BROKERS, against a real
# single-node Apache Kafka 4.x. The broker is stopped even when tests fail.
test-kafka:
	trap '"$(KAFKA_SH)" stop || true' EXIT; \
	"$(KAFKA_SH)" start; \
	rc=0; \
	KAFKA_BROKERS=127.0.0.1:$(KAFKA_PORT) OFFSETCTL_KAFKA_SCRIPT="$(KAFKA_SH)" \
		$(GO) test -count=1 -p 1 ./... || rc=$$?; \
	exit $$rc

kafka-start:
	"$(KAFKA_SH)" start

kafka-stop:
	"$(KAFKA_SH)" stop

# Runs every Fuzz* target of every package for FUZZTIME each (go can fuzz only
# one target per invocation).
fuzz:
	found=0; \
	for pkg in $$($(GO) list ./...); do \
		list="$$($(GO) test -list '^Fuzz' "$$pkg")"; \
		for f in $$(printf '%s\n' "$$list" | grep -E '^Fuzz' || true); do \
			found=1; \
			echo "== $$pkg $$f ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) "$$pkg"; \
		done; \
	done; \
	if [ $$found = 0 ]; then echo "no Fuzz* targets found"; fi

fuzz-short:
	$(MAKE) --no-print-directory fuzz FUZZTIME=5s

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

demo:
	$(GO) run . demo

vet:
	$(GO) vet ./...

fmt-check:
	@out="$$(gofmt -l .)"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
