package backup

import (
	"bytes"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
)

func TestEncryptedFilesRoundTrip(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{3}, keySize)
	for _, tc := range []struct {
		name string
		size int
	}{
		{"empty", 0}, {"one byte", 1}, {"a chunk less one", chunkSize - 1}, {"a chunk", chunkSize},
		{"a chunk and one", chunkSize + 1}, {"two chunks and some", 2*chunkSize + 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			plain := make([]byte, tc.size)
			rand.Read(plain)
			var sealed, opened bytes.Buffer
			if err := encrypt(key, "f", bytes.NewReader(plain), &sealed); err != nil {
				t.Fatal(err)
			}
			if err := decrypt(key, "f", bytes.NewReader(sealed.Bytes()), &opened); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(plain, opened.Bytes()) {
				t.Fatalf("decrypted %d bytes, want the %d encrypted", opened.Len(), tc.size)
			}
		})
	}
}

func TestEncryptedFilesRefuseTampering(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{3}, keySize)
	plain := make([]byte, 2*chunkSize+100)
	rand.Read(plain)
	var b bytes.Buffer
	if err := encrypt(key, "f", bytes.NewReader(plain), &b); err != nil {
		t.Fatal(err)
	}
	sealed := b.Bytes()
	head, chunk := len(magic)+8, chunkSize+16
	for _, tc := range []struct {
		name      string
		data      []byte
		key, file string
	}{
		{"cut after a whole chunk", sealed[:head+chunk], "", ""},
		{"cut after two whole chunks", sealed[:head+2*chunk], "", ""},
		{"cut inside the last chunk", sealed[:len(sealed)-1], "", ""},
		{"a byte changed", flipped(sealed, head+chunk+7), "", ""},
		{"the header only", sealed[:head], "", ""},
		{"another file's name", sealed, "", "g"},
		{"another key", sealed, "other", ""},
		{"chunks swapped", append(append(append([]byte{}, sealed[:head]...), sealed[head+chunk:head+2*chunk]...), append(sealed[head:head+chunk:head+chunk], sealed[head+2*chunk:]...)...), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k, name := key, "f"
			if tc.key != "" {
				k = bytes.Repeat([]byte{4}, keySize)
			}
			if tc.file != "" {
				name = tc.file
			}
			if err := decrypt(k, name, bytes.NewReader(tc.data), &bytes.Buffer{}); err == nil {
				t.Fatal("decrypted without an error")
			}
		})
	}
}

func flipped(b []byte, i int) []byte {
	c := append([]byte{}, b...)
	c[i] ^= 1
	return c
}

func TestReadKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, b []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	raw := bytes.Repeat([]byte{9}, 32)
	for _, tc := range []struct {
		name, path, reason string
	}{
		{"raw", write("raw", raw, 0o600), ""},
		{"hex with a newline", write("hex", []byte(strings.Repeat("09", 32)+"\n"), 0o600), ""},
		{"too short", write("short", raw[:16], 0o600), "BACKUP_KEY_INVALID"},
		{"readable by others", write("open", raw, 0o644), "BACKUP_KEY_UNSAFE"},
		{"missing", filepath.Join(dir, "none"), "BACKUP_KEY_UNREADABLE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := ReadKey(tc.path)
			var ge *graph.Error
			switch {
			case tc.reason == "" && (err != nil || !bytes.Equal(k, raw)):
				t.Fatalf("ReadKey = %x, %v; want the key", k, err)
			case tc.reason != "" && (!errors.As(err, &ge) || ge.Reason != tc.reason || ge.Kind != graph.Invalid):
				t.Fatalf("ReadKey: %v, want an invalid error %s", err, tc.reason)
			}
		})
	}
}
