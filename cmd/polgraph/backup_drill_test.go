package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/internal/backup"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
)

// runUntil starts `polgraph run` on the data folder dir and returns its gRPC address and a function that
// stops it, as the death of its machine would (the context ends; nothing is flushed on purpose).
func runUntil(t *testing.T, dir string, offset int, args ...string) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- runAll(ctx, append([]string{"--data-dir", dir, "--addr", "127.0.0.1:0", "--http", "", "--dgraph-port-offset", strconv.Itoa(offset), "--log-level", "warn"}, args...), w, io.Discard)
		w.Close()
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("run ended with %v", err)
			}
		})
	}
	t.Cleanup(stop)
	serving := regexp.MustCompile(`serving on (\S+);`)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if m := serving.FindStringSubmatch(sc.Text()); m != nil {
			go io.Copy(io.Discard, r)
			return m[1], stop
		}
	}
	t.Fatalf("run did not serve: %v", <-done)
	return "", nil
}

// TestBackupDrill is the backup drill (`make drill-backup`): `polgraph run` on the default graph takes
// incremental backups every POLGRAPH_DRILL_BACKUP_EVERY (default 10s) under a steady write load for
// POLGRAPH_DRILL_BACKUP_LOAD (default 35s); then its data folder is wiped, the latest backup restored into
// a new one and run started on it. It reports what was lost (the writes acknowledged after the last
// backup began: the recovery point) and how long nothing answered (the recovery time), and fails if a
// write acknowledged before the last backup began is missing.
func TestBackupDrill(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Dgraph")
	}
	every, load := 10*time.Second, 35*time.Second
	for env, d := range map[string]*time.Duration{"POLGRAPH_DRILL_BACKUP_EVERY": &every, "POLGRAPH_DRILL_BACKUP_LOAD": &load} {
		if v := os.Getenv(env); v != "" {
			var err error
			if *d, err = time.ParseDuration(v); err != nil {
				t.Fatalf("$%s: %v", env, err)
			}
		}
	}
	root := t.TempDir()
	data, backups := filepath.Join(root, "data"), filepath.Join(root, "backups")
	offset, err := dgraphlocal.FreeOffset(2600 + os.Getpid()%50*7)
	if err != nil {
		t.Fatal(err)
	}
	addr, stop := runUntil(t, data, offset, "--backup-dir", backups, "--backup-every", every.String(), "--write-rate", "1000", "--write-burst", "1000")
	flags := []string{"--dgraph", "127.0.0.1:" + strconv.Itoa(9080+offset), "--data-dir", data}
	var out bytes.Buffer
	if err := realMain(context.Background(), append([]string{"keys", "create", "--name", "drill", "--role", "editor"}, flags...), &out, &out); err != nil {
		t.Fatal(err, out.String())
	}
	key := regexp.MustCompile(`key: +(\S+)`).FindStringSubmatch(out.String())[1]
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	writer := pb.NewWriteServiceClient(conn)

	type ack struct {
		name string
		at   time.Time
	}
	var acked []ack
	failed := 0
	wctx, wcancel := context.WithTimeout(context.Background(), load)
	defer wcancel()
	for n := 0; wctx.Err() == nil; n++ {
		name := fmt.Sprintf("actors/backup-drill-%d", n)
		cctx, ccancel := context.WithTimeout(withKey(context.Background(), key), 5*time.Second)
		_, err := writer.UpsertEntities(cctx, &pb.UpsertEntitiesRequest{Entities: []*pb.EntityRecord{{Name: name, DisplayName: "Backup Drill " + strconv.Itoa(n)}}})
		ccancel()
		if err != nil {
			failed++
			time.Sleep(10 * time.Millisecond)
			continue
		}
		acked = append(acked, ack{name, time.Now()})
	}

	// The disk dies: polgraph and Dgraph stop, and the data folder is gone.
	wiped := time.Now()
	stop()
	if err := os.RemoveAll(data); err != nil {
		t.Fatal(err)
	}
	f, err := backup.Open(backups, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	last, _ := f.Point(0)
	out.Reset()
	stopped := time.Since(wiped)
	if err := realMain(context.Background(), []string{"restore", "--data-dir", data, "--dgraph-port-offset", strconv.Itoa(offset), "--log-level", "warn", backups}, &out, &out); err != nil {
		t.Fatal(err, out.String())
	}
	restored := time.Since(wiped)
	addr, _ = runUntil(t, data, offset, "--dataset", "none")
	recovery := time.Since(wiped)

	conn2, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	reader := pb.NewGraphServiceClient(conn2)
	lost, lostBefore := 0, 0
	var firstLost time.Time
	for _, a := range acked {
		_, err := reader.GetEntity(context.Background(), &pb.GetEntityRequest{Name: a.name})
		if err == nil {
			continue
		}
		lost++
		if firstLost.IsZero() {
			firstLost = a.at
		}
		if a.at.Before(last.Time) {
			lostBefore++
			t.Errorf("%s, acknowledged %v before the last backup began, is missing: %v", a.name, last.Time.Sub(a.at), err)
		}
	}
	window := wiped.Sub(last.Time)
	t.Logf("backup drill: backups every %v under %v of writes (%d acknowledged, %d failed), %d backups taken (last: %s, %s, %.1fs)",
		every, load, len(acked), failed, len(f.Manifest.Points), last.Type, byteSize(last.Bytes()), last.Seconds)
	t.Logf("recovery point: %d of %d acknowledged writes lost, all acknowledged in the %.1fs between the last backup's start and the wipe",
		lost, len(acked), window.Seconds())
	t.Logf("recovery time: polgraph and Dgraph stopped in %.1fs, restored %.1fs after the wipe (%s), serving again %.1fs after it",
		stopped.Seconds(), restored.Seconds(), bytes.TrimSpace(out.Bytes()), recovery.Seconds())
	if lostBefore > 0 {
		t.Errorf("%d writes acknowledged before the last backup began are lost", lostBefore)
	}
	// Backups start every interval; one under way when the disk dies adds its duration.
	if window > every+15*time.Second {
		t.Errorf("the last backup began %v before the wipe, more than the interval %v and 15 s", window, every)
	}
}
