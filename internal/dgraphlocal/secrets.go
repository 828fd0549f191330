package dgraphlocal

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ServiceUser is the Dgraph user polgraph itself logs in as: it may read, write and alter polgraph's
// predicates (schema.Predicates) and nothing else; it cannot drop the database or touch ACL data.
const ServiceUser = "polgraph"

// serviceGroup is the ACL group holding ServiceUser's rules (Dgraph keeps users and groups in one name
// space, so it cannot be called polgraph too).
const serviceGroup = "polgraph-service"

// Secrets are the credentials of a local Dgraph, generated at its first start and kept in DataDir/secrets,
// a folder only the user can read (0700, files 0600):
//
//	hmac-secret        the key Dgraph signs its ACL tokens with (--acl secret-file)
//	auth-token         Dgraph's admin token (--security token): every login, alter and /admin call needs it
//	groot-password     the password of groot, Dgraph's superuser (guardians group)
//	polgraph-password  the password of the polgraph user, which the service logs in as
type Secrets struct {
	Dir             string
	AuthToken       string
	GrootPassword   string
	ServicePassword string
}

// HMACFile is the path of the key Dgraph signs its tokens with.
func (s Secrets) HMACFile() string { return filepath.Join(s.Dir, "hmac-secret") }

// SecretsDir is where a local Dgraph keeps its credentials, under its data folder.
func SecretsDir(dataDir string) string { return filepath.Join(dataDir, "secrets") }

var secretFiles = []string{"hmac-secret", "auth-token", "groot-password", "polgraph-password"}

// EnsureSecrets reads the secrets under dataDir, generating those that are missing. It makes the folder
// and its files readable by the user only, whatever they were.
func EnsureSecrets(dataDir string) (Secrets, error) {
	dir := SecretsDir(dataDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Secrets{}, err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return Secrets{}, err
	}
	for _, name := range secretFiles {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			if err := os.WriteFile(p, []byte(randomSecret()+"\n"), 0o600); err != nil {
				return Secrets{}, err
			}
		} else if err != nil {
			return Secrets{}, err
		}
		if err := os.Chmod(p, 0o600); err != nil {
			return Secrets{}, err
		}
	}
	return ReadSecrets(dataDir)
}

// ReadSecrets reads the secrets of the local Dgraph whose data is in dataDir, for a client such as
// `polgraph load` that talks to it. It fails when they are missing or readable by others.
func ReadSecrets(dataDir string) (Secrets, error) {
	dir := SecretsDir(dataDir)
	s := Secrets{Dir: dir}
	for _, f := range []struct {
		name string
		to   *string
	}{{"auth-token", &s.AuthToken}, {"groot-password", &s.GrootPassword}, {"polgraph-password", &s.ServicePassword}} {
		v, err := ReadSecretFile(filepath.Join(dir, f.name))
		if err != nil {
			return Secrets{}, err
		}
		*f.to = v
	}
	return s, nil
}

// ReadSecretFile reads a password or token from a file (its first line, trimmed), refusing a file that
// others than its owner can read or write.
func ReadSecretFile(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if info.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s is readable or writable by others (mode %v): make it readable by its owner only (chmod 600)", path, info.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line = strings.TrimSpace(line)
	if line == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return line, nil
}

// randomSecret is 32 random bytes, hex-encoded (Dgraph wants an HMAC key of at least 32 bytes).
func randomSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}
