package suggest

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// clock is a settable time shared by the services (which stamp updatedAt) and the index.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// replicas is one SQLite store shared by two services: "here" answers suggestions through x, "there"
// writes as another replica would, unseen by x until it reads the store.
type replicas struct {
	clk         *clock
	x           *Index
	here, there *core.Service
	ws          core.ID
}

func newReplicas(t *testing.T, o Options) *replicas {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r := &replicas{clk: &clock{t: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}}
	o.Now = r.clk.now
	r.x = New(st, o)
	r.here = core.NewService(st, core.Options{Now: r.clk.now, Matcher: r.x})
	r.there = core.NewService(st, core.Options{Now: r.clk.now})
	ws, err := r.here.CreateWorkspace(context.Background(), "Acme", core.PlanBusiness, 0)
	if err != nil {
		t.Fatal(err)
	}
	r.ws = ws.ID
	return r
}

func (r *replicas) idea(t *testing.T, svc *core.Service, ws core.ID, title string) core.Record {
	t.Helper()
	res, err := svc.Submit(context.Background(), ws, core.Submission{Type: core.RecordIdea, Title: title})
	if err != nil {
		t.Fatal(err)
	}
	return res.Record
}

// finds reports whether a query for text in ws ranks id anywhere.
func (r *replicas) finds(t *testing.T, ws core.ID, text string, id core.ID) bool {
	t.Helper()
	ms, err := r.x.Match(context.Background(), ws, core.MatchQuery{Text: text, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.ID == id {
			return true
		}
	}
	return false
}

func TestIndexFreshness(t *testing.T) {
	t.Run("another replica's write is read after Refresh", func(t *testing.T) {
		r := newReplicas(t, Options{Refresh: 2 * time.Second})
		dark := r.idea(t, r.there, r.ws, "Dark mode")
		if !r.finds(t, r.ws, "a night theme please", dark.ID) {
			t.Fatal("first query does not find what the store held")
		}
		csv := r.idea(t, r.there, r.ws, "Export to CSV")
		if r.finds(t, r.ws, "download a spreadsheet", csv.ID) {
			t.Fatal("found before any refresh: the test does not test the refresh")
		}
		r.clk.add(2 * time.Second)
		r.finds(t, r.ws, "download a spreadsheet", csv.ID) // notices, and reads in the background
		r.x.wait()
		if !r.finds(t, r.ws, "download a spreadsheet", csv.ID) {
			t.Error("not found after the refresh")
		}
	})
	t.Run("this replica's write is found at once", func(t *testing.T) {
		r := newReplicas(t, Options{})
		r.idea(t, r.here, r.ws, "Dark mode")
		r.finds(t, r.ws, "warm up", "")
		csv := r.idea(t, r.here, r.ws, "Export to CSV")
		if !r.finds(t, r.ws, "download a spreadsheet", csv.ID) {
			t.Error("not found")
		}
	})
	t.Run("a record stamped before the overlap is read by the rebuild", func(t *testing.T) {
		r := newReplicas(t, Options{Refresh: time.Second, Rebuild: 5 * time.Minute})
		r.finds(t, r.ws, "warm up", "")
		// A replica whose clock is behind stamps the record earlier than the last read minus Overlap.
		r.clk.add(-2 * Overlap)
		late := r.idea(t, r.there, r.ws, "Export to CSV")
		r.clk.add(2*Overlap + time.Second)
		r.finds(t, r.ws, "download a spreadsheet", late.ID)
		r.x.wait()
		if r.finds(t, r.ws, "download a spreadsheet", late.ID) {
			t.Fatal("the refresh read it: the test does not test the rebuild")
		}
		r.clk.add(5 * time.Minute)
		r.finds(t, r.ws, "download a spreadsheet", late.ID)
		r.x.wait()
		if !r.finds(t, r.ws, "download a spreadsheet", late.ID) {
			t.Error("not found after the rebuild")
		}
	})
	t.Run("a first build outlives the request that started it", func(t *testing.T) {
		r := newReplicas(t, Options{})
		dark := r.idea(t, r.here, r.ws, "Dark mode")
		gone, cancel := context.WithCancel(context.Background())
		cancel()
		// The answer may be the cancellation or, when the build wins the race, a result; either is fine.
		_, _ = r.x.Match(gone, r.ws, core.MatchQuery{Text: "night theme", Limit: 3})
		r.x.wait()
		r.x.mu.Lock()
		w := r.x.ws[r.ws]
		r.x.mu.Unlock()
		w.mu.RLock()
		built := w.ix != nil
		w.mu.RUnlock()
		if !built {
			t.Fatal("the build stopped with the request")
		}
		if !r.finds(t, r.ws, "night theme", dark.ID) {
			t.Error("not found")
		}
	})
	t.Run("an edit replaces the text and a merge removes it", func(t *testing.T) {
		r := newReplicas(t, Options{})
		rec := r.idea(t, r.here, r.ws, "Dark mode")
		r.finds(t, r.ws, "warm up", "")
		rec.Title, rec.UpdatedAt = "Export to CSV", rec.UpdatedAt.Add(time.Second)
		r.x.Changed(r.ws, rec)
		if r.finds(t, r.ws, "night theme", rec.ID) || !r.finds(t, r.ws, "spreadsheet download", rec.ID) {
			t.Error("the edit was not applied")
		}
		rec.Status, rec.UpdatedAt = "Merged", rec.UpdatedAt.Add(time.Second)
		r.x.Changed(r.ws, rec)
		if r.finds(t, r.ws, "spreadsheet download", rec.ID) {
			t.Error("a merged record is still indexed")
		}
	})
}

func TestIndexWorkspaces(t *testing.T) {
	r := newReplicas(t, Options{MaxWorkspaces: 1})
	ctx := context.Background()
	other, err := r.here.CreateWorkspace(ctx, "Other", core.PlanBusiness, 0)
	if err != nil {
		t.Fatal(err)
	}
	mine := r.idea(t, r.here, r.ws, "Dark mode")
	theirs := r.idea(t, r.here, other.ID, "Dark mode")
	if !r.finds(t, r.ws, "night theme", mine.ID) || r.finds(t, r.ws, "night theme", theirs.ID) {
		t.Error("workspace 1 does not see exactly its own idea")
	}
	if !r.finds(t, other.ID, "night theme", theirs.ID) || r.finds(t, other.ID, "night theme", mine.ID) {
		t.Error("workspace 2 does not see exactly its own idea")
	}
	r.x.mu.Lock()
	_, kept := r.x.ws[other.ID]
	n := len(r.x.ws)
	r.x.mu.Unlock()
	if n != 1 || !kept {
		t.Errorf("%d indexes held (the last used kept: %v), want 1", n, kept)
	}
	if !r.finds(t, r.ws, "night theme", mine.ID) {
		t.Error("an evicted workspace is not built again")
	}
}
