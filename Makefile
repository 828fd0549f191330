# polgraph's front door: `make run` and `make test`.
SHELL := /bin/bash
GO ?= go

.PHONY: run test build dgraph tools proto lint clean

## run: build what is missing, start a local Dgraph, load the default graph, serve gRPC on 127.0.0.1:50051
run: dgraph build
	./bin/polgraph run

## test: unit tests, and integration tests against real Dgraph instances the tests start themselves
test: dgraph tools
	$(GO) vet ./...
	POLGRAPH_REQUIRE_TOOLS=1 $(GO) test -count=1 -timeout 30m ./...

## build: the polgraph binary, in bin/
build:
	$(GO) build -o bin/polgraph ./cmd/polgraph

## dgraph: the Dgraph server, built once from the Go module proxy and cached by version
dgraph:
	./deploy/build-dgraph.sh

## tools: grpcurl, for the README's examples, into $(shell $(GO) env GOPATH)/bin
tools:
	./deploy/install-tools.sh

## proto: regenerate api/ from the .proto files (needs protoc; see deploy/install-tools.sh)
proto:
	cd api && protoc -I . --go_out=paths=source_relative:. --go-grpc_out=paths=source_relative:. \
		--include_source_info --include_imports --descriptor_set_out=polgraph/v1/descriptor.binpb polgraph/v1/*.proto

clean:
	rm -rf bin .data
