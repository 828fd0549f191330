package dgraph_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/auth"
)

func TestKeys(t *testing.T) {
	ctx := context.Background()
	before, err := store.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	secret, k, err := auth.NewKey("keys-test-alice", auth.Editor, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Keys().CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	got, err := store.Keys().KeyByHash(ctx, auth.HashKey(secret))
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != k.ID || got.Name != k.Name || got.Role != auth.Editor || got.Hash != k.Hash || !got.Created.Equal(k.Created) || !got.Revoked.IsZero() {
		t.Errorf("KeyByHash = %+v, want %+v", got, k)
	}
	if _, err := store.Keys().KeyByHash(ctx, auth.HashKey(secret+"x")); graph.KindOf(err) != graph.NotFound {
		t.Errorf("an unknown hash: %v, want NotFound", err)
	}

	// A name is unique among keys not revoked.
	_, again, _ := auth.NewKey("keys-test-alice", auth.Reader, now)
	var ge *graph.Error
	if err := store.Keys().CreateKey(ctx, again); !errors.As(err, &ge) || ge.Kind != graph.Invalid || ge.Reason != "KEY_NAME_TAKEN" {
		t.Errorf("a second key named keys-test-alice: %v, want Invalid, KEY_NAME_TAKEN", err)
	}

	// Keys are not resources of the graph: no read finds them, and the graph's counts do not change.
	if _, err := store.GetEntity(ctx, graph.EntityName(k.ID)); graph.KindOf(err) != graph.NotFound {
		t.Errorf("GetEntity(%s): %v, want NotFound", k.ID, err)
	}
	if es, err := store.FindByName(ctx, "keys-test-alice"); err != nil || len(es) != 0 {
		t.Errorf("FindByName found a key: %v %v", es, err)
	}
	if after, err := store.Counts(ctx); err != nil || after != before {
		t.Errorf("counts changed when a key was made: %+v → %+v (%v)", before, after, err)
	}

	list, err := store.Keys().ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range list {
		if l.Hash != "" {
			t.Errorf("ListKeys shows a hash: %+v", l)
		}
		found = found || l.ID == k.ID
	}
	if !found {
		t.Errorf("ListKeys lacks %s: %+v", k.ID, list)
	}

	// Revoked by name, then again (unchanged), then by id (unchanged).
	at := now.Add(time.Second).Truncate(time.Millisecond)
	r, err := store.Keys().RevokeKey(ctx, "keys-test-alice", at)
	if err != nil || r.ID != k.ID || !r.Revoked.Equal(at) || r.Hash != "" {
		t.Fatalf("RevokeKey by name = %+v, %v", r, err)
	}
	for _, ref := range []string{"keys-test-alice", string(k.ID)} {
		r, err := store.Keys().RevokeKey(ctx, ref, at.Add(time.Hour))
		if err != nil || !r.Revoked.Equal(at) {
			t.Errorf("revoking %s again = %+v, %v; want the first revocation time kept", ref, r, err)
		}
	}
	if got, err := store.Keys().KeyByHash(ctx, auth.HashKey(secret)); err != nil || !got.Revoked.Equal(at) {
		t.Errorf("after revocation KeyByHash = %+v, %v", got, err)
	}
	// The name is free again, and revoking by name now finds the new key.
	if err := store.Keys().CreateKey(ctx, again); err != nil {
		t.Fatalf("a new key under a revoked key's name: %v", err)
	}
	if r, err := store.Keys().RevokeKey(ctx, "keys-test-alice", at); err != nil || r.ID != again.ID {
		t.Errorf("revoking the name again = %+v, %v; want %s", r, err, again.ID)
	}
	for _, ref := range []string{"nobody-at-all", "keys/000000000000"} {
		if _, err := store.Keys().RevokeKey(ctx, ref, at); graph.KindOf(err) != graph.NotFound {
			t.Errorf("revoking %s: %v, want NotFound", ref, err)
		}
	}
}

// TestKeysCreatedAtOnceWithOneName creates keys with the same name from many goroutines: Dgraph's
// conflict detection lets exactly one through.
func TestKeysCreatedAtOnceWithOneName(t *testing.T) {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, k, _ := auth.NewKey("keys-test-race", auth.Reader, time.Now())
			errs <- store.Keys().CreateKey(ctx, k)
		}()
	}
	wg.Wait()
	close(errs)
	created := 0
	for err := range errs {
		switch {
		case err == nil:
			created++
		case graph.KindOf(err) != graph.Invalid:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if created != 1 {
		t.Errorf("%d keys named keys-test-race were created at once; want 1", created)
	}
}

func TestCreateKeyRefusesWhatIsNotAKey(t *testing.T) {
	ctx := context.Background()
	_, k, _ := auth.NewKey("keys-test-bad", auth.Reader, time.Now())
	for name, bad := range map[string]auth.Key{
		"no id":       {Name: k.Name, Role: k.Role, Hash: k.Hash},
		"no hash":     {ID: k.ID, Name: k.Name, Role: k.Role},
		"no role":     {ID: k.ID, Name: k.Name, Hash: k.Hash},
		"a bad name":  {ID: k.ID, Name: "two words", Role: k.Role, Hash: k.Hash},
		"a long name": {ID: k.ID, Name: string(make([]byte, 100)), Role: k.Role, Hash: k.Hash},
	} {
		if err := store.Keys().CreateKey(ctx, bad); graph.KindOf(err) != graph.Invalid {
			t.Errorf("%s: %v, want Invalid", name, err)
		}
	}
}
