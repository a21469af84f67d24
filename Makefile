# The two commands a newcomer needs: `make run` and `make test`.
# Everything else is here for contributors and deployers; see README.md.

GO        ?= go
BIN       := bin/handler
DIST      := dist
LISTEN_ADDR ?= 127.0.0.1:7071
DATA_DIR    ?= ./.data
# OTLP=1 links the OpenTelemetry exporters into make build and make run;
# make stage (the deployable handler) and make test always do.
OTLP        ?=
BUILD_TAGS  := $(if $(OTLP),-tags otlp,)

.PHONY: all build run web test test-short lint fmt vet staticcheck tsc bicep-lint fuzz bench stage package start \
        check-deploy what-if deploy-infra deploy-app deploy clean

all: build

build:
	$(GO) build $(BUILD_TAGS) -o $(BIN) ./handler

## run: the API standalone on the embedded store (no Azure, no network)
run: build
	LISTEN_ADDR=$(LISTEN_ADDR) DATA_DIR=$(DATA_DIR) ./$(BIN)

# npm test tools: the Cosmos DB protocol server for the adapter's wire tests
# and the Bicep grammar for the offline lint.
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

## web: the web page's bundle (webapp/static, committed) and the TypeScript client
web: node_modules/.package-lock.json
	node web/build.mjs
	node_modules/.bin/openapi-typescript openapi.json -o client/typescript/schema.d.ts

# Every test runs under the race detector but those of infra (checks of the
# Bicep and the manifests: no concurrency, and fourteen times slower under
# it) and the heavy tests that skip themselves under it (see internal/race),
# which run again without it. telemetry runs once more without -tags otlp,
# as make build builds it.
HEAVY_PACKAGES := ./app/ ./audit/reconcile/ ./service/
HEAVY_TESTS    := TestBoundedAnswers|TestExportBoundedMemory|TestLargestTodosUnderTheHost|TestQueries|TestRunCostFollowsWritesNotHistory|TestWatermarkStaysSmall|TestRefillOfOneLongHistoryIsLinear

## test: every test that runs on one machine, Cosmos wire tests included
test: node_modules/.package-lock.json test-verifier
	$(GO) test -race -count=1 -tags otlp $$($(GO) list ./... | grep -v '/infra$$')
	$(GO) test -count=1 -tags otlp -run '^($(HEAVY_TESTS))$$' $(HEAVY_PACKAGES)
	$(GO) test -count=1 ./infra/ ./telemetry/
	$(MAKE) --no-print-directory test-web

.PHONY: test-web chromium

## test-web: the page's end-to-end tests (web/test/) in headless chromium,
## on the handler make build builds; a failing test leaves a screenshot in
## web/test/output/
test-web: build node_modules/.package-lock.json chromium
	HANDLER_BIN=$(CURDIR)/$(BIN) node --test --test-concurrency=1 web/test/*.test.mjs

# The browser tests drive Debian's chromium package (Playwright's own
# browser download is not used); installed when missing, as CI runs as root.
chromium:
	@[ -x /usr/bin/chromium ] || { apt-get update && apt-get install -y chromium; } || \
	  { echo "the browser tests need Debian's chromium: apt-get install chromium, as root"; exit 1; }

# The page's verifier (TypeScript, type-checked) against the vectors the
# Go verifier labels (internal/verifyvectors): the same verdict, case by
# case; the standalone verifier page built from it is fresh and, opened
# from disk in headless Chromium, verifies a good export and refuses an
# edited one. The page's history and audit views are tested with the
# rest of the page by test-web.
.PHONY: test-verifier
test-verifier: node_modules/.package-lock.json chromium
	node node_modules/typescript-7/bin/tsc -p web/src/verify/tsconfig.json
	node --test web/src/verify/verify.test.mjs
	node web/src/verify/build-page.mjs --check
	node --test web/src/verify/page.test.mjs

test-short:
	$(GO) test -short -tags otlp ./...

## lint: gofmt, go vet, staticcheck, the page's type check and the Bicep syntax check
lint: fmt vet staticcheck tsc bicep-lint

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	$(GO) vet -tags otlp ./...

# staticcheck runs every check. The exclusions, each for a reason:
#   (none so far: add one here only with the reason it does not apply)
staticcheck:
	$(GO) tool staticcheck -checks=all ./...
	$(GO) tool staticcheck -checks=all -tags otlp ./...

tsc: node_modules/.package-lock.json
	node node_modules/typescript-7/bin/tsc --noEmit -p web

bicep-lint: node_modules/.package-lock.json
	node infra/bicep-lint.mjs infra/bicep

## fuzz: a short run of every fuzz target
FUZZTIME ?= 10s
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; done

## bench: Go benchmarks, the load tool (quality bars, side by side in one run),
## instructions per request under valgrind's callgrind (needs valgrind),
## the partition analyzer on 1,000,000 generated todos (its activity page
## estimate printed) and that estimate beside the embedded store's charge at
## a hundredth of the workload. BENCH_COMPARE is the commit the load tool
## measures beside this build (364007d: before the audit reads' rework).
BENCH_COMPARE ?= 364007d
bench:
	$(GO) test -run '^$$' -bench . -benchmem . ./app/ ./bolt/ ./httpapi/ ./store/ ./transparency/
	$(GO) run ./cmd/loadtest -compare $(BENCH_COMPARE)
	$(GO) run ./cmd/loadtest -instructions -compare $(BENCH_COMPARE)
	$(GO) run ./cmd/loadtest -store-bytes 20000 -compare $(BENCH_COMPARE)
	$(GO) test -run '^$$' -bench Analyze1M -benchtime 1x -benchmem ./cmd/partition-analyzer/analyze/
	$(GO) build -o bin/partition-analyzer ./cmd/partition-analyzer
	bin/partition-analyzer --generate --todos 1000000 --users 100000 --stats | sed -n '/^Activity pages/,/^$$/p'
	$(GO) test -run '^$$' -bench ActivityEstimate -benchtime 1x ./cmd/partition-analyzer/analyze/

## stage: the deployable script root dist/ (host.json, function folders, Linux handler);
## a dist/local.settings.json (make start's) is kept
stage:
	mkdir -p $(DIST)
	find $(DIST) -mindepth 1 -maxdepth 1 ! -name local.settings.json -exec rm -rf {} +
	cp host.json $(DIST)/
	for f in functions/*/function.json; do d=$$(dirname $$f); mkdir -p $(DIST)/$$(basename $$d); cp $$f $(DIST)/$$(basename $$d)/; done
	CGO_ENABLED=0 GOOS=linux GOARCH=amd64 $(GO) build -tags otlp -trimpath -ldflags='-s -w' -o $(DIST)/handler ./handler
	chmod 0755 $(DIST)/handler

## package: the deployment package bin/app.zip of dist/, the handler's run bit recorded
## (azd and make deploy-app upload it as it is)
PACKAGE ?= bin/app.zip
package: stage
	mkdir -p $(dir $(PACKAGE))
	$(GO) run ./cmd/package-zip $(DIST) $(PACKAGE)

## start: the Functions host on dist/ (needs Azure Functions Core Tools, Azurite and the Cosmos DB emulator)
start: stage
	@command -v func >/dev/null 2>&1 || { echo "make start needs Azure Functions Core Tools (func), with Azurite and the Cosmos DB emulator running (docs/operations.md: the local loop). Without them, use make run."; exit 1; }
	@[ -f $(DIST)/local.settings.json ] || cp local.settings.json.example $(DIST)/local.settings.json
	cd $(DIST) && func start

## deployment (see docs/deploying.md)
check-deploy:
	sh infra/deploy.sh check
what-if:
	sh infra/deploy.sh what-if
deploy-infra:
	sh infra/deploy.sh infra
deploy-app: package
	sh infra/deploy.sh app
deploy: deploy-infra deploy-app

clean:
	rm -rf bin $(DIST)
