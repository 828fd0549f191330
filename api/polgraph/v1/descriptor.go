package polgraphv1

import (
	_ "embed"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// descriptorSet is the API's file descriptors with their comments (`make proto` writes it), so that server
// reflection shows them: `grpcurl describe` prints every message's and field's documentation.
//
//go:embed descriptor.binpb
var descriptorSet []byte

// DocumentedFiles returns a resolver that finds polgraph's files with their comments first, and every
// other file (health, reflection) in the global registry.
func DocumentedFiles() (Resolver, error) {
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(descriptorSet, &set); err != nil {
		return nil, fmt.Errorf("read the embedded descriptor set: %w", err)
	}
	files, err := protodesc.NewFiles(&set)
	if err != nil {
		return nil, fmt.Errorf("build the embedded descriptor set: %w", err)
	}
	return layered{files, protoregistry.GlobalFiles}, nil
}

// Resolver finds file and message descriptors, as server reflection needs.
type Resolver interface {
	FindFileByPath(string) (protoreflect.FileDescriptor, error)
	FindDescriptorByName(protoreflect.FullName) (protoreflect.Descriptor, error)
}

type layered []Resolver

func (l layered) FindFileByPath(p string) (protoreflect.FileDescriptor, error) {
	for _, r := range l {
		if f, err := r.FindFileByPath(p); err == nil {
			return f, nil
		}
	}
	return nil, protoregistry.NotFound
}

func (l layered) FindDescriptorByName(n protoreflect.FullName) (protoreflect.Descriptor, error) {
	for _, r := range l {
		if d, err := r.FindDescriptorByName(n); err == nil {
			return d, nil
		}
	}
	return nil, protoregistry.NotFound
}
