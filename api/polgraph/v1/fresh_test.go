package polgraphv1

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// TestGeneratedFilesAreFresh compiles the .proto files (with a compiler in Go, so no protoc is needed) and
// checks that the generated code and the descriptor set reflection serves were made from them as they are:
// the same files, messages, fields and services, and the same comments. A .proto edited without `make
// proto` fails here.
func TestGeneratedFilesAreFresh(t *testing.T) {
	protos, err := filepath.Glob("*.proto")
	if err != nil || len(protos) == 0 {
		t.Fatalf("no .proto files: %v", err)
	}
	var paths []string
	for _, p := range protos {
		paths = append(paths, "polgraph/v1/"+p)
	}
	compiler := protocompile.Compiler{
		Resolver:       protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{"../.."}}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	compiled, err := compiler.Compile(context.Background(), paths...)
	if err != nil {
		t.Fatalf("compile the .proto files: %v", err)
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(descriptorSet, &set); err != nil {
		t.Fatal(err)
	}
	embedded := map[string]*descriptorpb.FileDescriptorProto{}
	for _, f := range set.GetFile() {
		embedded[f.GetName()] = f
	}
	for _, f := range compiled {
		name := f.Path()
		fromSource := protodesc.ToFileDescriptorProto(f)
		// The generated Go code: what it registered for the file.
		gen, err := protoregistry.GlobalFiles.FindFileByPath(name)
		if err != nil {
			t.Errorf("%s has no generated code: run make proto", name)
			continue
		}
		if !proto.Equal(withoutSourceInfo(fromSource), withoutSourceInfo(protodesc.ToFileDescriptorProto(gen))) {
			t.Errorf("%s: the generated Go code was not made from the .proto as it is: run make proto", name)
		}
		// The descriptor set reflection serves, comments included.
		emb, ok := embedded[name]
		if !ok {
			t.Errorf("%s is not in descriptor.binpb: run make proto", name)
			continue
		}
		if !proto.Equal(withoutSourceInfo(fromSource), withoutSourceInfo(emb)) {
			t.Errorf("%s: descriptor.binpb was not made from the .proto as it is: run make proto", name)
		}
		if got, want := comments(emb), comments(fromSource); !slices.Equal(got, want) {
			t.Errorf("%s: descriptor.binpb holds other comments than the .proto (%d against %d): run make proto", name, len(got), len(want))
		}
	}
	if len(compiled) != len(protos) {
		t.Errorf("compiled %d files of %d", len(compiled), len(protos))
	}
	// Every .proto of the folder is compiled above; a generated file without its .proto is stale.
	generated, _ := filepath.Glob("*.pb.go")
	for _, g := range generated {
		base := strings.TrimSuffix(strings.TrimSuffix(g, ".pb.go"), "_grpc")
		if _, err := os.Stat(base + ".proto"); err != nil {
			t.Errorf("%s has no .proto", g)
		}
	}
}

func withoutSourceInfo(f *descriptorpb.FileDescriptorProto) *descriptorpb.FileDescriptorProto {
	c := proto.Clone(f).(*descriptorpb.FileDescriptorProto)
	c.SourceCodeInfo = nil
	return c
}

// comments lists a file's leading and trailing comments, by the element they document.
func comments(f *descriptorpb.FileDescriptorProto) []string {
	var out []string
	for _, loc := range f.GetSourceCodeInfo().GetLocation() {
		if loc.GetLeadingComments() == "" && loc.GetTrailingComments() == "" {
			continue
		}
		out = append(out, protoreflect.SourcePath(loc.GetPath()).String()+"\x00"+loc.GetLeadingComments()+"\x00"+loc.GetTrailingComments())
	}
	slices.Sort(out)
	return out
}
