package snapfile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"reflect"
	"runtime/debug"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph"
)

// The file is a log. It opens with magic, then holds records, each
//
//	kind (1 byte) | payload length (uvarint) | payload | CRC-32C of all three (4 bytes, little-endian)
//
// The first record is a header (kindHeader: the graph's identity and what wrote the file); then come the
// changes of a fill (kindChanges, one gob stream each: a graph.Changed), a version mark (kindVersion: the
// changes since the mark before bring the graph from version since to version), and the changes and mark
// of every catch-up after it. A file written with N-Quads (WriteBulk) and read back has an adoption
// (kindAdopt) right after its fill's mark. Only what a mark closes is read back: a crash while appending
// leaves a tail that the next reader ignores and cuts off.
const magic = "polgraph graph snapshot\n"

// formatVersion is raised whenever what a record means changes without graph.Changed's Go type changing
// (the type's shape is in the header too).
const formatVersion = 1

const (
	kindHeader  byte = 'H'
	kindChanges byte = 'C'
	kindVersion byte = 'V'
	// kindAdopt follows the mark of a file written with N-Quads (header.Bulk) once a fill read it back:
	// the id of the graph it read it into, whose file it then is.
	kindAdopt byte = 'A'
)

// adoptLen is the size of a kindAdopt record whose payload is p.
func adoptLen(p []byte) int64 {
	var b [binary.MaxVarintLen64]byte
	return int64(1 + binary.PutUvarint(b[:], uint64(len(p))) + len(p) + 4)
}

// maxPayload bounds a record (a page of 20,000 relations with their claims is a few MB).
const maxPayload = 1 << 30

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// header is what a file must match to be read back.
type header struct {
	Format int
	// Shape describes graph.Changed's Go type (typeShape): a file written by code whose records had
	// another shape would decode with fields missing.
	Shape string
	// Build is the revision of the code that wrote the file, when the binary knows it: the feed it tees
	// could give other records for the same graph after a change of code.
	Build   string
	GraphID string
	Written time.Time
	// Bulk is set, and GraphID is not, in a file written with N-Quads for dgraph bulk (WriteBulk): the
	// load's id, which the graph's meta node carries once they are loaded, and Counts how many nodes of
	// each type they hold. Read back, it takes the graph's id.
	Bulk   string
	Counts graph.GraphCounts
}

// fromBulk says whether the file was written with N-Quads and is not yet read back by a graph's fill.
func (h header) fromBulk() bool { return h.GraphID == "" && h.Bulk != "" }

func (h header) matches(want header) error {
	switch {
	case h.Format != want.Format:
		return fmt.Errorf("format %d, not %d", h.Format, want.Format)
	case h.Shape != want.Shape:
		return errors.New("written by code whose records have another shape")
	case h.Build != want.Build:
		return fmt.Errorf("written by build %q, not %q", h.Build, want.Build)
	case h.fromBulk():
		return nil // checked against what the graph holds (Feed.survey)
	case h.GraphID != want.GraphID:
		return fmt.Errorf("of graph %q, not %q", h.GraphID, want.GraphID)
	}
	return nil
}

// thisBuild is the VCS revision the binary was built from ("" when it was not stamped, as in tests).
var thisBuild = func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "+modified"
	}
	return rev
}()

// changedShape is graph.Changed's shape, computed once.
var changedShape = func() string {
	s, err := typeShape(reflect.TypeFor[graph.Changed]())
	if err != nil {
		panic(err) // TestChangedShape fails first
	}
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}()

// typeShape writes out a type's fields, recursively. It fails on a field gob would not keep (unexported)
// and on interfaces, which the file cannot hold without registering their types.
func typeShape(t reflect.Type) (string, error) {
	var b strings.Builder
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type) error
	walk = func(t reflect.Type) error {
		if t == reflect.TypeFor[time.Time]() {
			b.WriteString("time")
			return nil
		}
		b.WriteString(t.Kind().String())
		switch t.Kind() {
		case reflect.Struct:
			if seen[t] {
				b.WriteString("(" + t.String() + ")")
				return nil
			}
			seen[t] = true
			b.WriteString("{")
			for i := range t.NumField() {
				f := t.Field(i)
				if !f.IsExported() {
					return fmt.Errorf("%s.%s is unexported: the snapshot file would lose it", t, f.Name)
				}
				b.WriteString(f.Name + " ")
				if err := walk(f.Type); err != nil {
					return err
				}
				b.WriteString(";")
			}
			b.WriteString("}")
		case reflect.Slice, reflect.Pointer:
			b.WriteString("[")
			if err := walk(t.Elem()); err != nil {
				return err
			}
			b.WriteString("]")
		case reflect.Array:
			fmt.Fprintf(&b, "[%d]", t.Len())
			return walk(t.Elem())
		case reflect.Map:
			b.WriteString("[")
			if err := walk(t.Key()); err != nil {
				return err
			}
			b.WriteString("]")
			return walk(t.Elem())
		case reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer, reflect.Uintptr,
			reflect.Complex64, reflect.Complex128:
			return fmt.Errorf("%s cannot go into the snapshot file", t)
		}
		return nil
	}
	err := walk(t)
	return b.String(), err
}

// recordWriter appends records to w.
type recordWriter struct {
	w       *bufio.Writer
	buf     bytes.Buffer
	written int64 // bytes written through w since it was made
}

func (rw *recordWriter) record(kind byte, payload []byte) error {
	var head [1 + binary.MaxVarintLen64]byte
	head[0] = kind
	n := 1 + binary.PutUvarint(head[1:], uint64(len(payload)))
	crc := crc32.Update(crc32.Update(0, castagnoli, head[:n]), castagnoli, payload)
	var tail [4]byte
	binary.LittleEndian.PutUint32(tail[:], crc)
	for _, p := range [][]byte{head[:n], payload, tail[:]} {
		if _, err := rw.w.Write(p); err != nil {
			return err
		}
	}
	rw.written += int64(n + len(payload) + 4)
	return nil
}

func (rw *recordWriter) header(h header) error { return rw.gob(kindHeader, h) }

func (rw *recordWriter) changes(c graph.Changed) error { return rw.gob(kindChanges, c) }

// gob writes v as a record of its own gob stream.
func (rw *recordWriter) gob(kind byte, v any) error {
	rw.buf.Reset()
	if err := gob.NewEncoder(&rw.buf).Encode(v); err != nil {
		return err
	}
	return rw.record(kind, rw.buf.Bytes())
}

func (rw *recordWriter) version(since, version int64) error {
	var p [2 * binary.MaxVarintLen64]byte
	n := binary.PutVarint(p[:], since)
	n += binary.PutVarint(p[n:], version)
	return rw.record(kindVersion, p[:n])
}

// recordReader reads records from r, checking each.
type recordReader struct {
	r   *bufio.Reader
	off int64 // where the next record starts
}

// errTorn is a record cut short or damaged: the file's end, for a reader.
var errTorn = errors.New("torn record")

// next returns the next record; io.EOF at a clean end, errTorn at a damaged or cut one. The payload is
// read into reuse when it fits (a reader that keeps no payload passes the last one back), else into a
// new slice.
func (rr *recordReader) next(reuse []byte) (kind byte, payload []byte, err error) {
	kind, err = rr.r.ReadByte()
	if err != nil {
		return 0, nil, err // io.EOF: nothing more
	}
	n, err := binary.ReadUvarint(rr.r)
	if err != nil || n > maxPayload {
		return 0, nil, errTorn
	}
	if uint64(cap(reuse)) >= n {
		payload = reuse[:n]
	} else {
		payload = make([]byte, n)
	}
	var tail [4]byte
	if _, err := io.ReadFull(rr.r, payload); err != nil {
		return 0, nil, errTorn
	}
	if _, err := io.ReadFull(rr.r, tail[:]); err != nil {
		return 0, nil, errTorn
	}
	var head [1 + binary.MaxVarintLen64]byte
	head[0] = kind
	hn := 1 + binary.PutUvarint(head[1:], n)
	if crc32.Update(crc32.Update(0, castagnoli, head[:hn]), castagnoli, payload) != binary.LittleEndian.Uint32(tail[:]) {
		return 0, nil, errTorn
	}
	rr.off += int64(hn) + int64(n) + 4
	return kind, payload, nil
}

func decodeHeader(p []byte) (header, error) {
	var h header
	err := gob.NewDecoder(bytes.NewReader(p)).Decode(&h)
	return h, err
}

func decodeChanges(p []byte) (graph.Changed, error) {
	var c graph.Changed
	err := gob.NewDecoder(bytes.NewReader(p)).Decode(&c)
	return c, err
}

func decodeVersion(p []byte) (since, version int64, err error) {
	r := bytes.NewReader(p)
	if since, err = binary.ReadVarint(r); err == nil {
		version, err = binary.ReadVarint(r)
	}
	if err == nil && r.Len() != 0 {
		err = errors.New("trailing bytes")
	}
	return since, version, err
}
