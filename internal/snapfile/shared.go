package snapfile

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// sharedLabel is what a Feed labels the copy it shares with: what a fill must match before fetching it
// (the file's header, but for its time) and the version its last mark brings the graph to.
type sharedLabel struct {
	Format  int
	Shape   string
	Build   string
	GraphID string
	Version int64
}

func (l sharedLabel) text() string {
	b, _ := json.Marshal(l)
	return string(b)
}

// matches says why a copy labelled l cannot serve a fill that wants want ("" when it can).
func (l sharedLabel) matches(want header) string {
	switch {
	case l.Format != want.Format:
		return fmt.Sprintf("format %d, not %d", l.Format, want.Format)
	case l.Shape != want.Shape:
		return "written by code whose records have another shape"
	case l.Build != want.Build:
		return fmt.Sprintf("written by build %q, not %q", l.Build, want.Build)
	case l.GraphID != want.GraphID:
		return fmt.Sprintf("of graph %q, not %q", l.GraphID, want.GraphID)
	}
	return ""
}

func parseLabel(text string) (sharedLabel, error) {
	var l sharedLabel
	err := json.Unmarshal([]byte(text), &l)
	return l, err
}

type fetched struct {
	took  time.Duration
	bytes int64
}

// fetchShared puts the store's shared copy at the file's path, when the store keeps one this fill can
// read back; else it says why not. Called with the file's lock held, when the file at path cannot be read
// back (it is replaced).
func (f *Feed) fetchShared(ctx context.Context, want header) (fetched, string) {
	sh, ok := f.store.(Shared)
	if !ok {
		return fetched{}, "the store keeps no shared copy"
	}
	start := time.Now()
	text, size, err := sh.SharedSnapshot(ctx)
	if err != nil {
		f.log.WarnContext(ctx, "cannot tell whether the store holds a shared snapshot", "err", err)
		return fetched{}, err.Error()
	}
	if text == "" {
		return fetched{}, "the store holds no shared copy"
	}
	label, err := parseLabel(text)
	if err != nil {
		return fetched{}, "the store's shared copy has a label this code cannot read"
	}
	if why := label.matches(want); why != "" {
		return fetched{}, "the store's shared copy is " + why
	}
	current, err := f.store.Version(ctx)
	if err != nil {
		return fetched{}, fmt.Sprintf("cannot read the graph's version: %v", err)
	}
	if current < label.Version {
		return fetched{}, fmt.Sprintf("the store's shared copy holds version %d of the graph, which is at %d", label.Version, current)
	}
	tmp := f.path + ".fetch"
	err = func() error {
		out, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		defer out.Close()
		w := bufio.NewWriterSize(out, 1<<20)
		if err := sh.ReadSharedSnapshot(ctx, text, w); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if err := out.Sync(); err != nil {
			return err
		}
		if err := os.Rename(tmp, f.path); err != nil {
			return err
		}
		if d, err := os.Open(filepath.Dir(f.path)); err == nil {
			d.Sync()
			d.Close()
		}
		return nil
	}()
	if err != nil {
		os.Remove(tmp)
		f.log.WarnContext(ctx, "cannot fetch the store's shared snapshot; filling from the store", "file", f.path, "err", err)
		return fetched{}, "fetching it failed: " + err.Error()
	}
	f.log.InfoContext(ctx, "fetched the store's shared snapshot", "file", f.path, "version", label.Version, "bytes", size,
		"took", time.Since(start).Round(time.Millisecond))
	return fetched{took: time.Since(start), bytes: size}, ""
}

// share starts sharing the file, up to its last mark, with the store, unless the store's copy is this
// graph's, this code's, and as new (another replica may have shared the same version). It runs on its own, reading the file through a handle of its own
// (what a mark closed is never written again); WaitShared waits for it.
func (f *Feed) share(ctx context.Context) {
	sh, ok := f.store.(Shared)
	if !ok || f.out == nil || f.out.tmp || f.id == "" {
		return
	}
	if f.sharing != nil {
		select {
		case <-f.sharing:
		default:
			// An earlier share is still going: this one is made at the first catch-up after it ends
			// (where the store's copy is then as new, it is not).
			f.retryShareAt = time.Now()
			return
		}
	}
	m := f.out.marked()
	f.sharedAt = m.end
	label := sharedLabel{Format: formatVersion, Shape: changedShape, Build: thisBuild, GraphID: f.id, Version: m.version}
	file, err := os.Open(f.path)
	if err != nil {
		f.log.WarnContext(ctx, "cannot share the graph's snapshot file", "file", f.path, "err", err)
		return
	}
	done := make(chan struct{})
	f.sharing, f.shareErr, f.lastShare, f.retryShareAt = done, nil, Share{}, time.Time{}
	ctx = context.WithoutCancel(ctx) // the fill's context may end with it; Close waits for the share
	go func() {
		defer close(done)
		defer file.Close()
		err := func() error {
			text, _, err := sh.SharedSnapshot(ctx)
			if err != nil {
				return err
			}
			if text != "" {
				if held, err := parseLabel(text); err == nil && held.matches(header{Format: label.Format, Shape: label.Shape, Build: label.Build, GraphID: label.GraphID}) == "" && held.Version >= label.Version {
					return nil // as new as this one
				}
			}
			start := time.Now()
			if err := sh.ShareSnapshot(ctx, label.text(), io.NewSectionReader(file, 0, m.end)); err != nil {
				return err
			}
			took := time.Since(start)
			f.log.InfoContext(ctx, "shared the graph's snapshot file with the store, for fills with no file of their own",
				"file", f.path, "version", m.version, "bytes", m.end, "took", took.Round(time.Millisecond))
			f.mu.Lock()
			f.lastShare = Share{Version: m.version, Bytes: m.end, Took: took}
			f.mu.Unlock()
			return nil
		}()
		f.mu.Lock()
		f.shareErr = err
		if err != nil {
			f.retryShareAt = time.Now().Add(shareRetryAfter)
		}
		f.mu.Unlock()
		if err != nil {
			f.log.WarnContext(ctx, "cannot share the graph's snapshot file with the store; trying again later", "file", f.path, "err", err, "after", shareRetryAfter)
		}
	}()
}

// Share says what the last fill's share wrote: nothing (Bytes 0) when the store's copy was as new.
type Share struct {
	Version, Bytes int64
	Took           time.Duration
}

// LastShare says what the share the last fill started wrote, once WaitShared returned.
func (f *Feed) LastShare() Share {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastShare
}

// WaitShared waits until the share the last fill started, if any, is over, and says how it went.
func (f *Feed) WaitShared() error {
	f.mu.Lock()
	done := f.sharing
	f.mu.Unlock()
	if done == nil {
		return nil
	}
	<-done
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.shareErr
}
