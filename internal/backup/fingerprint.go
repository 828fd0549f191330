package backup

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/polgraph/polgraph/internal/dgraphlocal"
)

// fingerprintPrefix names how Fingerprint.Sum is made, so that another way is never compared with it.
const fingerprintPrefix = "rdf-sha256-sum:"

// Fingerprint is what a restored graph is compared by: the lines of Dgraph's export that hold polgraph's
// data (its pg.* predicates, and its nodes' types), each hashed with SHA-256 and the hashes added as
// 256-bit numbers, so the export's order (Dgraph's own, which may vary) does not count, with how many
// lines. Dgraph's export reads its store directly: at 1M relations it is many times faster than a
// query-built dump (docs/operations.md).
type Fingerprint struct {
	Sum   string
	Lines int64
}

// FingerprintOf is the fingerprint of what the Dgraph of admin holds now: it has the cluster export
// everything into a new folder under dir (on the alpha's machine), fingerprints it and deletes it.
func FingerprintOf(ctx context.Context, admin dgraphlocal.Admin, dir string) (Fingerprint, error) {
	tmp, err := os.MkdirTemp(dir, ".export-")
	if err != nil {
		return Fingerprint{}, err
	}
	defer os.RemoveAll(tmp)
	if err := admin.Export(ctx, tmp); err != nil {
		return Fingerprint{}, err
	}
	var files []string
	err = filepath.WalkDir(tmp, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".rdf.gz") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		return Fingerprint{}, err
	}
	if len(files) == 0 {
		return Fingerprint{}, fmt.Errorf("Dgraph's export in %s wrote no RDF file", tmp)
	}
	var acc sum256
	var lines int64
	for _, path := range files {
		s, n, err := fingerprintFile(path)
		if err != nil {
			return Fingerprint{}, fmt.Errorf("read Dgraph's export %s: %w", filepath.Base(path), err)
		}
		acc.add(s.bytes())
		lines += n
	}
	return Fingerprint{Sum: fingerprintPrefix + acc.hex(), Lines: lines}, nil
}

// fingerprintFile sums one gzip file of RDF lines: one goroutine decompresses, the others hash.
func fingerprintFile(path string) (sum256, int64, error) {
	fd, err := os.Open(path)
	if err != nil {
		return sum256{}, 0, err
	}
	defer fd.Close()
	zr, err := gzip.NewReader(bufio.NewReaderSize(fd, 1<<20))
	if err != nil {
		return sum256{}, 0, err
	}
	return fingerprintRDF(zr)
}

// fingerprintRDF sums the RDF lines read from r that hold polgraph's data.
func fingerprintRDF(r io.Reader) (sum256, int64, error) {
	workers := max(runtime.GOMAXPROCS(0)-1, 1)
	blocks := make(chan []byte, 2*workers)
	type part struct {
		s sum256
		n int64
	}
	parts := make(chan part, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p part
			for b := range blocks {
				for len(b) > 0 {
					i := bytes.IndexByte(b, '\n')
					if i < 0 {
						i = len(b)
					}
					if line := b[:i]; ours(line) {
						p.s.add(sha256.Sum256(line))
						p.n++
					}
					b = b[min(i+1, len(b)):]
				}
			}
			parts <- p
		}()
	}
	// Blocks of whole lines: a line's tail goes to the next block.
	var err error
	var carry []byte
	buf := make([]byte, 4<<20)
	for {
		n, rerr := io.ReadFull(r, buf)
		chunk := append(carry, buf[:n]...)
		carry = nil
		if rerr == nil {
			if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
				carry = append([]byte(nil), chunk[i+1:]...)
				chunk = chunk[:i+1]
			} else {
				carry, chunk = chunk, nil
			}
		}
		if len(chunk) > 0 {
			blocks <- chunk
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			err = rerr
			break
		}
	}
	close(blocks)
	wg.Wait()
	close(parts)
	var total sum256
	var lines int64
	for p := range parts {
		total.add(p.s.bytes())
		lines += p.n
	}
	return total, lines, err
}

// ours says whether an RDF line of Dgraph's export ("<0x1> <pg.name> \"…\" <0x0> .") holds polgraph's
// data: a pg.* predicate, or a node's type other than Dgraph's own (dgraph.type.User, …).
func ours(line []byte) bool {
	i := bytes.IndexByte(line, ' ')
	if i < 0 {
		return false
	}
	rest := line[i+1:]
	switch {
	case bytes.HasPrefix(rest, []byte("<pg.")):
		return true
	case bytes.HasPrefix(rest, []byte("<dgraph.type> ")):
		return !bytes.HasPrefix(rest[len("<dgraph.type> "):], []byte(`"dgraph.`))
	}
	return false
}

// sum256 is a 256-bit number, big-endian words, added modulo 2^256.
type sum256 [4]uint64

func (s *sum256) add(h [32]byte) {
	var carry uint64
	for w := 3; w >= 0; w-- {
		s[w], carry = bits.Add64(s[w], binary.BigEndian.Uint64(h[8*w:]), carry)
	}
}

func (s sum256) bytes() [32]byte {
	var b [32]byte
	for w := range 4 {
		binary.BigEndian.PutUint64(b[8*w:], s[w])
	}
	return b
}

func (s sum256) hex() string {
	b := s.bytes()
	return hex.EncodeToString(b[:])
}
