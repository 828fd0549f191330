package dgraphlocal

import (
	"bytes"
	"os"
	"sync"
)

// redacted stands in, in Dgraph's logs, for every secret polgraph gave it: the alpha prints its whole
// configuration at start (worker.Config, with the admin token) and its log is where polgraph sends
// operators.
var redacted = []byte("[REDACTED]")

// redactor writes Dgraph's output to a log file, line by line, with every secret replaced by redacted.
// A line is written once whole, so that a secret split across two of the process's writes is still
// found; a line longer than maxHeld is written as it is held, which only a secret straddling that point
// could escape (Dgraph's configuration lines are far shorter).
type redactor struct {
	mu      sync.Mutex
	f       *os.File
	secrets [][]byte
	held    []byte
}

const maxHeld = 1 << 20

func newRedactor(f *os.File, secrets []string) *redactor {
	return &redactor{f: f, secrets: secretBytes(secrets)}
}

// secretBytes are the secrets to replace, empty ones left out.
func secretBytes(secrets []string) [][]byte {
	var out [][]byte
	for _, s := range secrets {
		if s != "" {
			out = append(out, []byte(s))
		}
	}
	return out
}

func (r *redactor) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held = append(r.held, p...)
	end := bytes.LastIndexByte(r.held, '\n') + 1
	if end == 0 && len(r.held) >= maxHeld {
		end = len(r.held)
	}
	if end > 0 {
		if _, err := r.f.Write(redact(r.held[:end], r.secrets)); err != nil {
			return 0, err
		}
		r.held = append(r.held[:0], r.held[end:]...)
	}
	return len(p), nil
}

// Close writes what is held and closes the file.
func (r *redactor) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.held) > 0 {
		r.f.Write(redact(r.held, r.secrets))
		r.held = nil
	}
	return r.f.Close()
}

func redact(b []byte, secrets [][]byte) []byte {
	for _, s := range secrets {
		if bytes.Contains(b, s) {
			b = bytes.ReplaceAll(b, s, redacted)
		}
	}
	return b
}

// redactFile replaces, in a log written before polgraph redacted Dgraph's output, every secret, in
// place: a data folder from then must not keep its admin token in clear.
func redactFile(path string, secrets []string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	out := redact(b, secretBytes(secrets))
	if bytes.Equal(out, b) {
		return nil
	}
	tmp := path + ".redacting"
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
