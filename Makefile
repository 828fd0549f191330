# polgraph's front door: `make run` and `make test`.
SHELL := /bin/bash
GO ?= go

.PHONY: bench-explorer run cluster drill drill-backup drill-backup-1m corpus check test fuzz build bench-resolve dgraph tools lint-tools browser networkx postgres proto clean bench bench-load bench-quick bench-history web web-deps web-proto web-test web-screenshot \
	image deploy-check

## run: build what is missing, start a local Dgraph, load the default graph, serve gRPC on 127.0.0.1:50051
## and the graph explorer on http://127.0.0.1:8080/
run: dgraph build
	./bin/polgraph run

## cluster: a local Dgraph cluster (a zero, three alphas replicating one group) with the default graph,
## and two polgraph replicas serving it: gRPC on 127.0.0.1:50061 and :50062, the explorer on :8091 and
## :8092; every process restarted when it dies; data in .data/cluster; Ctrl-C stops everything
## (docs/operations.md)
cluster: dgraph build
	./bin/polgraph cluster

## drill: the fault drills on local clusters (the leader of a replicated group killed under reads and
## writes, two groups against one alpha) and a 64-client soak of SOAK (default 3m), their figures printed;
## docs/operations.md keeps those of a run
SOAK ?= 3m
drill: dgraph
	POLGRAPH_DRILL_SOAK=$(SOAK) POLGRAPH_DRILL_AFTER=20s $(GO) test -count=1 -timeout 30m -v -run 'TestClusterSurvivesLosingItsLeader|TestShardedClusterAnswersAsOneAlpha' ./cmd/polgraph

## drill-backup: the backup drill: `polgraph run` on the default graph backing up every BACKUP_EVERY (default
## 10s) under a steady write load for BACKUP_LOAD (default 35s), its data folder wiped, the latest backup
## restored and served again; prints what was lost and how long nothing answered (docs/operations.md)
BACKUP_EVERY ?= 10s
BACKUP_LOAD ?= 35s
drill-backup: dgraph
	POLGRAPH_DRILL_BACKUP_EVERY=$(BACKUP_EVERY) POLGRAPH_DRILL_BACKUP_LOAD=$(BACKUP_LOAD) $(GO) test -count=1 -timeout 20m -v -run '^TestBackupDrill$$' ./cmd/polgraph

## drill-backup-1m: backup and restore of a synthetic graph of 1M relations, each step timed
## (docs/operations.md); about half an hour on 2 cores
drill-backup-1m: dgraph
	POLGRAPH_DRILL_BACKUP_RELATIONS=1m $(GO) test -count=1 -timeout 150m -v -run '^TestBackupDrillAtScale$$' ./cmd/polgraph-bench

## corpus: read the BBC politics development corpus (CORPUS=folder) into an empty graph with `polgraph ingest`,
## approve the surest proposals by script (MIN_CONFIDENCE, default 0.75), and serve the explorer on
## http://127.0.0.1:8082/ until Ctrl-C; data in .data/corpus
corpus: dgraph build
	./deploy/corpus.sh

## check: the fast lane, without root, Dgraph or a browser: gofmt, go vet, staticcheck (staticcheck.conf),
## buf lint on the protos (api/buf.yaml), the tests that need no Dgraph (go test -short), and the generated
## files checked against their sources: the Go code and descriptor set (TestGeneratedFilesAreFresh), the
## explorer's web/src/gen and its bundle web/dist, made again in a temporary folder and compared; prints
## its time
check: lint-tools web/node_modules
	@start=$$(date +%s); \
	unformatted=$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi; \
	$(GO) vet ./... && \
	"$$($(GO) env GOPATH)/bin/staticcheck" ./... && \
	(cd api && "$$($(GO) env GOPATH)/bin/buf" lint) && \
	$(GO) test -short -count=1 ./... && \
	tmp=$$(mktemp -d) && \
	(cd web && "$$($(GO) env GOPATH)/bin/buf" generate ../api --template buf.gen.yaml -o $$tmp) && \
	{ diff -r $$tmp/src/gen web/src/gen || { echo "web/src/gen is stale: run make web-proto"; exit 1; }; } && \
	(cd web && npx tsc -p . && POLGRAPH_WEB_OUT=$$tmp/dist node build.mjs) && \
	{ diff -r -q $$tmp/dist web/dist || { echo "web/dist is stale: run make web"; exit 1; }; } && \
	rm -rf $$tmp && \
	echo "make check passed in $$(( $$(date +%s) - start ))s"

## lint-tools: staticcheck and buf, pinned in deploy/lint, built once and cached by version
lint-tools:
	./deploy/install-tools.sh staticcheck buf

## test: unit tests, and integration tests against real Dgraph instances the tests start themselves, the
## explorer's in headless Chromium among them (needs /usr/bin/chromium and web/node_modules: `make web-deps`),
## the deployment's offline checks (deploy-check), and the packages that run work concurrently again under
## the race detector: the engine (searches reading the in-memory graph while it syncs), the dataset reader,
## the store (its alpha pool, leases and caches, against real Dgraph), the snapshot file and the gRPC layer
## (about 3.5 minutes more)
test: dgraph tools browser networkx postgres web/node_modules deploy-check
	@start=$$(date +%s); \
	$(GO) vet ./... && \
	POLGRAPH_REQUIRE_TOOLS=1 POLGRAPH_REQUIRE_BROWSER=1 $(GO) test -count=1 -timeout 30m ./... && \
	$(GO) test -count=1 -race ./graph ./graph/walk ./graph/memgraph ./graph/service ./graph/dataset ./graph/dgraph ./internal/snapfile ./graph/rpc ./internal/netcap && \
	$(MAKE) fuzz FUZZTIME=$(FUZZTIME) && \
	echo "make test passed in $$(( $$(date +%s) - start ))s (what it installed and built before not counted)"

## fuzz: run every fuzz target for FUZZTIME each (10,000 inputs in `make test`; longer by hand, e.g.
## FUZZTIME=10m), starting from the seed corpora committed in testdata/fuzz; a failure writes the input that
## found it there. The default is a count, not a duration: Go 1.26's fuzzing coordinator can fail a target with
## "context deadline exceeded" when a duration ends under load (golang/go#75804), without any failing input.
FUZZTIME ?= 10000x
FUZZ_TARGETS := ./graph/dataset:FuzzRead ./graph:FuzzParseFuzzyDate ./graph:FuzzEntityName ./graph/rpc:FuzzRequests ./graph/rpc:FuzzWriteRequests \
	./graph/ftm:FuzzRead ./graph/popolo:FuzzImport ./graph/dgraph/jsonscan:FuzzScanner
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		echo "fuzz $${t#*:} in $${t%%:*} for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$${t#*:}\$$" -fuzztime $(FUZZTIME) "$${t%%:*}" || exit 1; \
	done

## build: the polgraph binary, in bin/
build:
	$(GO) build -o bin/polgraph ./cmd/polgraph

## image: polgraph's container image, built without a container engine (crane, pinned and built from the Go
## module proxy once), as an OCI image tarball that docker and podman load: bin/polgraph-image.tar
image:
	./deploy/build-image.sh

## deploy-check: build the image, then check it, deploy/Dockerfile, deploy/compose.yaml, deploy/k8s (and the
## values for Dgraph's chart) and deploy/grafana offline, with deploy/check, a module of its own; the image's
## binaries also answer the healthchecks against a local Dgraph (docs/deploy.md)
deploy-check: image dgraph
	cd deploy/check && $(GO) vet ./... && POLGRAPH_REQUIRE_DGRAPH=1 $(GO) test -count=1 ./...

## dgraph: the Dgraph server, built once from the Go module proxy and cached by version
dgraph:
	./deploy/build-dgraph.sh

## tools: grpcurl, for the README's examples, into $(shell $(GO) env GOPATH)/bin
tools:
	./deploy/install-tools.sh grpcurl

## proto: regenerate api/ from the .proto files (needs protoc; see deploy/install-tools.sh)
proto:
	cd api && protoc -I . --go_out=paths=source_relative:. --go-grpc_out=paths=source_relative:. \
		--include_source_info --include_imports --descriptor_set_out=polgraph/v1/descriptor.binpb polgraph/v1/*.proto

## networkx: Debian's python3-networkx, which the export tests read GraphML and GEXF back with (installed
## when no Python has it; needs root)
networkx:
	./deploy/install-networkx.sh

## postgres: Debian's PostgreSQL server programs, for the benchmark's PostgreSQL peer and its test (installed
## when missing; needs root)
postgres:
	./deploy/install-postgres.sh

## browser: Debian's Chromium, for the explorer's browser tests (installed when missing; needs root)
browser:
	./deploy/install-chromium.sh

web/node_modules: web/package-lock.json
	cd web && npm ci
	touch web/node_modules

## bench: the full benchmark (10k, 100k and 1M relations; polgraph beside raw Dgraph and an in-memory
## floor; 1, 8 and 64 clients), written to BENCHMARKS.md, docs/bench.svg and, every row of the query
## tables, docs/bench/queries-<size>.tsv. Not part of `make test`.
bench: dgraph postgres
	$(GO) run ./cmd/polgraph-bench --sizes 10k,100k,1m --duration 2s --concurrency 1,8,64 --load-budget 30s --out BENCHMARKS.md --svg docs/bench.svg

## bench-load: the loads alone at 1M relations (polgraph load and dgraph live, each into an empty Dgraph,
## LOAD_BUDGET each, default 25m: a whole 1M load has taken polgraph 14 to 21 minutes here), without the
## queries, written to docs/bench-load.md
LOAD_BUDGET ?= 25m
bench-load: dgraph
	$(GO) run ./cmd/polgraph-bench --sizes 1m --load-only --load-budget $(LOAD_BUDGET) --out docs/bench-load.md --svg docs/bench-load.svg

## bench-resolve: how well imports tell one entity from two, on copies of the shipped Popolo files with
## their ids stripped and their names perturbed (precision, recall, F1), and how the article reader links
## the annotated BBC articles' mentions; written to docs/bench-resolution.md; no Dgraph, seconds
bench-resolve:
	POLGRAPH_RESOLUTION_OUT=$(CURDIR)/docs/bench-resolution.md $(GO) test -count=1 -run '^TestResolutionBenchmark$$' ./graph/popolo

## bench-history: what a known_on read costs at 10k and 100k changes of history, written to
## docs/bench-history.md (a few minutes; empties the test Dgraph it starts)
bench-history: dgraph
	POLGRAPH_HISTORY_BENCH=$(CURDIR)/docs/bench-history.md $(GO) test -count=1 -timeout 30m -run '^TestHistoryBenchmark$$' ./graph/history

## bench-quick: the same at 10k relations only (about 3 minutes)
bench-quick: dgraph postgres
	$(GO) run ./cmd/polgraph-bench --sizes 10k --duration 2s --out BENCHMARKS.md --svg docs/bench.svg

## web-deps: the explorer's npm packages, as package-lock.json pins them, into web/node_modules
web-deps:
	cd web && npm ci

## web: rebuild the explorer's bundle in web/dist (committed, embedded in the binary) from web/src
web: web-deps
	cd web && npm run build

## web-proto: regenerate web/src/gen from the .proto files (buf with protoc-gen-es from web/node_modules,
## web/buf.gen.yaml), then build the explorer
web-proto: lint-tools
	[ -x web/node_modules/.bin/protoc-gen-es ] || $(MAKE) web-deps
	rm -rf web/src/gen
	cd web && "$$($(GO) env GOPATH)/bin/buf" generate ../api --template buf.gen.yaml
	$(MAKE) web

## bench-explorer: the explorer's frame time at 200 and 1,000 entities, zooming and panning, in headless
## Chromium; written to docs/bench/explorer-frames.md. Not part of `make test`.
bench-explorer: dgraph web/node_modules
	POLGRAPH_BENCH_FRAMES=1 POLGRAPH_REQUIRE_BROWSER=1 $(GO) test -count=1 -run '^TestExplorerFrameTime$$' ./cmd/polgraph

## web-test: only the explorer's tests, in headless Chromium (screenshots in test-output/explorer/)
web-test: dgraph
	POLGRAPH_REQUIRE_BROWSER=1 $(GO) test -count=1 -run 'TestExplorer|TestDatabaseDown|TestReviewInBrowser|TestUnits|TestAssets' ./cmd/polgraph ./web

## web-screenshot: the browser tests, also writing the README's screenshots, docs/explorer.png and docs/review.png
web-screenshot: dgraph
	POLGRAPH_REQUIRE_BROWSER=1 POLGRAPH_UPDATE_SCREENSHOT=1 $(GO) test -count=1 -run 'TestExplorerInBrowser|TestReviewInBrowser' ./cmd/polgraph

clean:
	rm -rf bin .data test-output
