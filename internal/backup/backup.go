// Package backup keeps backups of everything polgraph holds in Dgraph (the graph, claims, sources, the
// audit trail, request ids, the review queue, API keys, the graph's version and id) in a folder, and
// restores them.
//
// A backup is Dgraph's own binary backup (full, or incremental on the last), which Dgraph v25 takes
// through /admin, restored in a scratch Dgraph (Scratch), at once or beside the next backups, beside a manifest of polgraph's: for each backup, when it was taken and how long it
// took, and what it restores to (the graph's version, how many nodes of each type, the fingerprint of a
// whole-graph export), and the size and SHA-256 of every file. The manifest is sealed (a SHA-256, or with a key an HMAC), and with a key every file is encrypted with
// AES-256-GCM. A restore refuses a folder whose manifest, files or restored graph differ from what the
// manifest says.
//
//	DIR/polgraph-backup.json   the manifest
//	DIR/dgraph/                Dgraph's backup folder: its manifest.json and one folder per backup
//	DIR/secrets.json[.enc]     the local Dgraph's credentials, which its restored users need
package backup

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/polgraph/polgraph/graph"
)

// ManifestName is the manifest's file name in a backup folder.
const ManifestName = "polgraph-backup.json"

const format = 1

// Manifest is a backup folder's list of backups.
type Manifest struct {
	Format    int     `json:"format"`
	Encrypted bool    `json:"encrypted"`
	KeyID     string  `json:"key_id,omitempty"`
	Points    []Point `json:"backups"`
	// Sum seals the rest: "sha256:…" of the manifest without it, or "hmac-sha256:…" under the key.
	Sum string `json:"sum"`
}

// Point is one backup.
type Point struct {
	Num  int       `json:"num"`  // 1, 2, … in the folder
	Type string    `json:"type"` // "full" or "incremental"
	Time time.Time `json:"time"`
	// Seconds is how long the backup took, the dump included.
	Seconds float64 `json:"seconds"`
	// Series and SeriesNum are Dgraph's backup_id and backup_num: a full backup starts a series.
	Series    string `json:"series"`
	SeriesNum int    `json:"series_num"`
	ReadTs    uint64 `json:"read_ts"`
	// Version is the graph's version, Counts the nodes of each type, Fingerprint and FingerprintLines
	// those of its whole-graph export (Fingerprint), all as the backup restores.
	Version          int64          `json:"graph_version"`
	Counts           map[string]int `json:"counts"`
	Fingerprint      string         `json:"fingerprint,omitempty"`
	FingerprintLines int64          `json:"fingerprint_lines,omitempty"`
	// Checked is when the check of the backup (its restore, and what the restored graph holds) ended;
	// zero while it waits for its check (Options.CheckLater).
	Checked time.Time `json:"checked,omitzero"`
	// DumpSHA and DumpBytes, in backups of before the fingerprint, are the SHA-256 and size of a
	// whole-graph dump (graph/dgraph's Dump), which a restore of them compares.
	DumpSHA   string `json:"dump_sha256,omitempty"`
	DumpBytes int64  `json:"dump_bytes,omitempty"`
	// Files are the files this backup added, relative to the folder; Secrets the credentials' file then.
	Files   []File          `json:"files"`
	Secrets *File           `json:"secrets,omitempty"`
	Dgraph  json.RawMessage `json:"dgraph"` // Dgraph's manifest entry
}

// IsChecked says whether the backup has been restored and what it restores to recorded.
func (p Point) IsChecked() bool { return !p.Checked.IsZero() || p.DumpSHA != "" }

// record keeps what the check of the backup found.
func (p *Point) record(r Restored) {
	p.Version, p.Counts, p.Fingerprint, p.FingerprintLines = r.Version, r.Counts, r.Fingerprint.Sum, r.Fingerprint.Lines
	p.Checked = time.Now().UTC()
}

// Bytes is the size of the backup's files.
func (p Point) Bytes() int64 {
	var n int64
	for _, f := range p.Files {
		n += f.Size
	}
	return n
}

// Groups is how many groups of predicates the backup holds: a cluster restoring it needs as many.
func (p Point) Groups() int { return groupsOf(p.Dgraph) }

// groupsOf is how many groups an entry of Dgraph's manifest lists (at least 1).
func groupsOf(entry json.RawMessage) int {
	var e struct {
		Groups map[string]json.RawMessage `json:"groups"`
	}
	json.Unmarshal(entry, &e)
	return max(len(e.Groups), 1)
}

// File is a file of a backup.
type File struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// dgraphEntry is what polgraph reads of an entry of Dgraph's manifest.json.
type dgraphEntry struct {
	Type      string `json:"type"`
	ReadTs    uint64 `json:"read_ts"`
	BackupID  string `json:"backup_id"`
	BackupNum int    `json:"backup_num"`
	Path      string `json:"path"`
}

func invalid(reason, format string, args ...any) error {
	return &graph.Error{Op: "backup", Kind: graph.Invalid, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// Folder is a backup folder whose manifest has been read and checked.
type Folder struct {
	Dir      string
	Manifest Manifest
	key      []byte
}

// Open reads and checks the manifest of the backup folder dir. A folder without one is empty (create
// allows it) or not a backup folder. It fails with an Invalid error, naming the problem, when the manifest
// is damaged or changed, or key does not match the folder's encryption.
func Open(dir string, key []byte, create bool) (*Folder, error) {
	f := &Folder{Dir: dir, key: key}
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		if !create {
			return nil, invalid("BACKUP_MANIFEST_MISSING", "%s holds no polgraph backup (no %s)", dir, ManifestName)
		}
		if _, err := os.Stat(filepath.Join(dir, "dgraph", "manifest.json")); err == nil {
			return nil, invalid("BACKUP_MANIFEST_MISSING", "%s holds Dgraph backups but no %s: back up to another folder", dir, ManifestName)
		}
		f.Manifest = Manifest{Format: format, Encrypted: key != nil, KeyID: keyID(key)}
		return f, nil
	}
	if err != nil {
		return nil, invalid("BACKUP_MANIFEST_UNREADABLE", "cannot read %s: %v", ManifestName, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, invalid("BACKUP_MANIFEST_DAMAGED", "%s is not a backup manifest: %v", filepath.Join(dir, ManifestName), err)
	}
	switch {
	case m.Format != format:
		return nil, invalid("BACKUP_MANIFEST_DAMAGED", "%s has format %d; this polgraph reads format %d", ManifestName, m.Format, format)
	case m.Encrypted && key == nil:
		return nil, invalid("BACKUP_KEY_MISSING", "the backups in %s are encrypted: give the key file (--key-file)", dir)
	case !m.Encrypted && key != nil:
		return nil, invalid("BACKUP_NOT_ENCRYPTED", "the backups in %s are not encrypted: give no key file, or back up to another folder", dir)
	case m.Encrypted && m.KeyID != keyID(key):
		return nil, invalid("BACKUP_WRONG_KEY", "the backups in %s were encrypted with key %s, not with this key (%s)", dir, m.KeyID, keyID(key))
	}
	if want := m.sealed(key); m.Sum != want {
		return nil, invalid("BACKUP_MANIFEST_MISMATCH", "%s does not match its seal: it was changed or damaged since polgraph wrote it", filepath.Join(dir, ManifestName))
	}
	f.Manifest = m
	return f, nil
}

// sealed is the Sum the manifest should carry.
func (m Manifest) sealed(key []byte) string {
	m.Sum = ""
	body, _ := json.Marshal(m)
	return manifestSum(key, body)
}

// write seals the manifest and replaces the folder's whole or not at all.
func (f *Folder) write() error {
	f.Manifest.Sum = f.Manifest.sealed(f.key)
	b, err := json.MarshalIndent(f.Manifest, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(f.Dir, ManifestName), b)
}

func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	fd, err := os.Open(tmp)
	if err == nil {
		err = fd.Sync()
		fd.Close()
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// Point is backup n (0: the latest), or an Invalid error naming the backups there are.
func (f *Folder) Point(n int) (Point, error) {
	ps := f.Manifest.Points
	if len(ps) == 0 {
		return Point{}, invalid("BACKUP_EMPTY", "%s holds no backup yet", f.Dir)
	}
	if n == 0 {
		return ps[len(ps)-1], nil
	}
	for _, p := range ps {
		if p.Num == n {
			return p, nil
		}
	}
	return Point{}, invalid("BACKUP_NOT_FOUND", "%s holds no backup %d: it holds backups %d to %d (`polgraph backup list`)", f.Dir, n, ps[0].Num, ps[len(ps)-1].Num)
}

// Chain is what restoring backup n needs: the full backup of its series, then each incremental up to n.
func (f *Folder) Chain(n int) ([]Point, error) {
	p, err := f.Point(n)
	if err != nil {
		return nil, err
	}
	var chain []Point
	for _, q := range f.Manifest.Points {
		if q.Series == p.Series && q.SeriesNum <= p.SeriesNum {
			chain = append(chain, q)
		}
	}
	if len(chain) == 0 || chain[0].Type != "full" || len(chain) != p.SeriesNum {
		return nil, invalid("BACKUP_CHAIN_BROKEN", "backup %d's series %s lacks some of its backups: the manifest lists %d of %d", p.Num, p.Series, len(chain), p.SeriesNum)
	}
	return chain, nil
}

// Check compares every file restoring backup n needs with its size and SHA-256 in the manifest, and
// fails with an Invalid error naming the first that differs or is missing.
func (f *Folder) Check(n int) error {
	chain, err := f.Chain(n)
	if err != nil {
		return err
	}
	files := []File{}
	for _, p := range chain {
		files = append(files, p.Files...)
	}
	if s := f.Manifest.Points[len(f.Manifest.Points)-1].Secrets; s != nil {
		files = append(files, *s)
	}
	for _, fl := range files {
		if err := checkFile(f.Dir, fl); err != nil {
			return err
		}
	}
	return nil
}

func checkFile(dir string, fl File) error {
	fd, err := os.Open(filepath.Join(dir, fl.Path))
	if err != nil {
		return invalid("BACKUP_FILE_MISSING", "the backup's file %s: %v", fl.Path, err)
	}
	defer fd.Close()
	h := sha256.New()
	n, err := io.Copy(h, fd)
	if err != nil {
		return invalid("BACKUP_FILE_UNREADABLE", "the backup's file %s: %v", fl.Path, err)
	}
	if n != fl.Size {
		return invalid("BACKUP_FILE_MISMATCH", "the backup's file %s holds %d bytes; the manifest says %d (truncated or changed)", fl.Path, n, fl.Size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != fl.SHA256 {
		return invalid("BACKUP_FILE_MISMATCH", "the backup's file %s has SHA-256 %s; the manifest says %s (changed or damaged)", fl.Path, got, fl.SHA256)
	}
	return nil
}

// Stage writes into the folder location what Dgraph's restore of backup n reads: a manifest.json of the
// chain alone, and each of its files, decrypted. It returns the series and its number to restore.
func (f *Folder) Stage(n int, location string) (series string, num int, err error) {
	chain, err := f.Chain(n)
	if err != nil {
		return "", 0, err
	}
	if err := f.stage(chain, location); err != nil {
		return "", 0, err
	}
	last := chain[len(chain)-1]
	return last.Series, last.SeriesNum, nil
}

// stage writes the chain's files, decrypted, and a Dgraph manifest of it alone into location.
func (f *Folder) stage(chain []Point, location string) error {
	entries := make([]json.RawMessage, len(chain))
	for i, p := range chain {
		entries[i] = p.Dgraph
		for _, fl := range p.Files {
			rel, err := filepath.Rel("dgraph", fl.Path)
			if err != nil {
				return err
			}
			dst := filepath.Join(location, strings.TrimSuffix(rel, ".enc"))
			if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
				return err
			}
			if err := f.copyOut(fl, dst); err != nil {
				return err
			}
		}
	}
	b, _ := json.Marshal(map[string]any{"Manifests": entries})
	return os.WriteFile(filepath.Join(location, "manifest.json"), b, 0o600)
}

// copyOut writes a backup file's plaintext to dst, checking it on the way.
func (f *Folder) copyOut(fl File, dst string) error {
	src, err := os.Open(filepath.Join(f.Dir, fl.Path))
	if err != nil {
		return invalid("BACKUP_FILE_MISSING", "the backup's file %s: %v", fl.Path, err)
	}
	defer src.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	h := sha256.New()
	in := io.TeeReader(src, h)
	if strings.HasSuffix(fl.Path, ".enc") {
		if f.key == nil {
			return invalid("BACKUP_KEY_MISSING", "the backup's file %s is encrypted: give the key file (--key-file)", fl.Path)
		}
		if err := decrypt(f.key, fl.Path, in, out); err != nil {
			return invalid("BACKUP_FILE_MISMATCH", "the backup's file %s does not decrypt: %v", fl.Path, err)
		}
		io.Copy(io.Discard, in)
	} else if _, err := io.Copy(out, in); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != fl.SHA256 {
		return invalid("BACKUP_FILE_MISMATCH", "the backup's file %s changed while it was restored", fl.Path)
	}
	return out.Close()
}

// Secrets are the local Dgraph's credential files as the backup keeps them, by name.
func (f *Folder) Secrets() (map[string][]byte, error) {
	p, err := f.Point(0)
	if err != nil {
		return nil, err
	}
	if p.Secrets == nil {
		return nil, invalid("BACKUP_NO_SECRETS", "%s keeps no Dgraph credentials", f.Dir)
	}
	b, err := os.ReadFile(filepath.Join(f.Dir, p.Secrets.Path))
	if err != nil {
		return nil, invalid("BACKUP_FILE_MISSING", "the backup's file %s: %v", p.Secrets.Path, err)
	}
	if f.key != nil {
		var out bytes.Buffer
		if err := decrypt(f.key, p.Secrets.Path, bytes.NewReader(b), &out); err != nil {
			return nil, invalid("BACKUP_FILE_MISMATCH", "the backup's file %s does not decrypt: %v", p.Secrets.Path, err)
		}
		b = out.Bytes()
	}
	var s map[string][]byte
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, invalid("BACKUP_FILE_MISMATCH", "the backup's file %s: %v", p.Secrets.Path, err)
	}
	return s, nil
}

// Dgraph takes Dgraph's backups (dgraphlocal.Admin).
type Dgraph interface {
	Backup(ctx context.Context, dest string, full bool) error
}

// Checker restores the backup series in the staged folder location up to its number num somewhere
// else, and reports the restored graph's dump (Scratch).
type Checker interface {
	Check(ctx context.Context, location, series string, num int) (Restored, error)
}

// Options are how Take backs up.
type Options struct {
	Key []byte // encrypt with it; nil: no encryption
	// Full forces a full backup; the first backup in a folder is always full.
	Full bool
	// SecretsDir is the local Dgraph's credentials folder, kept with the backups: a restored Dgraph's
	// users log in with them.
	SecretsDir string
	// CheckLater records the backup as soon as Dgraph has written it, unchecked: CheckLatest checks it
	// (the schedule does, beside the backups), so that a long check does not space the backups out.
	CheckLater bool
	Log        *slog.Logger
}

// Take backs up Dgraph into the folder dir: Dgraph's backup, then its restore by checker and the restored
// graph's fingerprint, counts and version (the manifest records what the backup restores to), then the files
// sealed (and encrypted), and last the manifest; a backup that fails at any step leaves the folder as it
// was. One backup runs at a time in a folder (a lock file).
//
// The fingerprint is not read from the running Dgraph at the backup's read timestamp: Dgraph v25 may show a
// read at a past timestamp writes committed after it (measured: 204 entities at a backup's timestamp
// right after it, 98 there minutes later and in the backup), so only a restore says what a backup holds.
func Take(ctx context.Context, dir string, o Options, dg Dgraph, checker Checker) (Point, error) {
	start := time.Now()
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Point{}, err
	}
	unlock, err := lock(dir)
	if err != nil {
		return Point{}, err
	}
	defer unlock()
	f, err := Open(dir, o.Key, true)
	if err != nil {
		return Point{}, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "dgraph"), 0o700); err != nil {
		return Point{}, fmt.Errorf("backup folder: %w", err)
	}
	// Dgraph's manifest may list a backup polgraph never finished (a crash): drop it, so that the next
	// incremental builds on one the manifest lists.
	if err := f.reconcile(log, "dropping a backup polgraph did not finish"); err != nil {
		return Point{}, err
	}
	full := o.Full || len(f.Manifest.Points) == 0
	if err := dg.Backup(ctx, filepath.Join(dir, "dgraph"), full); err != nil {
		return Point{}, &graph.Error{Op: "backup.Take", Kind: graph.Unavailable, Message: "Dgraph's backup failed", Err: err}
	}
	p, err := f.finish(ctx, o, checker, start)
	if err != nil {
		if rerr := f.reconcile(log, "dropping the failed backup"); rerr != nil {
			log.Error("cannot undo the failed backup in Dgraph's manifest", "dir", dir, "err", rerr)
		}
		return Point{}, err
	}
	return p, nil
}

// finish checks and records the backup Dgraph just wrote.
func (f *Folder) finish(ctx context.Context, o Options, checker Checker, start time.Time) (Point, error) {
	entries, raws, err := f.dgraphManifest()
	if err != nil {
		return Point{}, err
	}
	if len(entries) != len(f.Manifest.Points)+1 {
		return Point{}, fmt.Errorf("Dgraph's manifest lists %d backups, polgraph's %d: expected one more", len(entries), len(f.Manifest.Points))
	}
	e := entries[len(entries)-1]
	p := Point{Num: 1, Type: e.Type, Time: start.UTC(), Series: e.BackupID, SeriesNum: e.BackupNum, ReadTs: e.ReadTs, Dgraph: raws[len(raws)-1]}
	if n := len(f.Manifest.Points); n > 0 {
		p.Num = f.Manifest.Points[n-1].Num + 1
	}
	folder := filepath.Join(f.Dir, "dgraph", e.Path)
	names, err := os.ReadDir(folder)
	if err != nil {
		return Point{}, fmt.Errorf("Dgraph's backup folder %s: %w", folder, err)
	}
	for _, de := range names {
		fl, err := describe(f.Dir, filepath.Join("dgraph", e.Path, de.Name()))
		if err != nil {
			return Point{}, err
		}
		p.Files = append(p.Files, fl)
	}
	var chain []Point
	for _, q := range f.Manifest.Points {
		if q.Series == p.Series && q.SeriesNum < p.SeriesNum {
			chain = append(chain, q)
		}
	}
	if len(chain) != p.SeriesNum-1 {
		return Point{}, invalid("BACKUP_CHAIN_BROKEN", "Dgraph's backup %d of series %s builds on backups the manifest lacks", p.SeriesNum, p.Series)
	}
	if !o.CheckLater {
		// Restored with the backups it builds on, before anything is encrypted.
		r, err := f.check(ctx, append(chain, p), checker)
		if err != nil {
			return Point{}, err
		}
		p.record(r)
	}
	if f.key != nil {
		for i, fl := range p.Files {
			rel, err := f.encryptInPlace(fl.Path)
			if err != nil {
				return Point{}, err
			}
			if p.Files[i], err = describe(f.Dir, rel); err != nil {
				return Point{}, err
			}
		}
	}
	if o.SecretsDir != "" {
		s, err := f.keepSecrets(o.SecretsDir)
		if err != nil {
			return Point{}, err
		}
		p.Secrets = &s
	}
	p.Seconds = time.Since(start).Seconds()
	f.Manifest.Points = append(f.Manifest.Points, p)
	if err := f.write(); err != nil {
		f.Manifest.Points = f.Manifest.Points[:len(f.Manifest.Points)-1]
		return Point{}, fmt.Errorf("write the manifest: %w", err)
	}
	return p, nil
}

// check stages the chain (the last backup and those it builds on) in a new folder and has checker restore
// it there.
func (f *Folder) check(ctx context.Context, chain []Point, checker Checker) (Restored, error) {
	location, err := os.MkdirTemp(f.Dir, ".checking-")
	if err != nil {
		return Restored{}, err
	}
	defer os.RemoveAll(location)
	if err := f.stage(chain, location); err != nil {
		return Restored{}, err
	}
	last := chain[len(chain)-1]
	r, err := checker.Check(ctx, location, last.Series, last.SeriesNum)
	if err != nil {
		return Restored{}, fmt.Errorf("restore backup %d to check it: %w", last.Num, err)
	}
	return r, nil
}

// CheckLatest checks the newest backup in the folder dir if it waits for its check (Options.CheckLater):
// it restores it with checker and records what it restores to in the manifest. It returns the backup and
// whether it checked it. The folder is locked only to read its manifest and to record the result, so
// backups go on being taken during the check; one pruned meanwhile is not recorded.
func CheckLatest(ctx context.Context, dir string, key []byte, checker Checker) (Point, bool, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Point{}, false, err
	}
	f, chain, err := latestUnchecked(dir, key)
	if err != nil || chain == nil {
		return Point{}, false, err
	}
	// Staged without the lock: each file is checked against its SHA-256 as it is copied, so one pruned
	// meanwhile fails the check, to be tried again with the next backup.
	p := chain[len(chain)-1]
	r, err := f.check(ctx, chain, checker)
	if err != nil {
		return p, false, err
	}
	return Record(ctx, dir, key, p, r)
}

// latestUnchecked reads the folder's manifest under its lock and returns the chain of its newest backup
// when that one waits for its check, or no chain.
func latestUnchecked(dir string, key []byte) (*Folder, []Point, error) {
	unlock, err := lock(dir)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	f, err := Open(dir, key, true)
	if err != nil || len(f.Manifest.Points) == 0 {
		return nil, nil, err
	}
	if p, _ := f.Point(0); p.IsChecked() {
		return nil, nil, nil
	}
	chain, err := f.Chain(0)
	return f, chain, err
}

// Record keeps in the folder dir's manifest what the restore r of backup p found, if the manifest still
// holds p unchecked (verify records so what it restored of a backup that waits for its check). It returns
// the backup as recorded and whether it recorded it.
func Record(ctx context.Context, dir string, key []byte, p Point, r Restored) (Point, bool, error) {
	unlock, err := lockWait(ctx, dir)
	if err != nil {
		return p, false, err
	}
	defer unlock()
	f, err := Open(dir, key, false)
	if err != nil {
		return p, false, err
	}
	for i, q := range f.Manifest.Points {
		if q.Num == p.Num && q.Series == p.Series && q.SeriesNum == p.SeriesNum && !q.IsChecked() {
			f.Manifest.Points[i].record(r)
			if err := f.write(); err != nil {
				return p, false, fmt.Errorf("write the manifest: %w", err)
			}
			return f.Manifest.Points[i], true, nil
		}
	}
	return p, false, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

func describe(dir, rel string) (File, error) {
	fd, err := os.Open(filepath.Join(dir, rel))
	if err != nil {
		return File{}, err
	}
	defer fd.Close()
	h := sha256.New()
	n, err := io.Copy(h, fd)
	if err != nil {
		return File{}, err
	}
	return File{Path: rel, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// encryptInPlace replaces the file rel by its encryption, rel+".enc", and returns the new name.
func (f *Folder) encryptInPlace(rel string) (string, error) {
	src := filepath.Join(f.Dir, rel)
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out := rel + ".enc"
	tmp := filepath.Join(f.Dir, out+".tmp")
	fd, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	if err := encrypt(f.key, out, in, fd); err != nil {
		fd.Close()
		os.Remove(tmp)
		return "", err
	}
	if err := fd.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, filepath.Join(f.Dir, out)); err != nil {
		return "", err
	}
	return out, os.Remove(src)
}

// keepSecrets writes the credentials in secretsDir to the folder, unless it holds them already.
func (f *Folder) keepSecrets(secretsDir string) (File, error) {
	s, err := readSecretsDir(secretsDir)
	if err != nil {
		return File{}, err
	}
	b, _ := json.Marshal(s)
	name := "secrets.json"
	if f.key != nil {
		name += ".enc"
		// Unchanged credentials keep their file: each encryption differs.
		if n := len(f.Manifest.Points); n > 0 && f.Manifest.Points[n-1].Secrets != nil {
			if old, err := f.Secrets(); err == nil && equalSecrets(old, s) && checkFile(f.Dir, *f.Manifest.Points[n-1].Secrets) == nil {
				return *f.Manifest.Points[n-1].Secrets, nil
			}
		}
		var out bytes.Buffer
		if err := encrypt(f.key, name, bytes.NewReader(b), &out); err != nil {
			return File{}, err
		}
		b = out.Bytes()
	}
	if err := writeAtomic(filepath.Join(f.Dir, name), b); err != nil {
		return File{}, err
	}
	return describe(f.Dir, name)
}

func equalSecrets(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// dgraphManifest reads Dgraph's manifest.json in the folder: its entries, decoded and raw.
func (f *Folder) dgraphManifest() ([]dgraphEntry, []json.RawMessage, error) {
	b, err := os.ReadFile(filepath.Join(f.Dir, "dgraph", "manifest.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var m struct{ Manifests []json.RawMessage }
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, nil, fmt.Errorf("Dgraph's manifest.json: %w", err)
	}
	entries := make([]dgraphEntry, len(m.Manifests))
	for i, raw := range m.Manifests {
		if err := json.Unmarshal(raw, &entries[i]); err != nil {
			return nil, nil, fmt.Errorf("Dgraph's manifest.json: %w", err)
		}
	}
	return entries, m.Manifests, nil
}

// reconcile makes Dgraph's manifest list exactly the backups polgraph's lists, deleting the folders of
// the others.
func (f *Folder) reconcile(log *slog.Logger, why string) error {
	entries, _, err := f.dgraphManifest()
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	raws := make([]json.RawMessage, 0, len(f.Manifest.Points))
	for _, p := range f.Manifest.Points {
		var e dgraphEntry
		json.Unmarshal(p.Dgraph, &e)
		keep[e.Path] = true
		raws = append(raws, p.Dgraph)
	}
	changed := len(entries) != len(raws)
	for _, e := range entries {
		if !keep[e.Path] {
			changed = true
			log.Warn(why, "dir", f.Dir, "dgraph_path", e.Path)
			os.RemoveAll(filepath.Join(f.Dir, "dgraph", e.Path))
		}
	}
	if !changed {
		return nil
	}
	b, _ := json.Marshal(map[string]any{"Manifests": raws})
	return writeAtomic(filepath.Join(f.Dir, "dgraph", "manifest.json"), b)
}

// Prune keeps the backups of the newest keep series (a full backup and its incrementals) in the folder
// dir and deletes the others, returning how many it deleted.
func Prune(dir string, key []byte, keep int, log *slog.Logger) (int, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if keep < 1 {
		return 0, invalid("BACKUP_KEEP_INVALID", "keep at least one series of backups (got %d)", keep)
	}
	unlock, err := lock(dir)
	if err != nil {
		return 0, err
	}
	defer unlock()
	f, err := Open(dir, key, false)
	if err != nil {
		return 0, err
	}
	var series []string
	for _, p := range f.Manifest.Points {
		if !slices.Contains(series, p.Series) {
			series = append(series, p.Series)
		}
	}
	if len(series) <= keep {
		return 0, nil
	}
	drop := series[:len(series)-keep]
	var kept, dropped []Point
	for _, p := range f.Manifest.Points {
		if slices.Contains(drop, p.Series) {
			dropped = append(dropped, p)
		} else {
			kept = append(kept, p)
		}
	}
	// The manifests first, then the files: a crash between leaves files no manifest names, never the
	// reverse.
	f.Manifest.Points = kept
	if err := f.write(); err != nil {
		return 0, err
	}
	if err := f.reconcile(slog.New(slog.DiscardHandler), ""); err != nil {
		return 0, err
	}
	for _, p := range dropped {
		for _, fl := range p.Files {
			os.Remove(filepath.Join(dir, fl.Path))
		}
		if len(p.Files) > 0 {
			os.Remove(filepath.Join(dir, filepath.Dir(p.Files[0].Path)))
		}
	}
	sort.Strings(drop)
	log.Info("old backups deleted", "dir", dir, "backups", len(dropped), "series", drop)
	return len(dropped), nil
}

// lockWait takes the folder's lock, waiting while another process holds it (a scheduled backup) until
// ctx ends.
func lockWait(ctx context.Context, dir string) (func(), error) {
	for {
		unlock, err := lock(dir)
		var ge *graph.Error
		if !errors.As(err, &ge) || ge.Reason != "BACKUP_BUSY" {
			return unlock, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// folderLocks serialise the goroutines of this process that use a folder (the schedule's backups and
// checks); the lock file keeps other processes out.
var folderLocks sync.Map // absolute folder → *sync.Mutex

// lock takes the folder's lock: it waits for this process's other users of the folder, and fails at once
// when another process holds the folder's lock file.
func lock(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	m, _ := folderLocks.LoadOrStore(abs, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	fd, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		mu.Unlock()
		return nil, err
	}
	if err := syscall.Flock(int(fd.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		fd.Close()
		mu.Unlock()
		return nil, invalid("BACKUP_BUSY", "another process backs up to %s now", dir)
	}
	return func() { syscall.Flock(int(fd.Fd()), syscall.LOCK_UN); fd.Close(); mu.Unlock() }, nil
}
