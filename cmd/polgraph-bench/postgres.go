package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/polgraph/polgraph/graph"
)

// The PostgreSQL peer: what a team would build instead of polgraph with the usual tools. The graph is an
// edge table, each relation stored as two arcs (the graph is walked undirected), with the columns the
// default filter reads; the filter is applied by every query. Shortest paths are a bidirectional
// breadth-first search with one query per level, k paths Yen's algorithm over it, neighbourhoods one
// query of lateral joins capped per entity, and typo search pg_trgm's similarity over a trigram index.
// Like raw Dgraph's rows, it returns path lengths and neighbourhood names, no evidence.

// pgFilter is polgraph's default filter as SQL over an arc's columns (alias a): a relation counts when a
// claim of a counted status supports it, and only through a confirmed claim when a claim denies it
// (graph.RelationFilter.Counts with no status asked for). A confidence of -1 is no claim of that status.
const pgFilter = `(CASE WHEN a.denied >= 0 THEN a.confirmed >= 0 ELSE greatest(a.alleged, a.reported, a.confirmed) >= 0 END)`

const pgSchema = `
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE TABLE entity (id int4 PRIMARY KEY, name text NOT NULL, display text NOT NULL, kind text NOT NULL);
CREATE TABLE arc (src int4 NOT NULL, dst int4 NOT NULL, rel int4 NOT NULL, type text NOT NULL,
	alleged real NOT NULL, reported real NOT NULL, confirmed real NOT NULL, denied real NOT NULL);`

// pgIndexes are run one by one: VACUUM cannot run inside the transaction a multi-statement Exec is.
var pgIndexes = []string{
	`CREATE INDEX arc_src ON arc (src) INCLUDE (dst, rel, alleged, reported, confirmed, denied)`,
	`CREATE INDEX entity_display_trgm ON entity USING gin (display gin_trgm_ops)`,
	`VACUUM (ANALYZE) arc`,
	`VACUUM (ANALYZE) entity`,
}

// pgServer is a PostgreSQL server started for one size of the benchmark, on loopback, with its data in a
// folder of its own that stop removes.
type pgServer struct {
	dir     string
	cmd     *exec.Cmd
	done    chan error
	pool    *pgxpool.Pool
	Version string
}

// postgresBin finds PostgreSQL's server programs: $POLGRAPH_PG_BIN, else the newest of Debian's
// /usr/lib/postgresql/*/bin, else the folder of initdb on PATH.
func postgresBin() (string, error) {
	if d := os.Getenv("POLGRAPH_PG_BIN"); d != "" {
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return vb - va
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("no PostgreSQL server programs (initdb, postgres): install Debian's postgresql package (make postgres), or set POLGRAPH_PG_BIN")
}

// startPostgres creates a cluster in a new folder under workDir and starts its server on a free loopback
// port. PostgreSQL refuses to run as root: as root, it runs as the postgres user.
func startPostgres(ctx context.Context, workDir string) (*pgServer, error) {
	bin, err := postgresBin()
	if err != nil {
		return nil, err
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("PostgreSQL does not run as root, and there is no postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		workDir = os.TempDir() // a folder the postgres user can reach
	}
	dir, err := os.MkdirTemp(workDir, "polgraph-bench-pg-")
	if err != nil {
		return nil, err
	}
	s := &pgServer{dir: dir}
	fail := func(err error) (*pgServer, error) {
		s.stop()
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fail(err)
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", data, "-U", "bench", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("initdb: %v\n%s", err, tail(string(out), 2000)))
	}
	addr, err := freeAddr()
	if err != nil {
		return fail(err)
	}
	_, port, _ := strings.Cut(addr, ":")
	s.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", port,
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+dir,
		"-c", "max_connections=100", "-c", "shared_buffers=512MB", "-c", "jit=off",
		// Durability off, as for a bulk load into a database that is thrown away afterwards.
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	// Its own process group (a Ctrl-C of the harness is not its fast shutdown), and an immediate shutdown
	// when the harness dies.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGQUIT}
	logFile, err := os.Create(filepath.Join(dir, "postgres.log"))
	if err != nil {
		return fail(err)
	}
	defer logFile.Close()
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	if err := s.cmd.Start(); err != nil {
		return fail(fmt.Errorf("starting postgres: %w", err))
	}
	s.done = make(chan error, 1)
	go func() { s.done <- s.cmd.Wait() }()
	cfg, err := pgxpool.ParseConfig(fmt.Sprintf("postgres://bench@127.0.0.1:%s/postgres?sslmode=disable", port))
	if err != nil {
		return fail(err)
	}
	cfg.MaxConns = 80
	for i := 0; ; i++ {
		if s.pool, err = pgxpool.NewWithConfig(ctx, cfg); err == nil {
			if err = s.pool.Ping(ctx); err == nil {
				break
			}
			s.pool.Close()
			s.pool = nil
		}
		select {
		case err := <-s.done:
			log, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
			s.done <- err
			return fail(fmt.Errorf("postgres exited (%v):\n%s", err, tail(string(log), 2000)))
		case <-time.After(100 * time.Millisecond):
		}
		if i == 300 {
			return fail(fmt.Errorf("postgres did not answer within 30 s: %w", err))
		}
	}
	if err := s.pool.QueryRow(ctx, `SHOW server_version`).Scan(&s.Version); err != nil {
		return fail(err)
	}
	return s, nil
}

// stop ends the server and removes its folder.
func (s *pgServer) stop() {
	if s.pool != nil {
		s.pool.Close()
	}
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGINT) // fast shutdown
		select {
		case <-s.done:
		case <-time.After(20 * time.Second):
			s.cmd.Process.Kill()
			<-s.done
		}
	}
	os.RemoveAll(s.dir)
}

// pgLoad is what loading the graph into PostgreSQL measured.
type pgLoad struct {
	Version       string
	Copy, Indexes time.Duration // COPY of both tables; the indexes and statistics after it
	Arcs          int64
}

// load writes the entities (numbered as in g) and each relation as two arcs, then builds the indexes.
func (s *pgServer) load(ctx context.Context, g *memGraph, entities []graph.Entity, relations []graph.Relation) (pgLoad, error) {
	res := pgLoad{Version: s.Version}
	if _, err := s.pool.Exec(ctx, pgSchema); err != nil {
		return res, fmt.Errorf("PostgreSQL schema: %w", err)
	}
	start := time.Now()
	if _, err := s.pool.CopyFrom(ctx, pgx.Identifier{"entity"}, []string{"id", "name", "display", "kind"},
		pgx.CopyFromSlice(len(entities), func(i int) ([]any, error) {
			e := entities[i]
			return []any{g.index[e.Name], string(e.Name), e.DisplayName, string(e.Kind)}, nil
		})); err != nil {
		return res, fmt.Errorf("PostgreSQL COPY entity: %w", err)
	}
	n, err := s.pool.CopyFrom(ctx, pgx.Identifier{"arc"}, []string{"src", "dst", "rel", "type", "alleged", "reported", "confirmed", "denied"},
		pgx.CopyFromSlice(2*len(relations), func(i int) ([]any, error) {
			r := relations[i/2]
			a, b := g.index[r.From], g.index[r.To]
			if i%2 == 1 {
				a, b = b, a
			}
			sup := r.Link().Support
			return []any{a, b, int32(i / 2), string(r.Type), float32(sup[0]), float32(sup[1]), float32(sup[2]), float32(sup[3])}, nil
		}))
	if err != nil {
		return res, fmt.Errorf("PostgreSQL COPY arc: %w", err)
	}
	res.Arcs, res.Copy = n, time.Since(start)
	start = time.Now()
	for _, q := range pgIndexes {
		if _, err := s.pool.Exec(ctx, q); err != nil {
			return res, fmt.Errorf("PostgreSQL %q: %w", q, err)
		}
	}
	res.Indexes = time.Since(start)
	return res, nil
}

// pgArc is one arc a level's query read.
type pgArc struct{ src, dst, rel int32 }

const pgArcsQuery = `SELECT a.src, a.dst, a.rel FROM arc a WHERE a.src = ANY($1) AND ` + pgFilter

// arcs reads every counted arc leaving the nodes of front, in one query.
func (s *pgServer) arcs(ctx context.Context, front []int32) ([]pgArc, error) {
	rows, err := s.pool.Query(ctx, pgArcsQuery, front)
	if err != nil {
		return nil, err
	}
	var out []pgArc
	var a pgArc
	_, err = pgx.ForEachRow(rows, []any{&a.src, &a.dst, &a.rel}, func() error {
		out = append(out, a)
		return nil
	})
	return out, err
}

// pgSide is one end of a bidirectional search: each reached node's parent, relation and distance.
type pgSide struct {
	par, rel, dist map[int32]int32
	front          []int32
	depth          int
}

func newPGSide(root int32) *pgSide {
	return &pgSide{par: map[int32]int32{root: -1}, rel: map[int32]int32{}, dist: map[int32]int32{root: 0}, front: []int32{root}}
}

// shortest finds a shortest path from s to t of at most limit hops avoiding bans, by breadth-first search
// from both ends: each round reads the whole level of the smaller side in one query.
func (s *pgServer) shortest(ctx context.Context, from, to int32, limit int, bans spurBans) (memPath, bool, error) {
	S, T := newPGSide(from), newPGSide(to)
	for S.depth+T.depth < limit && len(S.front) > 0 && len(T.front) > 0 {
		fromS := len(S.front) <= len(T.front)
		cur, other := S, T
		if !fromS {
			cur, other = T, S
		}
		arcs, err := s.arcs(ctx, cur.front)
		if err != nil {
			return memPath{}, false, err
		}
		var next []int32
		meet, best := int32(-1), 1<<30
		for _, a := range arcs {
			hop := [2]int32{a.src, a.dst} // as the path walks it
			if !fromS {
				hop = [2]int32{a.dst, a.src}
			}
			if _, seen := cur.par[a.dst]; seen || slices.Contains(bans.nodes, a.dst) ||
				slices.Contains(bans.hops, hop) || slices.Contains(bans.rels, a.rel) {
				continue
			}
			cur.par[a.dst], cur.rel[a.dst], cur.dist[a.dst] = a.src, a.rel, int32(cur.depth+1)
			next = append(next, a.dst)
			if d, ok := other.dist[a.dst]; ok && cur.depth+1+int(d) < best {
				meet, best = a.dst, cur.depth+1+int(d)
			}
		}
		cur.front, cur.depth = next, cur.depth+1
		if meet >= 0 {
			return joinSides(S, T, meet), true, nil
		}
	}
	return memPath{}, false, nil
}

// joinSides is the path from S's root through m to T's root.
func joinSides(S, T *pgSide, m int32) memPath {
	var p memPath
	v := m
	for ; S.par[v] >= 0; v = S.par[v] {
		p.nodes = append(p.nodes, v)
		p.rels = append(p.rels, S.rel[v])
	}
	p.nodes = append(p.nodes, v)
	slices.Reverse(p.nodes)
	slices.Reverse(p.rels)
	for v := m; T.par[v] >= 0; v = T.par[v] {
		p.rels = append(p.rels, T.rel[v])
		p.nodes = append(p.nodes, T.par[v])
	}
	return p
}

// kShortest returns the lengths of the k shortest routes (told apart by their entities, as polgraph's)
// from s to t of at most bound hops.
func (s *pgServer) kShortest(ctx context.Context, from, to int32, k, bound int) ([]int, error) {
	found, err := yen(from, to, k, bound, true, func(a, b int32, limit int, bans spurBans) (memPath, bool, error) {
		return s.shortest(ctx, a, b, limit, bans)
	})
	return pathLengths(found), err
}

// pgNeighbourhoodQuery reads a depth-2 neighbourhood in one query: up to $2 neighbours of the centre $1,
// then up to $2 neighbours of each of them, each with its display name.
const pgNeighbourhoodQuery = `
WITH n1 AS (
	SELECT DISTINCT a.dst FROM arc a WHERE a.src = $1 AND a.dst <> $1 AND ` + pgFilter + ` LIMIT $2
), n2 AS (
	SELECT n1.dst AS via, l.dst FROM n1 CROSS JOIN LATERAL (
		SELECT DISTINCT a.dst FROM arc a WHERE a.src = n1.dst AND a.dst <> $1 AND ` + pgFilter + ` LIMIT $2) l
	WHERE $3 >= 2
)
SELECT 1, n1.dst, e.display FROM n1 JOIN entity e ON e.id = n1.dst
UNION ALL
SELECT 2, n2.dst, e.display FROM n2 JOIN entity e ON e.id = n2.dst
ORDER BY 1`

// neighbourhood returns how many entities the capped neighbourhood of depth 1 or 2 around c holds, at
// most maxNodes with c.
func (s *pgServer) neighbourhood(ctx context.Context, c int32, depth, perNode, maxNodes int) (int, error) {
	rows, err := s.pool.Query(ctx, pgNeighbourhoodQuery, c, perNode, depth)
	if err != nil {
		return 0, err
	}
	seen := map[int32]bool{c: true}
	var (
		level int32
		id    int32
		name  string
	)
	_, err = pgx.ForEachRow(rows, []any{&level, &id, &name}, func() error {
		if len(seen) < maxNodes {
			seen[id] = true
		}
		return nil
	})
	return len(seen), err
}

const pgSearchQuery = `SELECT name FROM entity WHERE display % $1 ORDER BY similarity(display, $1) DESC, name LIMIT $2`

// search returns the names of the entities whose display name is most like text by pg_trgm.
func (s *pgServer) search(ctx context.Context, text string, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, pgSearchQuery, text, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
