package backup

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// A key file holds 32 bytes (AES-256), raw or as 64 hex digits: `head -c 32 /dev/urandom > backup.key`.
const keySize = 32

// ReadKey reads an encryption key file, refusing one that others than its owner may read or write, or
// that does not hold a 32-byte key.
func ReadKey(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, invalid("BACKUP_KEY_UNREADABLE", "cannot read the key file: %v", err)
	}
	if info.Mode().Perm()&0o077 != 0 {
		return nil, invalid("BACKUP_KEY_UNSAFE", "the key file %s is readable or writable by others (mode %v): chmod 600 it", path, info.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, invalid("BACKUP_KEY_UNREADABLE", "cannot read the key file: %v", err)
	}
	if len(b) == keySize {
		return b, nil
	}
	if k, err := hex.DecodeString(strings.TrimSpace(string(b))); err == nil && len(k) == keySize {
		return k, nil
	}
	return nil, invalid("BACKUP_KEY_INVALID", "the key file %s holds %d bytes: it must hold 32 bytes, raw or as 64 hex digits (head -c 32 /dev/urandom > %s)", path, len(b), path)
}

// keyID names a key without revealing it, so that a restore given the wrong key says so.
func keyID(key []byte) string {
	if key == nil {
		return ""
	}
	h := sha256.Sum256(append([]byte("polgraph-backup-key-id\x00"), key...))
	return hex.EncodeToString(h[:8])
}

// manifestSum seals a manifest's body: an HMAC-SHA256 under a key derived from the encryption key, so
// that only its holder can change the manifest, or a plain SHA-256 against damage when there is no key.
func manifestSum(key, body []byte) string {
	if key == nil {
		h := sha256.Sum256(body)
		return "sha256:" + hex.EncodeToString(h[:])
	}
	mk := sha256.Sum256(append([]byte("polgraph-backup-manifest\x00"), key...))
	m := hmac.New(sha256.New, mk[:])
	m.Write(body)
	return "hmac-sha256:" + hex.EncodeToString(m.Sum(nil))
}

// The encrypted file format: a magic, 8 random bytes, then the plaintext in chunks of 1 MiB, each sealed
// with AES-256-GCM under the nonce (the 8 bytes, the chunk's index) and, as additional data, the file's
// name and whether the chunk is the last: chunks cannot be reordered, moved to another file, or cut off.
const (
	magic     = "PGBKENC1"
	chunkSize = 1 << 20
)

var errDamaged = errors.New("damaged or encrypted with another key")

func gcm(key []byte) cipher.AEAD {
	b, err := aes.NewCipher(key)
	if err != nil {
		panic(err) // keys are checked by ReadKey
	}
	a, err := cipher.NewGCM(b)
	if err != nil {
		panic(err)
	}
	return a
}

func chunkAD(name string, final bool) []byte {
	ad := []byte("polgraph-backup\x00" + name + "\x00")
	if final {
		return append(ad, 1)
	}
	return append(ad, 0)
}

// encrypt writes r's bytes to w encrypted, name bound to them.
func encrypt(key []byte, name string, r io.Reader, w io.Writer) error {
	a := gcm(key)
	prefix := make([]byte, 8)
	rand.Read(prefix)
	if _, err := w.Write(append([]byte(magic), prefix...)); err != nil {
		return err
	}
	buf := make([]byte, chunkSize+1)
	nonce := make([]byte, 12)
	copy(nonce, prefix)
	// Read one byte ahead, so that the last chunk is known as such when it is sealed.
	n, err := io.ReadFull(r, buf)
	for i := uint32(0); ; i++ {
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return err
		}
		final := n <= chunkSize
		size := min(n, chunkSize)
		binary.BigEndian.PutUint32(nonce[8:], i)
		if _, werr := w.Write(a.Seal(nil, nonce, buf[:size], chunkAD(name, final))); werr != nil {
			return werr
		}
		if final {
			return nil
		}
		// Keep the byte read ahead and fill the rest.
		buf[0] = buf[chunkSize]
		var m int
		m, err = io.ReadFull(r, buf[1:])
		n = m + 1
	}
}

// decrypt writes the plaintext of the encrypted stream r to w, failing on any chunk that does not open.
func decrypt(key []byte, name string, r io.Reader, w io.Writer) error {
	a := gcm(key)
	head := make([]byte, len(magic)+8)
	if _, err := io.ReadFull(r, head); err != nil || string(head[:len(magic)]) != magic {
		return fmt.Errorf("%s is not a polgraph encrypted file", name)
	}
	nonce := make([]byte, 12)
	copy(nonce, head[len(magic):])
	sealed := chunkSize + a.Overhead()
	buf := make([]byte, sealed+1)
	n, err := io.ReadFull(r, buf)
	for i := uint32(0); ; i++ {
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return err
		}
		final := n <= sealed
		size := min(n, sealed)
		binary.BigEndian.PutUint32(nonce[8:], i)
		plain, oerr := a.Open(nil, nonce, buf[:size], chunkAD(name, final))
		if oerr != nil {
			return fmt.Errorf("%s: chunk %d: %w", name, i, errDamaged)
		}
		if _, werr := w.Write(plain); werr != nil {
			return werr
		}
		if final {
			return nil
		}
		buf[0] = buf[sealed]
		var m int
		m, err = io.ReadFull(r, buf[1:])
		n = m + 1
	}
}
