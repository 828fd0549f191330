module github.com/polgraph/polgraph

go 1.26.0

require (
	connectrpc.com/connect v1.19.1
	connectrpc.com/vanguard v0.4.0
	github.com/antzucaro/matchr v0.0.0-20221106193745-7bed6ef61ef9
	github.com/dgraph-io/dgo/v230 v230.0.1
	github.com/google/go-cmp v0.7.0
	github.com/neurosnap/sentences v1.1.2
	golang.org/x/net v0.60.0
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261110000943-09e21b237f2c
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/pkg/errors v0.8.1 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20261110000943-09e21b237f2c // indirect
)
