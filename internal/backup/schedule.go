package backup

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Schedule takes backups on a timer, for `polgraph run` and `serve`: one starts every Every (at once
// when the last took longer), full first and whenever the last full one is FullEvery old, incremental
// otherwise; then the newest Keep series are kept. The recovery point is at most Every plus one backup's
// duration: a backup is recorded as soon as Dgraph has written it, and checked beside the next ones (the
// newest unchecked one at a time, its whole series restored in a scratch Dgraph).
type Schedule struct {
	Dir       string
	Every     time.Duration
	FullEvery time.Duration
	Keep      int // 0: keep all
	Options   Options
	Dgraph    Dgraph
	// Checker restores each backup; a Scratch is started once and kept until Run ends.
	Checker Checker
	// Taken and Failed, when set, hear of each backup, Checked and CheckFailed of each check (for
	// metrics).
	Taken       func(Point)
	Failed      func(error)
	Checked     func(Point, time.Duration)
	CheckFailed func(error)

	mu       sync.Mutex
	status   Status
	lastFull time.Time
	started  time.Time
}

// Status is what the schedule has done, for health reports.
type Status struct {
	// State is the verdict: "ok" (the last backup succeeded, and recently), "pending" (none is due
	// yet), "failed" (the last try failed) or "late" (none has succeeded for two intervals and twice
	// the last backup's duration: backups hang or take too long).
	State         string    `json:"state"`
	Dir           string    `json:"dir"`
	LastSuccess   time.Time `json:"last_success,omitzero"`
	LastBackup    int       `json:"last_backup,omitempty"`
	LastType      string    `json:"last_type,omitempty"`
	LastBytes     int64     `json:"last_bytes,omitempty"`
	LastSeconds   float64   `json:"last_seconds,omitempty"`
	LastError     string    `json:"last_error,omitempty"`
	LastErrorAt   time.Time `json:"last_error_at,omitzero"`
	NextAt        time.Time `json:"next_at,omitzero"`
	FailedInARow  int       `json:"failed_in_a_row,omitempty"`
	EverySeconds  float64   `json:"every_seconds"`
	RecoveryPoint float64   `json:"seconds_since_last_success,omitempty"`
	// The checks: the last backup checked, when and how long it took, and the last check's failure.
	LastChecked       int       `json:"last_checked_backup,omitempty"`
	LastCheckedAt     time.Time `json:"last_checked_at,omitzero"`
	LastCheckSeconds  float64   `json:"last_check_seconds,omitempty"`
	LastCheckError    string    `json:"last_check_error,omitempty"`
	CheckFailedInARow int       `json:"check_failed_in_a_row,omitempty"`
}

// Status reports the schedule's state now.
func (s *Schedule) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status
	st.Dir, st.EverySeconds = s.Dir, s.Every.Seconds()
	since := s.started
	if !st.LastSuccess.IsZero() {
		st.RecoveryPoint = time.Since(st.LastSuccess).Seconds()
		since = st.LastSuccess
	}
	late := 2*s.Every + 2*time.Duration(st.LastSeconds*float64(time.Second))
	switch {
	case st.FailedInARow > 0 || st.CheckFailedInARow > 0:
		st.State = "failed"
	case !since.IsZero() && time.Since(since) > late:
		st.State = "late"
	case st.LastSuccess.IsZero():
		st.State = "pending"
	default:
		st.State = "ok"
	}
	return st
}

// OK says whether the state is one a health check passes: "ok" or "pending".
func (st Status) OK() bool { return st.State == "ok" || st.State == "pending" }

// Run takes backups until ctx ends. A failed backup is logged, reported and tried again at the next tick.
func (s *Schedule) Run(ctx context.Context) {
	if c, ok := s.Checker.(*Scratch); ok {
		defer c.Close()
	}
	log := s.Options.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s.mu.Lock()
	s.started = time.Now()
	s.mu.Unlock()
	if f, err := Open(s.Dir, s.Options.Key, true); err == nil {
		for _, p := range f.Manifest.Points {
			if p.Type == "full" {
				s.lastFull = p.Time
			}
		}
	}
	// The checks run beside the backups; one waiting from before a restart is checked first.
	checks := make(chan struct{}, 1)
	checks <- struct{}{}
	var wg sync.WaitGroup
	defer wg.Wait()
	if s.Checker != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.checkLoop(ctx, checks, log)
		}()
	}
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		started := time.Now()
		if s.once(ctx, log) {
			select {
			case checks <- struct{}{}:
			default:
			}
		}
		next := started.Add(s.Every)
		s.mu.Lock()
		s.status.NextAt = next.UTC()
		s.mu.Unlock()
		t.Reset(max(time.Until(next), 0))
	}
}

// checkLoop checks the newest backup each time one is taken, until ctx ends.
func (s *Schedule) checkLoop(ctx context.Context, checks <-chan struct{}, log *slog.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-checks:
		}
		start := time.Now()
		p, checked, err := CheckLatest(ctx, s.Dir, s.Options.Key, s.Checker)
		d := time.Since(start)
		s.mu.Lock()
		switch {
		case err != nil && ctx.Err() != nil:
		case err != nil:
			s.status.LastCheckError = err.Error()
			s.status.CheckFailedInARow++
			log.Error("the check of a scheduled backup failed", "dir", s.Dir, "backup", p.Num, "err", err, "failed_in_a_row", s.status.CheckFailedInARow)
			if s.CheckFailed != nil {
				s.CheckFailed(err)
			}
		case !checked && !p.IsChecked() && p.Num > 0:
			log.Info("a backup was deleted (--backup-keep) before its check ended", "dir", s.Dir, "backup", p.Num)
		case checked:
			s.status.LastChecked, s.status.LastCheckedAt, s.status.LastCheckSeconds = p.Num, p.Checked, d.Seconds()
			s.status.CheckFailedInARow, s.status.LastCheckError = 0, ""
			log.Info("backup checked", "dir", s.Dir, "backup", p.Num, "graph_version", p.Version, "seconds", d.Seconds())
			if s.Checked != nil {
				s.Checked(p, d)
			}
		}
		s.mu.Unlock()
	}
}

// once takes a backup and says whether it did.
func (s *Schedule) once(ctx context.Context, log *slog.Logger) bool {
	o := s.Options
	o.Full = s.lastFull.IsZero() || (s.FullEvery > 0 && time.Since(s.lastFull) >= s.FullEvery)
	o.CheckLater = s.Checker != nil
	p, err := Take(ctx, s.Dir, o, s.Dgraph, s.Checker)
	if err == nil && s.Keep > 0 {
		_, err = Prune(s.Dir, o.Key, s.Keep, log)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if ctx.Err() != nil {
			return false
		}
		s.status.LastError, s.status.LastErrorAt = err.Error(), time.Now().UTC()
		s.status.FailedInARow++
		log.Error("scheduled backup failed", "dir", s.Dir, "err", err, "failed_in_a_row", s.status.FailedInARow)
		if s.Failed != nil {
			s.Failed(err)
		}
		return false
	}
	if p.Type == "full" {
		s.lastFull = p.Time
	}
	s.status.LastSuccess, s.status.LastBackup, s.status.LastType = p.Time.Add(time.Duration(p.Seconds*float64(time.Second))), p.Num, p.Type
	s.status.LastBytes, s.status.LastSeconds, s.status.FailedInARow = p.Bytes(), p.Seconds, 0
	log.Info("backup taken", "dir", s.Dir, "backup", p.Num, "type", p.Type, "bytes", p.Bytes(), "seconds", p.Seconds)
	if s.Taken != nil {
		s.Taken(p)
	}
	return true
}
