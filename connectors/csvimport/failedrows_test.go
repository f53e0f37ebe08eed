package csvimport

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// TestFailedRowsKept imports a file whose bad rows are spread over several batches, and reads them back
// from the store as the run's download.
func TestFailedRowsKept(t *testing.T) { forEachBackend(t, testFailedRowsKept) }

func testFailedRowsKept(t *testing.T, e *testEnv) {
	ctx := context.Background()
	in := e.write(t, "export.csv", "title;email;note\n"+
		"One;a@acme.com;x\n"+
		";b@acme.com;no title\n"+
		"Two;not-an-address;y\n"+
		"Three;;\"=HYPERLINK(\"\"x\"\")\";extra\n"+
		"Four;;z\n")
	run, err := ImportFile(ctx, e.svc, e.ws, in, Options{BatchSize: 2, Log: e.log})
	if err != nil {
		t.Fatal(err)
	}
	if run.Created != 2 || run.Failed != 3 {
		t.Fatalf("run = %+v", run)
	}
	got, err := e.svc.FailedRows(ctx, e.ws, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := core.FailedRows{Header: []string{"title", "email", "note"}, Rows: []core.FailedRow{
		{Line: 3, Reason: "title is required", Cells: []string{"", "b@acme.com", "no title"}},
		{Line: 4, Reason: "invalid customer_email", Cells: []string{"Two", "not-an-address", "y"}},
		{Line: 5, Reason: "row has 4 cells, the header has 3", Cells: []string{"Three", "", `=HYPERLINK("x")`, "extra"}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("kept rows\n got  %+v\n want %+v", got, want)
	}
	var out bytes.Buffer
	if err := WriteFailedRows(&out, got); err != nil {
		t.Fatal(err)
	}
	wantCSV := "\uFEFFline,title,email,note,,error\r\n" +
		"3,,b@acme.com,no title,,title is required\r\n" +
		"4,Two,not-an-address,y,,invalid customer_email\r\n" +
		"5,Three,,\"'=HYPERLINK(\"\"x\"\")\",extra,\"row has 4 cells, the header has 3\"\r\n"
	if out.String() != wantCSV {
		t.Errorf("download\n got  %q\n want %q", out.String(), wantCSV)
	}

	dry, err := ImportFile(ctx, e.svc, e.ws, in, Options{DryRun: true})
	if err != nil || dry.ID != "" {
		t.Fatalf("dry run = %+v, %v", dry, err)
	}
}

// TestFailedRowsBound keeps the first FailedRowsKept failed rows of a run and counts the rest, and stops
// at the first row whose cells would pass FailedBytesKept.
func TestFailedRowsBound(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *testEnv) {
		ctx := context.Background()
		var b strings.Builder
		b.WriteString("title,note\n")
		for i := range FailedRowsKept + 5 {
			fmt.Fprintf(&b, ",row %d\n", i)
		}
		run, err := Import(ctx, e.svc, e.ws, strings.NewReader(b.String()), "many.csv", Options{})
		if err != nil || run.Failed != FailedRowsKept+5 {
			t.Fatalf("run = %+v, %v", run, err)
		}
		got, err := e.svc.FailedRows(ctx, e.ws, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(got.Rows); n != FailedRowsKept || got.Rows[n-1].Line != FailedRowsKept+1 {
			t.Fatalf("kept %d rows, the last on line %d; want the first %d", n, got.Rows[n-1].Line, FailedRowsKept)
		}

		// Rows of about a MiB each: those that fit are kept, and none after the first that does not.
		big := strings.Repeat("x", 1<<20-64)
		b.Reset()
		b.WriteString("title,note\n")
		fits := FailedBytesKept / len(big)
		for i := range fits + 2 {
			if i == fits+1 {
				fmt.Fprintf(&b, ",small\n")
				continue
			}
			fmt.Fprintf(&b, ",%s\n", big)
		}
		run, err = Import(ctx, e.svc, e.ws, strings.NewReader(b.String()), "big.csv", Options{})
		if err != nil || run.Failed != fits+2 {
			t.Fatalf("run = %+v, %v", run, err)
		}
		got, err = e.svc.FailedRows(ctx, e.ws, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Rows) != fits {
			t.Fatalf("kept %d big rows, want %d", len(got.Rows), fits)
		}
	})
}

// TestFailedRowsForgotten: an import deletes the failed rows of the workspace's runs older than
// FailedRowsAge, and keeps the newer ones.
func TestFailedRowsForgotten(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *testEnv) {
		ctx := context.Background()
		kept := func(age time.Duration) core.ID {
			run := core.ImportRun{ID: core.NewID(), Workspace: e.ws, Connector: "cli", File: "old.csv",
				Status: core.ImportSucceeded, Failed: 1, StartedAt: e.svc.Now().Add(-age)}
			if err := e.svc.FinishImport(ctx, run); err != nil {
				t.Fatal(err)
			}
			if err := e.svc.KeepFailedRows(ctx, e.ws, run.ID, []string{"title"}, []core.FailedRow{{Line: 2, Reason: "title is required", Cells: []string{""}}}); err != nil {
				t.Fatal(err)
			}
			return run.ID
		}
		old, recent := kept(FailedRowsAge+time.Hour), kept(FailedRowsAge-time.Hour)
		if _, err := Import(ctx, e.svc, e.ws, strings.NewReader("title\nHello\n"), "new.csv", Options{}); err != nil {
			t.Fatal(err)
		}
		for id, want := range map[core.ID]int{old: 0, recent: 1} {
			got, err := e.svc.FailedRows(ctx, e.ws, id)
			if err != nil || len(got.Rows) != want {
				t.Errorf("run %s: %d rows kept (%v), want %d", id, len(got.Rows), err, want)
			}
		}
	})
}
