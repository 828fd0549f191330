// Package data embeds polgraph's default dataset, the Tower Hamlets graph, so that `polgraph run` loads
// it without any file beside the binary.
package data

import (
	"bytes"
	_ "embed"

	"github.com/polgraph/polgraph/graph/dataset"
)

//go:embed tower-hamlets/tower-hamlets.jsonl
var towerHamlets []byte

// DefaultFileName is the name problems in the default dataset are reported under.
const DefaultFileName = "data/tower-hamlets/tower-hamlets.jsonl"

// Default returns the default dataset as a file to read.
func Default() dataset.File {
	return dataset.File{Name: DefaultFileName, R: bytes.NewReader(towerHamlets)}
}
