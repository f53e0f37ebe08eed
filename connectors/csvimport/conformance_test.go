package csvimport

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/feedbridge/feedbridge/connectors/connectortest"
	"github.com/feedbridge/feedbridge/core"
)

func TestConformance(t *testing.T) {
	connectortest.Run(t, connectortest.Case{Kind: "csv", Entry: func(t testing.TB, ws core.ID, dir string) map[string]any {
		return map[string]any{"name": "nightly", "workspace": string(ws), "schedule": "0 2 * * *",
			"path": filepath.Join(dir, "in", "*.csv"), "archive_dir": filepath.Join(dir, "done")}
	}, Feed: dropFeed})
}

// dropFeed runs an entry that looks into its drop folder every second; each item arrives as a file of
// one row, moved into the folder whole as an export job would, and a resend is the same row again.
func dropFeed(t testing.TB, ws core.ID, dir string) connectortest.Feed {
	d := &dropFolder{dir: dir}
	for _, sub := range []string{"in", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return connectortest.Feed{
		Entry: map[string]any{"name": "drop", "workspace": string(ws), "schedule": "@every 1s",
			"path": filepath.Join(dir, "in", "*.csv"), "archive_dir": filepath.Join(dir, "done")},
		Source: "CSV",
		Deliver: func(t testing.TB, l *connectortest.Live, items []connectortest.Item, attempt int) []connectortest.Answer {
			for _, it := range items {
				d.drop(t, [][]string{row(it)})
			}
			return nil
		},
		Bad: d.bad,
	}
}

// dropFolder writes files into an entry's drop folder in order: names sort as they were written.
type dropFolder struct {
	dir string
	seq atomic.Int64
}

var dropHeader = []string{"id", "title", "description", "email", "name"}

func row(it connectortest.Item) []string {
	return []string{it.ExternalID, it.Title, it.Description, it.Email, it.Name}
}

// drop writes the rows under the header to a scratch file and moves it into the folder.
func (d *dropFolder) drop(t testing.TB, rows [][]string) {
	name := fmt.Sprintf("%06d.csv", d.seq.Add(1))
	tmp := filepath.Join(d.dir, "tmp", name)
	f, err := os.Create(tmp)
	if err != nil {
		t.Error(err)
		return
	}
	w := csv.NewWriter(f)
	_ = w.Write(dropHeader)
	_ = w.WriteAll(rows)
	if err := errors.Join(w.Error(), f.Close()); err != nil {
		t.Error(err)
		return
	}
	if err := os.Rename(tmp, filepath.Join(d.dir, "in", name)); err != nil {
		t.Error(err)
	}
}

// bad drops one file whose middle row has more cells than the header: the good rows are stored, the run
// counts one failed row, and both the errors file beside the archived input and the run's failed rows in
// the store hold it.
func (d *dropFolder) bad(t testing.TB, l *connectortest.Live, good []connectortest.Item) func() string {
	broken := []string{"broken-1", "A row with a cell too many", "text", "x@globex.com", "X", "surplus"}
	d.drop(t, [][]string{row(good[0]), broken, row(good[1])})
	return func() string {
		runs, err := l.Service.ImportRuns(context.Background(), l.Workspace)
		if err != nil {
			t.Error(err)
			return ""
		}
		for _, r := range runs {
			if r.Status != core.ImportSucceeded || r.Failed != 1 || r.Created != 2 {
				continue
			}
			kept, err := l.Service.FailedRows(context.Background(), l.Workspace, r.ID)
			if err != nil || len(kept.Rows) != 1 || kept.Rows[0].Line != 3 || !slices.Contains(kept.Rows[0].Cells, "surplus") {
				continue
			}
			errs, _ := filepath.Glob(filepath.Join(d.dir, "done", "*.errors.csv"))
			for _, p := range errs {
				if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "surplus") {
					return fmt.Sprintf("run %s: %d created, %d failed; %s holds the row", r.File, r.Created, r.Failed, filepath.Base(p))
				}
			}
		}
		return ""
	}
}
