package sqlite

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// fillY writes n Feedback records into a new workspace of st, each holding "yyy" (a run of y shorter than
// any long search) so that a search for many y's finds every record a candidate and none a match.
func fillY(t *testing.T, st *Store, n int) core.ID {
	t.Helper()
	ctx := t.Context()
	ws := core.Workspace{ID: core.NewID(), Name: "yyy", Plan: core.PlanBusiness, CreatedAt: time.Now()}
	if err := st.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Duration(n) * time.Second)
	for i := 0; i < n; i += 1000 {
		var batch []core.NewRecord
		for j := i; j < min(i+1000, n); j++ {
			at := base.Add(time.Duration(j) * time.Second)
			title := fmt.Sprintf("record %d says yyyy and more", j)
			batch = append(batch, core.NewRecord{ID: core.NewIDAt(at), Type: core.RecordFeedback, Title: title,
				SearchText: core.Fold(title), Status: core.StatusTriage, Source: "API", CreatedAt: at, UpdatedAt: at})
		}
		if _, err := st.CreateRecords(ctx, ws.ID, batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.FlushIndex(ctx); err != nil {
		t.Fatal(err)
	}
	return ws.ID
}

// TestLongSearchTermIsShaped: a search term of 1,000 characters becomes a bounded full-text query of
// distinct trigrams, and still finds exactly the records that hold it.
func TestLongSearchTermIsShaped(t *testing.T) {
	ys := strings.Repeat("y", 1000)
	rng := rand.New(rand.NewPCG(3, 4))
	var sb strings.Builder
	for range 1000 {
		sb.WriteByte("abcdefghijklmnopqrstuvwxyz0123456789 "[rng.IntN(37)])
	}
	mixed := strings.TrimSpace(sb.String())
	for _, term := range []string{ys, mixed} {
		q := trigramQuery(term)
		if n := strings.Count(q, " AND ") + 1; n > maxTrigrams {
			t.Errorf("a %d-character term makes %d full-text terms, want at most %d: %.80s…", len([]rune(term)), n, maxTrigrams, q)
		}
	}
	equal(t, "a run of one letter is one trigram", trigramQuery(ys), `"yyy"`)

	st := openT(t, filepath.Join(t.TempDir(), "shape.db"))
	ws := fillY(t, st, 50)
	ctx := t.Context()
	long := "ticket " + mixed + " end"
	for _, title := range []string{long, ys, mixed[:999]} {
		at := time.Now()
		if _, err := st.CreateRecords(ctx, ws, []core.NewRecord{{ID: core.NewIDAt(at), Type: core.RecordFeedback, Title: title,
			SearchText: core.Fold(title), Status: core.StatusTriage, Source: "API", CreatedAt: at, UpdatedAt: at}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, flush := range []bool{false, true} { // the indexer's queue, then the index
		if flush {
			if err := st.FlushIndex(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for term, want := range map[string][]string{mixed: {long}, ys: {ys}, mixed[1:] + " e": {long}, ys[1:]: {ys}} {
			recs, err := st.Records(ctx, ws, core.ListQuery{Type: core.RecordFeedback, Search: term, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range recs {
				got = append(got, r.Title)
			}
			equal(t, fmt.Sprintf("search for %.20s… (indexed %v)", term, flush), got, want)
		}
	}
}

// TestQueryDeadlineFires: a listing that runs past the store's own limit is interrupted and reported as
// unavailable, one that runs past the caller's deadline ends with it, and the readers serve on afterwards.
func TestQueryDeadlineFires(t *testing.T) {
	st := openT(t, filepath.Join(t.TempDir(), "deadline.db"))
	ws := fillY(t, st, 20_000)
	ctx := t.Context()
	slow := core.ListQuery{Type: core.RecordFeedback, Search: strings.Repeat("y", 1000), Limit: 1}

	st.readLimit = time.Millisecond
	_, err := st.Records(ctx, ws, slow)
	if !errors.Is(err, core.ErrUnavailable) {
		t.Fatalf("a search past the store's limit: want ErrUnavailable, got %v", err)
	}
	st.readLimit = readLimit

	short, cancel := context.WithTimeout(ctx, time.Millisecond)
	defer cancel()
	_, err = st.Records(short, ws, slow)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a search past the caller's deadline: want context.DeadlineExceeded, got %v", err)
	}

	recs, err := st.Records(ctx, ws, core.ListQuery{Type: core.RecordFeedback, Limit: 3})
	if err != nil || len(recs) != 3 {
		t.Fatalf("listing after interrupted searches: %d records, %v", len(recs), err)
	}
	recs, err = st.Records(ctx, ws, core.ListQuery{Type: core.RecordFeedback, Search: "record 19999 says", Limit: 3})
	if err != nil || len(recs) != 1 {
		t.Fatalf("search after interrupted searches: %d records, %v", len(recs), err)
	}
}

// TestSearchesKeepToTheirShare: while one workspace's searches hold its turn and every search reader, its
// next search waits (and ends with its deadline), another workspace's search still runs, and plain
// listings never wait for search readers.
func TestSearchesKeepToTheirShare(t *testing.T) {
	st := openT(t, filepath.Join(t.TempDir(), "share.db"))
	busy, other := fillY(t, st, 100), fillY(t, st, 100)
	ctx := t.Context()

	leave, err := st.searches.Enter(ctx, string(busy))
	if err != nil {
		t.Fatal(err)
	}
	defer leave()
	waiting, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := st.Records(waiting, busy, core.ListQuery{Type: core.RecordFeedback, Search: "yyy", Limit: 1}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a second search of the same workspace: want it to wait its turn, got %v", err)
	}
	recs, err := st.Records(ctx, other, core.ListQuery{Type: core.RecordFeedback, Search: "record 7 says", Limit: 5})
	if err != nil || len(recs) != 1 {
		t.Fatalf("another workspace's search: %d records, %v", len(recs), err)
	}

	// Every search reader taken: plain listings and key lookups run on the main pool regardless.
	var conns []func() error
	for range searchReaders {
		c, err := st.sr.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c.Close)
	}
	defer func() {
		for _, c := range conns {
			c()
		}
	}()
	listing, cancel2 := context.WithTimeout(ctx, 5*time.Second)
	defer cancel2()
	recs, err = st.Records(listing, other, core.ListQuery{Type: core.RecordFeedback, Limit: 5})
	if err != nil || len(recs) != 5 {
		t.Fatalf("a listing while every search reader is taken: %d records, %v", len(recs), err)
	}
}

func equal[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got  %#v\n want %#v", what, got, want)
	}
}
