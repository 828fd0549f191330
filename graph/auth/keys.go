package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/polgraph/polgraph/graph"
)

// KeyPrefix starts every API key, so that a key is recognisable in a config file or a leaked log (and
// secret scanners can be taught it).
const KeyPrefix = "pgk_"

// keySecretBytes is the randomness of a key: 256 bits, from crypto/rand.
const keySecretBytes = 32

// keyLen is the length of a key: the prefix and 32 bytes in unpadded base64url.
var keyLen = len(KeyPrefix) + base64.RawURLEncoding.EncodedLen(keySecretBytes)

// KeyID is a key's resource name, keys/<12 hex digits>. It is not secret: it names the key in lists,
// logs, revocations and the audit trail.
type KeyID string

var keyIDPattern = regexp.MustCompile(`^keys/[0-9a-f]{12}$`)

// Valid reports whether id has the form keys/<12 hex digits>.
func (id KeyID) Valid() bool { return keyIDPattern.MatchString(string(id)) }

// Key is an API key as polgraph stores it: never the key itself, only its hash.
type Key struct {
	ID      KeyID
	Name    string // unique among keys not revoked
	Role    Role
	Hash    string // SHA-256 of the key, in hex (HashKey)
	Created time.Time
	Revoked time.Time // zero while the key is valid
}

// MaxKeyName bounds a key's name.
const MaxKeyName = 64

var keyNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]*$`)

// CheckKeyName returns an Invalid error unless name can name a key: 1 to 64 letters, digits, and . _ @ -
// (not first). A name cannot look like a key id, so `polgraph keys revoke` can take either.
func CheckKeyName(name string) error {
	var v graph.Violations
	switch {
	case name == "":
		v.Add("name", "a key needs a name (say who or what uses it)")
	case len(name) > MaxKeyName:
		v.Add("name", "%d bytes; at most %d", len(name), MaxKeyName)
	case !keyNamePattern.MatchString(name):
		v.Add("name", "%q: use letters, digits, and . _ @ - (not first)", name)
	}
	return v.Err("auth.CheckKeyName", "invalid key name")
}

// NewKey makes a key: KeyPrefix and 32 random bytes in base64url, with an id of its own. The key is to
// be shown once and forgotten; only k.Hash is stored.
func NewKey(name string, role Role, now time.Time) (secret string, k Key, err error) {
	if err := CheckKeyName(name); err != nil {
		return "", Key{}, err
	}
	if role < Reader || role > Admin {
		return "", Key{}, graph.E("auth.NewKey", graph.Invalid, "a key's role is reader, editor or admin, not %s", role)
	}
	b := make([]byte, keySecretBytes+6)
	if _, err := rand.Read(b); err != nil {
		return "", Key{}, &graph.Error{Op: "auth.NewKey", Kind: graph.Internal, Message: "no randomness for a key", Err: err}
	}
	secret = KeyPrefix + base64.RawURLEncoding.EncodeToString(b[:keySecretBytes])
	k = Key{ID: KeyID("keys/" + hex.EncodeToString(b[keySecretBytes:])), Name: name, Role: role,
		Hash: HashKey(secret), Created: now.UTC().Truncate(time.Millisecond)}
	return secret, k, nil
}

// WellFormed reports whether s has the form of a key (KeyPrefix and 43 base64url characters), so that
// text that cannot be a key is refused without asking the database.
func WellFormed(s string) bool {
	if len(s) != keyLen || !strings.HasPrefix(s, KeyPrefix) {
		return false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s[len(KeyPrefix):])
	return err == nil && len(b) == keySecretBytes
}

// HashKey is what is stored of a key: its SHA-256, in hex. A key holds 256 random bits, so a fast hash
// is enough: there is nothing to guess (passwords, unlike keys, would need a slow one).
func HashKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// SameHash compares two hashes in constant time.
func SameHash(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// KeyStore keeps API keys, shared by every polgraph that uses the same database.
type KeyStore interface {
	// CreateKey stores a new key. It returns Invalid when a key not revoked has the same name, and
	// Unavailable, DeadlineExceeded or Internal errors.
	CreateKey(ctx context.Context, k Key) error
	// KeyByHash returns the key with this hash, revoked or not. It returns NotFound when there is none,
	// and Unavailable, DeadlineExceeded or Internal errors.
	KeyByHash(ctx context.Context, hash string) (Key, error)
	// ListKeys returns every key, revoked ones too, oldest first, without their hashes. It returns
	// Unavailable, DeadlineExceeded or Internal errors.
	ListKeys(ctx context.Context) ([]Key, error)
	// RevokeKey revokes, at the time given, the key with this id (keys/…) or the key not yet revoked with
	// this name, and returns it; a key already revoked keeps its first revocation time. It returns NotFound
	// when no key matches, and Unavailable, DeadlineExceeded or Internal errors.
	RevokeKey(ctx context.Context, idOrName string, at time.Time) (Key, error)
}

// DefaultKeyCacheTime is how long a key looked up is trusted without asking the database again: the
// longest a revoked key keeps working on a polgraph that saw it just before.
const DefaultKeyCacheTime = 5 * time.Second

// maxCachedKeys bounds the cache, which also remembers keys that were not found: past it, it is emptied.
const maxCachedKeys = 10_000

// Authenticator checks API keys against a KeyStore, remembering each answer (a key, or none) for a few
// seconds, so that a busy client costs one lookup per key every few seconds and a revocation reaches
// every polgraph within that time.
type Authenticator struct {
	keys     KeyStore
	cacheFor time.Duration
	now      func() time.Time

	mu    sync.Mutex
	cache map[string]cachedKey // by hash
	// valid are the hashes of the keys found valid lately, and when: they pass the budget an address
	// draws from when it presents keys that are not (Known), so that a flood of made-up keys from one
	// address (a proxy, a NAT) cannot lock out the valid keys used behind it.
	valid map[string]time.Time
}

// knownFor is how long a key found valid passes the bad-key budget without waiting; maxKnownKeys bounds
// how many are remembered (past it, the oldest half is forgotten).
const (
	knownFor     = 24 * time.Hour
	maxKnownKeys = 10_000
)

type cachedKey struct {
	key     Key
	found   bool
	expires time.Time
}

// NewAuthenticator returns an Authenticator on keys (nil: no key is valid) that trusts a lookup for
// cacheFor (DefaultKeyCacheTime when 0 or less).
func NewAuthenticator(keys KeyStore, cacheFor time.Duration) *Authenticator {
	if cacheFor <= 0 {
		cacheFor = DefaultKeyCacheTime
	}
	return &Authenticator{keys: keys, cacheFor: cacheFor, now: time.Now, cache: map[string]cachedKey{}, valid: map[string]time.Time{}}
}

// Known reports whether this key was found valid (not revoked) in the last day. Its lookups are still
// made, so a revocation takes effect as for any key; they are only not charged to the caller's address.
func (a *Authenticator) Known(secret string) bool {
	if !WellFormed(secret) {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	at, ok := a.valid[HashKey(secret)]
	return ok && a.now().Sub(at) < knownFor
}

// Cached reports whether the answer for this key is in the cache, so a caller can tell a lookup that
// costs nothing from one that asks the database.
func (a *Authenticator) Cached(secret string) bool {
	if !WellFormed(secret) {
		return true // refused without a lookup
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	c, ok := a.cache[HashKey(secret)]
	return ok && a.now().Before(c.expires)
}

// Authenticate returns the principal a key stands for. It returns Unauthenticated errors with the reason
// API_KEY_INVALID (not a key, or no such key) or API_KEY_REVOKED, and the store's Unavailable,
// DeadlineExceeded or Internal errors (which are not remembered). The key itself is never in an error.
func (a *Authenticator) Authenticate(ctx context.Context, secret string) (Principal, error) {
	invalid := &graph.Error{Op: "auth.Authenticate", Kind: graph.Unauthenticated, Reason: "API_KEY_INVALID",
		Message: "the API key is not valid (polgraph keys look like " + KeyPrefix + "…; create one with `polgraph keys create`)"}
	if !WellFormed(secret) || a.keys == nil {
		return Principal{}, invalid
	}
	hash := HashKey(secret)
	now := a.now()
	a.mu.Lock()
	c, ok := a.cache[hash]
	a.mu.Unlock()
	if !ok || !now.Before(c.expires) {
		k, err := a.keys.KeyByHash(ctx, hash)
		switch {
		case err == nil && SameHash(k.Hash, hash):
			c = cachedKey{key: k, found: true}
		case err == nil || graph.KindOf(err) == graph.NotFound:
			c = cachedKey{}
		default:
			// Not an answer (the database is down, starting, or behind): nothing is remembered, and the
			// caller is told to try again, never that the key is invalid.
			return Principal{}, lookupFailed(err)
		}
		c.expires = now.Add(a.cacheFor)
		a.remember(hash, c, now)
	}
	switch {
	case !c.found:
		return Principal{}, invalid
	case !c.key.Revoked.IsZero():
		return Principal{}, &graph.Error{Op: "auth.Authenticate", Kind: graph.Unauthenticated, Reason: "API_KEY_REVOKED",
			Message: "the API key " + string(c.key.ID) + " (" + c.key.Name + ") was revoked at " + c.key.Revoked.UTC().Format(time.RFC3339)}
	}
	return Principal{Kind: APIKey, Name: c.key.Name, KeyID: c.key.ID, Role: c.key.Role}, nil
}

// lookupFailed is the error of a lookup the database could not answer: Unavailable ones carry a retry
// delay.
func lookupFailed(err error) error {
	var ge *graph.Error
	if errors.As(err, &ge) && ge.Kind == graph.Unavailable && ge.RetryAfter == 0 {
		e := *ge
		e.RetryAfter = time.Second
		return &e
	}
	return err
}

func (a *Authenticator) remember(hash string, c cachedKey, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if c.found && c.key.Revoked.IsZero() {
		if len(a.valid) >= maxKnownKeys {
			a.forgetOldestKnown()
		}
		a.valid[hash] = now
	} else {
		delete(a.valid, hash)
	}
	if len(a.cache) >= maxCachedKeys {
		for h, old := range a.cache {
			if !now.Before(old.expires) {
				delete(a.cache, h)
			}
		}
		if len(a.cache) >= maxCachedKeys {
			clear(a.cache)
		}
	}
	a.cache[hash] = c
}

// forgetOldestKnown forgets the older half of the keys known valid.
func (a *Authenticator) forgetOldestKnown() {
	times := make([]time.Time, 0, len(a.valid))
	for _, t := range a.valid {
		times = append(times, t)
	}
	slices.SortFunc(times, time.Time.Compare)
	cut := times[len(times)/2]
	for h, t := range a.valid {
		if t.Before(cut) {
			delete(a.valid, h)
		}
	}
}
