package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/auth"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/internal/backup"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
)

// backupDgraph starts a Dgraph of its own for a backup test, closed as `polgraph run` starts it, with its
// data in dir; it returns the flags that reach it and a store logged in as polgraph.
func backupDgraph(t *testing.T, ctx context.Context, dir string, offset int) (*dgraphlocal.Cluster, []string, *dgraph.Store) {
	t.Helper()
	cfg := dgraphlocal.Config{Binary: dgraphlocal.DefaultBinary(), DataDir: dir, PortOffset: offset,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	var c *dgraphlocal.Cluster
	var err error
	if offset == 0 {
		c, cfg, err = dgraphlocal.StartOnFreePorts(ctx, cfg, 1200+os.Getpid()%100*7)
	} else {
		c, err = dgraphlocal.Start(ctx, cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	s, err := dgraph.Open(ctx, c.Service(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return c, []string{"--dgraph", cfg.AlphaAddr(), "--data-dir", dir, "--dgraph-port-offset=" + strconv.Itoa(cfg.PortOffset)}, s
}

// dgraphOnly drops --dgraph-port-offset, which only backup and restore take.
func dgraphOnly(flags []string) []string { return slices.Clone(flags[:4]) }

// dumpOf is the whole-graph dump of a store, now.
func dumpOf(t *testing.T, s *dgraph.Store) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := s.Dump(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var graphIDField = regexp.MustCompile(`"pg.graph_id":"[^"]*",?`)

// TestBackupRestoresEveryPointOfAChain backs up a Dgraph holding the default graph, an API key, an audit
// trail and a review queue three times (a full backup, then two incrementals, with writes between), then
// restores each backup into an empty data folder and starts Dgraph there as `polgraph run` would: the
// whole-graph dump is the one taken at that backup, byte for byte but the graph's new id, the keys of
// then authenticate and a key created later does not. Encrypted, the folder holds no plaintext.
func TestBackupRestoresEveryPointOfAChain(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Dgraph")
	}
	ctx := context.Background()
	root := t.TempDir()
	_, flags, src := backupDgraph(t, ctx, filepath.Join(root, "src"), 0)
	run := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := realMain(ctx, args, &out, &out); err != nil {
			t.Fatalf("polgraph %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
	keyFile := filepath.Join(root, "backup.key")
	if err := os.WriteFile(keyFile, bytes.Repeat([]byte{7}, 32), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "backups")
	back := func(extra ...string) string {
		return run(append(append([]string{"backup", "--key-file", keyFile}, flags...), append(extra, dir)...)...)
	}
	keyOf := regexp.MustCompile(`key: +(\S+)`)

	run(append([]string{"load"}, append(dgraphOnly(flags), defaultDataset)...)...)
	k1 := keyOf.FindStringSubmatch(run(append([]string{"keys", "create", "--name", "first", "--role", "editor"}, dgraphOnly(flags)...)...))[1]
	articles := filepath.Join(root, "articles")
	os.MkdirAll(articles, 0o700)
	os.WriteFile(filepath.Join(articles, "one.txt"), []byte("Nia Okafor endorsed Rabina Khan for mayor.\n"), 0o600)
	run(append([]string{"ingest"}, append(dgraphOnly(flags), articles)...)...)
	var dumps []string
	out := back()
	dumps = append(dumps, dumpOf(t, src))
	if !strings.Contains(out, "backup 1 (full)") {
		t.Errorf("the first backup is not full:\n%s", out)
	}
	extra := filepath.Join(root, "extra.jsonl")
	os.WriteFile(extra, []byte(`{"record": "dataset", "format": "polgraph/v1", "name": "extra"}`+"\n"+`{"record": "entity", "name": "actors/backup-test-person", "display_name": "Backup Test Person"}`+"\n"), 0o600)
	run(append([]string{"load"}, append(dgraphOnly(flags), extra)...)...)
	k2 := keyOf.FindStringSubmatch(run(append([]string{"keys", "create", "--name", "second", "--role", "reader"}, dgraphOnly(flags)...)...))[1]
	out = back()
	dumps = append(dumps, dumpOf(t, src))
	run(append([]string{"keys", "revoke", "first"}, dgraphOnly(flags)...)...)
	k3 := keyOf.FindStringSubmatch(run(append([]string{"keys", "create", "--name", "third", "--role", "admin"}, dgraphOnly(flags)...)...))[1]
	out += back()
	dumps = append(dumps, dumpOf(t, src))
	for _, want := range []string{"backup 2 (incremental)", "backup 3 (incremental)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if dumps[0] == dumps[1] || dumps[1] == dumps[2] {
		t.Fatal("the writes between backups changed nothing")
	}
	f, err := backup.Open(dir, bytes.Repeat([]byte{7}, 32), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Manifest.Points {
		for _, fl := range p.Files {
			b, _ := os.ReadFile(filepath.Join(dir, fl.Path))
			if !strings.HasSuffix(fl.Path, ".enc") || bytes.Contains(b, []byte("pg.name")) || bytes.Contains(b, []byte("backup-test-person")) {
				t.Errorf("%s is not encrypted", fl.Path)
			}
		}
	}
	t.Log(run("backup", "list", "--key-file", keyFile, dir))

	// The keys each point knows: the revoked one authenticates no more at 3, the later ones not before.
	keysAt := []map[string]bool{{k1: true, k2: false, k3: false}, {k1: true, k2: true, k3: false}, {k1: false, k2: true, k3: true}}
	for n := 1; n <= 3; n++ {
		t.Run("backup "+strconv.Itoa(n), func(t *testing.T) {
			data := filepath.Join(root, "restored"+strconv.Itoa(n))
			offset, err := dgraphlocal.FreeOffset(1900 + os.Getpid()%50*7)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			out := run("restore", "--backup", strconv.Itoa(n), "--key-file", keyFile, "--data-dir", data, "--dgraph-port-offset", strconv.Itoa(offset), dir)
			t.Logf("%s(%.1fs)", out, time.Since(start).Seconds())
			if !strings.Contains(out, "restored backup "+strconv.Itoa(n)) {
				t.Errorf("restore says:\n%s", out)
			}
			// Started again as `polgraph run` starts it.
			_, _, restored := backupDgraph(t, ctx, data, offset)
			got := dumpOf(t, restored)
			if graphIDField.FindString(got) == graphIDField.FindString(dumps[n-1]) {
				t.Error("the restored graph kept its id: replicas' snapshot files would be trusted")
			}
			if diff := cmp.Diff(graphIDField.ReplaceAllString(dumps[n-1], ""), graphIDField.ReplaceAllString(got, "")); diff != "" {
				t.Errorf("restored dump (-backed up +restored):\n%.3000s", diff)
			}
			a := auth.NewAuthenticator(restored.Keys(), 0)
			for k, ok := range keysAt[n-1] {
				_, err := a.Authenticate(ctx, k)
				if (err == nil) != ok {
					t.Errorf("key %.12s…: authenticates %v, want %v (%v)", k, err == nil, ok, err)
				}
			}
			c, err := restored.Counts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if c.Relations == 0 {
				t.Errorf("restored counts %+v", c)
			}
		})
	}

	// verify restores into a scratch Dgraph and says what it compared.
	if out := run("backup", "verify", "--backup", "2", "--key-file", keyFile, dir); !strings.Contains(out, "backup 2 verified") {
		t.Errorf("verify says:\n%s", out)
	}
}

// TestRestoreRefusesWhatDoesNotMatch damages a backup folder in every way a disk or a hand can, and
// checks that restore refuses it before starting Dgraph, naming the problem, and writes nothing.
func TestRestoreRefusesWhatDoesNotMatch(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Dgraph")
	}
	ctx := context.Background()
	root := t.TempDir()
	_, flags, _ := backupDgraph(t, ctx, filepath.Join(root, "src"), 0)
	var out bytes.Buffer
	if err := realMain(ctx, append([]string{"load"}, append(dgraphOnly(flags), defaultDataset)...), &out, &out); err != nil {
		t.Fatal(err, out.String())
	}
	good := filepath.Join(root, "good")
	for range 2 {
		if err := realMain(ctx, append([]string{"backup"}, append(flags, good)...), &out, &out); err != nil {
			t.Fatal(err, out.String())
		}
	}
	f, err := backup.Open(good, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	full, incr := f.Manifest.Points[0].Files[0].Path, f.Manifest.Points[1].Files[0].Path
	key := filepath.Join(root, "key")
	os.WriteFile(key, bytes.Repeat([]byte{1}, 32), 0o600)
	offset, err := dgraphlocal.FreeOffset(2200 + os.Getpid()%50*7)
	if err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(root, "short.key")
	os.WriteFile(short, []byte("0123"), 0o600)

	for _, tc := range []struct {
		name   string
		damage func(dir string)
		args   []string
		want   string // the error's reason and what it names
	}{
		{"a file truncated", func(d string) { os.Truncate(filepath.Join(d, full), 10) }, nil, "BACKUP_FILE_MISMATCH " + full + " holds 10 bytes"},
		{"a byte changed", func(d string) { flip(filepath.Join(d, incr)) }, nil, "BACKUP_FILE_MISMATCH " + incr + " has SHA-256"},
		{"a file missing", func(d string) { os.Remove(filepath.Join(d, incr)) }, nil, "BACKUP_FILE_MISSING " + incr},
		{"the manifest edited", func(d string) { replaceIn(filepath.Join(d, backup.ManifestName), `"Entity": `, `"Entity": 1`) }, nil, "BACKUP_MANIFEST_MISMATCH"},
		{"the manifest cut", func(d string) { os.Truncate(filepath.Join(d, backup.ManifestName), 100) }, nil, "BACKUP_MANIFEST_DAMAGED"},
		{"the manifest gone", func(d string) { os.Remove(filepath.Join(d, backup.ManifestName)) }, nil, "BACKUP_MANIFEST_MISSING"},
		{"a key for a plain backup", func(string) {}, []string{"--key-file", key}, "BACKUP_NOT_ENCRYPTED"},
		{"a key too short", func(string) {}, []string{"--key-file", short}, "BACKUP_KEY_INVALID"},
		{"no such backup", func(string) {}, []string{"--backup", "9"}, "BACKUP_NOT_FOUND backups 1 to 2"},
		{"into two groups", func(string) {}, []string{"--alphas", "2", "--replicas", "1"}, "BACKUP_GROUPS_DIFFER holds 1 groups 2 alphas in groups of 1 make 2"},
		{"the first file damaged, the second restored", func(d string) { flip(filepath.Join(d, full)) }, []string{"--backup", "2"}, "BACKUP_FILE_MISMATCH " + full},
		// A manifest sealed again by hand with another digest gets past every check but the restored graph's.
		{"the manifest resealed with another digest", func(d string) {
			reseal(t, d, func(p *backup.Point) { p.Fingerprint = "rdf-sha256-sum:" + strings.Repeat("0", 64) })
		},
			[]string{"--dgraph-port-offset", strconv.Itoa(offset)}, "BACKUP_RESTORE_MISMATCH differs from backup 2's manifest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "b")
			copyTree(t, good, dir)
			tc.damage(dir)
			data := filepath.Join(t.TempDir(), "data")
			var out bytes.Buffer
			err := realMain(ctx, append(append([]string{"restore", "--data-dir", data}, tc.args...), dir), &out, &out)
			var ge *graph.Error
			if !errors.As(err, &ge) {
				t.Fatalf("restore: %v, want a refusal (%s)\n%s", err, tc.want, out.String())
			}
			got := ge.Reason + " " + ge.Message
			for _, w := range strings.Fields(tc.want) {
				if !strings.Contains(got, w) {
					t.Errorf("refused with %q, want it to say %q", got, w)
				}
			}
			if exitCode(err) != 3 {
				t.Errorf("exit code %d, want 3 (invalid)", exitCode(err))
			}
			if entries, _ := os.ReadDir(data); len(entries) > 0 {
				t.Errorf("a refused restore left %d entries in the data folder", len(entries))
			}
		})
	}
}

// reseal changes the last backup of the unencrypted folder dir's manifest and seals it again, as
// polgraph seals it (a SHA-256 of the manifest without its seal).
func reseal(t *testing.T, dir string, change func(*backup.Point)) {
	path := filepath.Join(dir, backup.ManifestName)
	b, _ := os.ReadFile(path)
	var m backup.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	change(&m.Points[len(m.Points)-1])
	m.Sum = ""
	body, _ := json.Marshal(m)
	m.Sum = fmt.Sprintf("sha256:%x", sha256.Sum256(body))
	b, _ = json.Marshal(m)
	os.WriteFile(path, b, 0o600)
}

func flip(path string) {
	b, _ := os.ReadFile(path)
	b[len(b)/2] ^= 0xff
	os.WriteFile(path, b, 0o600)
}

func replaceIn(path, old, new string) {
	b, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o600)
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(filepath.Join(to, rel), os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		defer out.Close()
		_, err = io.Copy(out, in)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestScheduledBackupsAppearInMetrics runs `polgraph run` with backups every second, a full one every
// eight, three series kept: the metrics and /healthz report them and their checks, old series are
// deleted, and the latest backup verifies.
func TestScheduledBackupsAppearInMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Dgraph")
	}
	freePort := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().String()
	}
	metricsAddr, httpAddr := freePort(), freePort()
	dir := filepath.Join(t.TempDir(), "backups")
	offset, err := dgraphlocal.FreeOffset(1500 + os.Getpid()%100*7)
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := runUntil(t, t.TempDir(), offset, "--backup-dir", dir, "--backup-every", "1s", "--backup-full-every", "8s", "--backup-keep", "3",
		"--metrics", metricsAddr, "--http", httpAddr)
	get := func(url string) string {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	var f *backup.Folder
	series := map[string]bool{}
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 90 s the folder holds %d series: %v", len(series), series)
		}
		var err error
		if f, err = backup.Open(dir, nil, false); err != nil {
			continue
		}
		for _, p := range f.Manifest.Points {
			series[p.Series] = true
		}
		if len(series) >= 3 {
			break
		}
	}
	kept := map[string]bool{}
	for _, p := range f.Manifest.Points {
		kept[p.Series] = true
	}
	if len(kept) > 3 {
		t.Errorf("the folder keeps %d series, want at most 3", len(kept))
	}
	// Checks run beside the backups, the first after the scratch Dgraph's start.
	var health struct {
		Status  string
		Backups backup.Status
	}
	for deadline := time.Now().Add(60 * time.Second); health.Backups.LastChecked == 0; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s no backup is checked: %+v", health.Backups)
		}
		if err := json.Unmarshal([]byte(get("http://"+httpAddr+"/healthz")), &health); err != nil {
			t.Fatal(err)
		}
	}
	metrics := get("http://" + metricsAddr + "/metrics")
	for _, name := range []string{"polgraph_backup_last_success_timestamp_seconds", "polgraph_backup_last_size_bytes", "polgraph_backup_last_duration_seconds",
		"polgraph_backup_last_checked_timestamp_seconds", "polgraph_backup_last_check_duration_seconds"} {
		m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindStringSubmatch(metrics)
		if m == nil {
			t.Errorf("the metrics lack %s", name)
			continue
		}
		if v, _ := strconv.ParseFloat(m[1], 64); v <= 0 {
			t.Errorf("%s = %v, want more than 0", name, m[1])
		}
	}
	if !strings.Contains(metrics, "polgraph_backup_failures_total 0") || !strings.Contains(metrics, "polgraph_backup_check_failures_total 0") {
		t.Errorf("scheduled backups failed:\n%s", regexp.MustCompile(`(?m)^polgraph_backup.*$`).FindAllString(metrics, -1))
	}
	if err := json.Unmarshal([]byte(get("http://"+httpAddr+"/healthz")), &health); err != nil {
		t.Fatal(err)
	}
	if health.Status != "SERVING" || health.Backups.State != "ok" || health.Backups.LastBackup < 3 || health.Backups.LastSuccess.IsZero() || health.Backups.Dir != dir ||
		health.Backups.LastChecked < 1 || health.Backups.LastCheckedAt.IsZero() {
		t.Errorf("/healthz: %+v", health)
	}
	// The gRPC health service says the same under its own name.
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	h, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{Service: backupHealthService})
	if err != nil || h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health of %s: %v %v", backupHealthService, h, err)
	}
	var out bytes.Buffer
	// The latest backup may not have been checked yet: verify then checks it.
	if err := realMain(context.Background(), []string{"backup", "verify", dir}, &out, &out); err != nil || !regexp.MustCompile(`backup \d+ (verified|checked)`).MatchString(out.String()) {
		t.Errorf("verify: %v\n%s", err, out.String())
	}
}

// TestClusterRestoresFromBackup backs up a cluster of three alphas holding one replicated group, and one
// of two groups of one alpha each (sharded), holding the default graph, an API key, an audit trail, a
// review queue and a saved view; it deletes every alpha's data and the zero's,
// restores the backup into the cluster's data folder and starts the cluster there as `polgraph cluster`
// does: each alpha, read alone, holds the graph backed up byte for byte but its new id, and the key
// still authenticates.
func TestClusterRestoresFromBackup(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Dgraph")
	}
	for _, shape := range []struct{ alphas, replicas int }{{3, 3}, {2, 1}} {
		t.Run(fmt.Sprintf("%d alphas in groups of %d", shape.alphas, shape.replicas), func(t *testing.T) {
			clusterRestoresFromBackup(t, shape.alphas, shape.replicas)
		})
	}
}

// clusterRestoresFromBackup is TestClusterRestoresFromBackup on a cluster of the shape given: with
// replicas 1, each alpha is a group of its own, holding its share of the predicates.
func clusterRestoresFromBackup(t *testing.T, alphas, replicas int) {
	ctx := context.Background()
	lc := startCluster(t, alphas, replicas, 0)
	run := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := realMain(ctx, args, &out, &out); err != nil {
			t.Fatalf("polgraph %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
	key := lc.editorKey(t)
	articles := t.TempDir()
	os.WriteFile(filepath.Join(articles, "one.txt"), []byte("Nia Okafor endorsed Rabina Khan for mayor.\n"), 0o600)
	run(append([]string{"ingest"}, append(slices.Clone(lc.flags), articles)...)...)
	src, err := dgraph.Open(ctx, lc.dgraph.Service(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.CreateView(ctx, graph.SavedView{Title: "Backed up", Query: "open=actors/nia-okafor",
		Notes: []graph.ViewNote{{Target: "actors/nia-okafor", Text: "Kept by the backup"}}}, ""); err != nil {
		t.Fatal(err)
	}
	backups := filepath.Join(t.TempDir(), "backups")
	offset := strconv.Itoa(lc.cfg.PortOffset)
	t.Log(run(append(append([]string{"backup"}, lc.flags...), "--dgraph-port-offset", offset, backups)...))
	want := dumpOf(t, src)
	src.Close()
	for _, kind := range []string{`"type":"Change"`, `"type":"ReviewProposal"`, `"type":"Key"`, `"type":"View"`} {
		if !strings.Contains(want, kind) {
			t.Fatalf("the cluster's dump holds no %s", kind)
		}
	}

	// Every alpha's disk dies, and the zero's.
	lc.dgraph.Stop()
	data := lc.flags[3]
	if err := os.RemoveAll(data); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out := run("restore", "--alphas", strconv.Itoa(alphas), "--replicas", strconv.Itoa(replicas), "--data-dir", data, "--dgraph-port-offset", offset, "--log-level", "warn", backups)
	t.Logf("%s(%.1fs)", out, time.Since(start).Seconds())
	if !strings.Contains(out, fmt.Sprintf("(%d alphas)", alphas)) || !strings.Contains(out, "identical to the manifest") {
		t.Errorf("restore says:\n%s", out)
	}
	cfg := lc.cfg
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	c, err := dgraphlocal.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	for i := range alphas {
		s, err := dgraph.Open(ctx, c.AlphaService(i), slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		got := dumpOf(t, s)
		if graphIDField.FindString(got) == graphIDField.FindString(want) {
			t.Errorf("alpha %d: the restored graph kept its id: replicas' snapshot files would be trusted", i+1)
		}
		if diff := cmp.Diff(graphIDField.ReplaceAllString(want, ""), graphIDField.ReplaceAllString(got, "")); diff != "" {
			t.Errorf("alpha %d's dump (-backed up +restored):\n%.3000s", i+1, diff)
		}
		if _, err := auth.NewAuthenticator(s.Keys(), 0).Authenticate(ctx, key); err != nil {
			t.Errorf("alpha %d: the key does not authenticate: %v", i+1, err)
		}
		s.Close()
	}
}
