package dgraphlocal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRedactor(t *testing.T) {
	const token = "s3cr3t-token-value"
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"a secret in one write", []string{"a AuthToken:" + token + " b\n"}, "a AuthToken:[REDACTED] b\n"},
		{"a secret split across writes", []string{"a AuthToken:s3cr3t", "-token-value b\nnext"}, "a AuthToken:[REDACTED] b\nnext"},
		{"twice on a line, and nothing else touched", []string{token + " " + token + " other\n"}, "[REDACTED] [REDACTED] other\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "alpha.log")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			r := newRedactor(f, []string{token, ""})
			for _, w := range tt.writes {
				if n, err := r.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write: %d, %v", n, err)
				}
			}
			r.Close()
			if got, _ := os.ReadFile(path); string(got) != tt.want {
				t.Errorf("log %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("a log written before redaction is redacted in place", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "alpha.log")
		os.WriteFile(path, []byte(strings.Repeat("line\n", 3)+"worker.Config: {AuthToken:"+token+"}\n"), 0o600)
		if err := redactFile(path, []string{token}); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); strings.Contains(string(got), token) || !strings.Contains(string(got), "AuthToken:[REDACTED]") {
			t.Errorf("log after redaction: %q", got)
		}
	})
}
