package storetest

import (
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

var failedRowTests = map[string]func(t *testing.T, f *fixture){
	"KeptByLine": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		run, err := f.svc.StartImport(f.ctx, a, "nightly", "export.csv")
		noErr(t, "start", err)
		got, err := f.st.FailedRows(f.ctx, a, run.ID)
		noErr(t, "read before any", err)
		equal(t, "none yet", len(got.Header)+len(got.Rows), 0)

		header := []string{"title", "email", "Straße; ünïcode"}
		second := []core.FailedRow{{Line: 7, Reason: "title is required", Cells: []string{"", "a@b.c", "x"}},
			{Line: 9, Reason: "row has 4 cells, the header has 3", Cells: []string{"t", "", "", "extra \"quoted\"\nline"}}}
		first := []core.FailedRow{{Line: 3, Reason: "bad date", Cells: []string{"=cmd", "", ""}}}
		noErr(t, "keep later rows", f.svc.KeepFailedRows(f.ctx, a, run.ID, header, second))
		noErr(t, "keep an earlier one", f.svc.KeepFailedRows(f.ctx, a, run.ID, header, first))
		again := []core.FailedRow{{Line: 7, Reason: "changed", Cells: []string{"changed"}}}
		noErr(t, "a line kept already", f.svc.KeepFailedRows(f.ctx, a, run.ID, header, again))
		got, err = f.st.FailedRows(f.ctx, a, run.ID)
		noErr(t, "read", err)
		equal(t, "by line, first write wins", got, core.FailedRows{Header: header, Rows: append(first, second...)})

		noErr(t, "a NUL", f.svc.KeepFailedRows(f.ctx, a, run.ID, header,
			[]core.FailedRow{{Line: 11, Reason: "bad\x00", Cells: []string{"a\x00b"}}}))
		got, err = f.st.FailedRows(f.ctx, a, run.ID)
		noErr(t, "read", err)
		equal(t, "NUL kept as U+FFFD", got.Rows[len(got.Rows)-1], core.FailedRow{Line: 11, Reason: "bad\uFFFD", Cells: []string{"a\uFFFDb"}})

		_, err = f.st.FailedRows(f.ctx, b, run.ID)
		wantErr(t, "read through another workspace", err, core.ErrNotFound)
		wantErr(t, "keep through another workspace", f.st.KeepFailedRows(f.ctx, b, run.ID, header, first), core.ErrNotFound)
		_, err = f.st.FailedRows(f.ctx, a, core.NewID())
		wantErr(t, "unknown run", err, core.ErrNotFound)
	},
	"Forgotten": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		row := []core.FailedRow{{Line: 2, Reason: "title is required", Cells: []string{""}}}
		keep := func(ws core.ID) core.ImportRun {
			run, err := f.svc.StartImport(f.ctx, ws, "cli", "x.csv")
			noErr(t, "start", err)
			noErr(t, "keep", f.svc.KeepFailedRows(f.ctx, ws, run.ID, []string{"title"}, row))
			return run
		}
		oldA, oldB := keep(a), keep(b)
		f.clock.Advance(time.Hour)
		cut := f.clock.Now()
		newA := keep(a)
		n, err := f.svc.ForgetFailedRows(f.ctx, a, cut)
		noErr(t, "forget", err)
		equal(t, "deleted", n, 1)
		count := func(ws, run core.ID) int {
			got, err := f.st.FailedRows(f.ctx, ws, run)
			noErr(t, "read", err)
			return len(got.Rows)
		}
		equal(t, "kept counts: old A, new A, old B", []int{count(a, oldA.ID), count(a, newA.ID), count(b, oldB.ID)}, []int{0, 1, 1})
		_, err = f.st.ImportRun(f.ctx, a, oldA.ID)
		noErr(t, "the run stays", err)
	},
	"ErasedCustomer": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		rows := []core.FailedRow{
			{Line: 2, Reason: "title is required", Cells: []string{"", "Jane@Acme.com"}},
			{Line: 3, Reason: "title is required", Cells: []string{"", "other@acme.com"}},
			{Line: 4, Reason: "invalid customer_email: <jane@acme.com", Cells: []string{"x", "<jane@acme.com"}},
		}
		keep := func(ws core.ID) core.ID {
			run, err := f.svc.StartImport(f.ctx, ws, "cli", "x.csv")
			noErr(t, "start", err)
			noErr(t, "keep", f.svc.KeepFailedRows(f.ctx, ws, run.ID, []string{"title", "email"}, rows))
			return run.ID
		}
		runA, runB := keep(a), keep(b)
		_, err := f.svc.ForgetContact(f.ctx, a, "jane@acme.com")
		noErr(t, "forget", err)
		lines := func(ws, run core.ID) []int {
			got, err := f.st.FailedRows(f.ctx, ws, run)
			noErr(t, "read", err)
			var out []int
			for _, r := range got.Rows {
				out = append(out, r.Line)
			}
			return out
		}
		equal(t, "the erased workspace keeps the other customer's row", lines(a, runA), []int{3})
		equal(t, "another workspace keeps all", lines(b, runB), []int{2, 3, 4})
	},
}
