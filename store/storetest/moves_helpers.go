package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

func str(s string) *string { return &s }

func num(n int) *int { return &n }

// update edits a record through the service and fails the test on an error.
func (f *fixture) update(ws, id core.ID, p core.Patch) core.Record {
	f.t.Helper()
	rec, err := f.svc.Update(f.ctx, ws, id, p, "")
	if err != nil {
		f.t.Fatalf("update %s: %v", id, err)
	}
	return rec
}

// link links a feedback to a target through the service and fails the test on an error.
func (f *fixture) link(ws, fb, target core.ID, importance *int) core.Record {
	f.t.Helper()
	rec, err := f.svc.Link(f.ctx, ws, fb, target, importance)
	if err != nil {
		f.t.Fatalf("link %s to %s: %v", fb, target, err)
	}
	return rec
}

// read reads a record from the store and fails the test on an error.
func (f *fixture) read(ws, id core.ID) core.Record {
	f.t.Helper()
	rec, err := f.st.Record(f.ctx, ws, id)
	if err != nil {
		f.t.Fatalf("read %s: %v", id, err)
	}
	return rec
}

// idea submits an Idea or Feature with a title.
func (f *fixture) idea(ws core.ID, typ core.RecordType, title, email string) core.Record {
	f.t.Helper()
	return f.submit(ws, core.Submission{Type: typ, Title: title, CustomerEmail: email}).Record
}

// wantField fails the test unless err is a validation error about field.
func wantField(t *testing.T, what string, err error, field string) {
	t.Helper()
	var ve *core.ValidationError
	if !errors.As(err, &ve) || ve.Field != field {
		t.Fatalf("%s: want a validation error naming %q, got %v", what, field, err)
	}
}

// flushIndex writes a store's queued full-text entries, where it queues them, so that a test reaches the
// indexed search path as well as the queued one.
func (f *fixture) flushIndex() {
	f.t.Helper()
	if fl, ok := f.st.(interface{ FlushIndex(context.Context) error }); ok {
		noErr(f.t, "flush index", fl.FlushIndex(f.ctx))
	}
}

// raceUpdates makes the edits ps of one record at once, all from the reading whose ETag is etag, and counts
// those written and those refused with ErrPrecondition; any other answer fails the test.
func (f *fixture) raceUpdates(t *testing.T, ws, id core.ID, etag string, ps []core.Patch) (won, stale int) {
	t.Helper()
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	for _, p := range ps {
		wg.Go(func() {
			_, err := f.svc.Update(f.ctx, ws, id, p, etag)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case errors.Is(err, core.ErrPrecondition):
				stale++
			default:
				t.Errorf("update: %v", err)
			}
		})
	}
	wg.Wait()
	return won, stale
}
