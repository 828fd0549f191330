package main

import (
	"context"
	"fmt"
	"io"
)

// importCmd loads data in formats other than polgraph's own.
func importCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fmt.Fprintln(stderr, "usage: polgraph import ocd-divisions FILE")
	return errUsage
}
