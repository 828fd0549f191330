package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/auth"
	"github.com/polgraph/polgraph/graph/dgraph"
)

const keysUsage = `usage: polgraph keys create --name NAME --role reader|editor|admin
       polgraph keys list
       polgraph keys revoke NAME|keys/ID

API keys for polgraph's API, kept (hashed) in Dgraph, so that every polgraph on the same Dgraph knows
them. These commands talk to Dgraph directly, as ` + "`polgraph load`" + ` does (--dgraph, --data-dir and the
--dgraph-* credentials): whoever may reach the database may make keys, so the first admin key needs no key.
A key is shown once, when it is created; polgraph keeps only its SHA-256 hash. A revoked key is refused by
every polgraph within seconds.
`

// keysCmd is `polgraph keys create|list|revoke`.
func keysCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, keysUsage)
		return errUsage
	}
	sub, rest := args[0], args[1:]
	cfg := defaultConfig()
	fs := cfg.flags("keys "+sub, stderr, "dgraph", "data-dir", "log")
	fs.Usage = func() {
		fmt.Fprint(stderr, keysUsage+"\nFlags:\n")
		fs.PrintDefaults()
	}
	var name, role string
	nargs := 0
	switch sub {
	case "create":
		fs.StringVar(&name, "name", "", "who or what uses the key (letters, digits, . _ @ -); unique among keys not revoked")
		fs.StringVar(&role, "role", "", "reader (reads), editor (reads and writes) or admin (also deletions of entities, merges)")
	case "list":
	case "revoke":
		nargs = 1
	case "help", "-h", "--help":
		fmt.Fprint(stdout, keysUsage)
		return nil
	default:
		fmt.Fprintf(stderr, "polgraph keys: unknown command %q\n\n%s", sub, keysUsage)
		return errUsage
	}
	if err := fs.Parse(reorder(fs, rest)); err != nil {
		return errUsage
	}
	if fs.NArg() != nargs {
		fs.Usage()
		return errUsage
	}
	var r auth.Role
	if sub == "create" {
		var err error
		if r, err = auth.ParseRole(role); err != nil || name == "" {
			fmt.Fprintln(stderr, "polgraph keys create needs --name and --role (reader, editor or admin)")
			return errUsage
		}
		if err := auth.CheckKeyName(name); err != nil {
			return err
		}
	}
	log, err := cfg.logger(stderr)
	if err != nil {
		return err
	}
	if sub != "list" {
		target, err := writeTargetOf(fs, "", cfg.Dgraph)
		if err != nil {
			return err
		}
		target.say(stderr)
	}
	store, err := cfg.openDgraph(ctx, log)
	if err != nil {
		return err
	}
	defer store.Close()
	// The trail records who created or revoked a key: the local user running the command.
	ctx = graph.WithWriteMeta(ctx, localWriter(map[string]string{"create": "CreateKey", "revoke": "RevokeKey"}[sub]))
	switch sub {
	case "create":
		return createKey(ctx, store, name, r, stdout)
	case "list":
		return listKeys(ctx, store, stdout)
	}
	return revokeKey(ctx, store, fs.Arg(0), stdout)
}

func createKey(ctx context.Context, store *dgraph.Store, name string, role auth.Role, stdout io.Writer) error {
	secret, k, err := auth.NewKey(name, role, time.Now())
	if err != nil {
		return err
	}
	if err := store.Keys().CreateKey(ctx, k); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "name:    %s\nrole:    %s\nid:      %s\ncreated: %s\nkey:     %s\n", k.Name, k.Role, k.ID, k.Created.Format(time.RFC3339), secret)
	fmt.Fprintln(stdout, "The key is shown this once: polgraph keeps only its SHA-256 hash.")
	fmt.Fprintln(stdout, "Send it as `authorization: Bearer <key>`; the CLI takes --api-key or $POLGRAPH_API_KEY.")
	return nil
}

func listKeys(ctx context.Context, store *dgraph.Store, stdout io.Writer) error {
	keys, err := store.Keys().ListKeys(ctx)
	if err != nil {
		return err
	}
	// Fixed columns, the name (of any length) last, so that the header does not move with the names.
	const row = "%-17s  %-6s  %-20s  %-20s  %s\n"
	fmt.Fprintf(stdout, row, "ID", "ROLE", "CREATED", "REVOKED", "NAME")
	for _, k := range keys {
		revoked := "-"
		if !k.Revoked.IsZero() {
			revoked = k.Revoked.Format(time.RFC3339)
		}
		fmt.Fprintf(stdout, row, k.ID, k.Role, k.Created.Format(time.RFC3339), revoked, k.Name)
	}
	return nil
}

func revokeKey(ctx context.Context, store *dgraph.Store, idOrName string, stdout io.Writer) error {
	now := time.Now()
	k, err := store.Keys().RevokeKey(ctx, idOrName, now)
	if err != nil {
		return err
	}
	if k.Revoked.UnixMilli() != now.UnixMilli() {
		fmt.Fprintf(stdout, "%s (%s) was already revoked, at %s\n", k.ID, k.Name, k.Revoked.Format(time.RFC3339))
		return nil
	}
	fmt.Fprintf(stdout, "revoked %s (%s, %s)\n", k.ID, k.Name, k.Role)
	fmt.Fprintf(stdout, "Every polgraph refuses it within %s.\n", auth.DefaultKeyCacheTime)
	return nil
}
