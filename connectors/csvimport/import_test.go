package csvimport

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

const sampleCSV = "Subject;Body;E-Mail;Name;Channel;Created;Tags\r\n" +
	"Dark mode;Please add a dark theme;jane@acme-corp.com;Jane;Intercom;2024-03-01T10:00:00Z;ui, Theme, nope\r\n" +
	"Export;;bob@gmail.com;;;2024-03-02;\r\n" +
	";no title;;;;;\r\n" +
	"Bad email;x;not-an-address;;;;\r\n" +
	"Crash;\"multi\r\nline\";;;excel;;\r\n"

func TestImportFile(t *testing.T) { forEachBackend(t, testImportFile) }

func testImportFile(t *testing.T, e *testEnv) {
	ctx := context.Background()
	if _, err := e.svc.AddLookups(ctx, e.ws, core.LookupTag, []string{"UI", "theme", "billing"}); err != nil {
		t.Fatal(err)
	}
	in := e.write(t, "in/export.csv", sampleCSV)
	var bad []string
	run, err := ImportFile(ctx, e.svc, e.ws, in, Options{Log: e.log, BadRow: func(line int, reason string) {
		bad = append(bad, reason)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != core.ImportSucceeded || run.Rows != 5 || run.Created != 3 || run.Duplicates != 0 || run.Failed != 2 {
		t.Fatalf("run = %+v", run)
	}
	if want := []string{"title is required", "invalid customer_email"}; !reflect.DeepEqual(bad, want) {
		t.Errorf("bad rows %q, want %q", bad, want)
	}
	stored, err := e.svc.ImportRun(ctx, e.ws, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Connector != ConnectorCLI || stored.File != in || stored.Status != core.ImportSucceeded || stored.Created != 3 || stored.FinishedAt.IsZero() {
		t.Errorf("stored run = %+v", stored)
	}

	recs := e.records(t, core.RecordFeedback)
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	if recs[0].CreatedBy != (core.Actor{Kind: core.ActorCLI}) {
		t.Errorf("a CLI import's records credit %+v, want the CLI", recs[0].CreatedBy)
	}
	byTitle := map[string]core.Record{}
	for _, r := range recs {
		byTitle[r.Title] = r
	}
	dark := byTitle["Dark mode"]
	if dark.Source != "Intercom" || dark.Customer != "Acme Corp" || dark.CustomerEmail != "jane@acme-corp.com" ||
		!dark.CreatedAt.Equal(time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)) || !reflect.DeepEqual(sortedCopy(dark.Tags), []string{"theme", "UI"}) {
		t.Errorf("dark mode record = %+v", dark)
	}
	if exp := byTitle["Export"]; exp.Source != "CSV" || exp.Customer != "" || !exp.CreatedAt.Equal(time.Date(2024, 3, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("export record = %+v", exp)
	}
	if crash := byTitle["Crash"]; crash.Source != "CSV" || crash.Description != "multi\nline" {
		t.Errorf("crash record = %+v", crash)
	}
	if !e.logged("csv: tag labels that match no workspace tag") {
		t.Error("the unknown tag label was not logged")
	}

	got, err := os.ReadFile(filepath.Join(filepath.Dir(in), "export.errors.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := "Subject;Body;E-Mail;Name;Channel;Created;Tags;error\r\n" +
		";no title;;;;;;title is required\r\n" +
		"Bad email;x;not-an-address;;;;;invalid customer_email\r\n"
	if string(got) != want {
		t.Errorf("errors file:\n%q\nwant\n%q", got, want)
	}
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.SortFunc(s, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	return s
}

func (e *testEnv) logged(prefix string) bool {
	for _, en := range e.hook.AllEntries() {
		if strings.HasPrefix(en.Message, prefix) {
			return true
		}
	}
	return false
}

func TestImportTwiceCreatesNothingNew(t *testing.T) {
	tests := []struct {
		name, csv string
	}{
		{"by external id", "ID,Title,Body\n1,One,a\n2,Two,b\n3,Three,c\n"},
		{"by content hash", "Title,Body,Email,Date\nOne,a,x@acme.com,2024-01-01\nTwo,b,,\nThree,c,Y@Acme.com,\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forEachBackend(t, func(t *testing.T, e *testEnv) {
				in := e.write(t, "f.csv", tt.csv)
				for i, want := range []struct{ created, dups int }{{3, 0}, {0, 3}} {
					run, err := ImportFile(context.Background(), e.svc, e.ws, in, Options{})
					if err != nil {
						t.Fatal(err)
					}
					if run.Created != want.created || run.Duplicates != want.dups || run.Failed != 0 {
						t.Fatalf("import %d: %+v, want created %d duplicates %d", i+1, run, want.created, want.dups)
					}
				}
				if n := len(e.records(t, core.RecordFeedback)); n != 3 {
					t.Errorf("%d records, want 3", n)
				}
			})
		})
	}
}

func TestExternalIDScope(t *testing.T) { forEachBackend(t, testExternalIDScope) }

func testExternalIDScope(t *testing.T, e *testEnv) {
	ctx := context.Background()
	first := e.write(t, "a.csv", "external_id,title\n7,Original\n7,Same id in the same file\n")
	changed := e.write(t, "b.csv", "external_id,title\n7,Edited title\n")
	steps := []struct {
		path, connector string
		created, dups   int
	}{
		{first, "crm", 1, 1},   // the second row repeats the id within the file
		{changed, "crm", 0, 1}, // an edited row is skipped, never updated
		{changed, "other", 1, 0},
	}
	for i, s := range steps {
		run, err := ImportFile(ctx, e.svc, e.ws, s.path, Options{Connector: s.connector})
		if err != nil {
			t.Fatal(err)
		}
		if run.Created != s.created || run.Duplicates != s.dups {
			t.Errorf("step %d: created %d duplicates %d, want %d and %d", i+1, run.Created, run.Duplicates, s.created, s.dups)
		}
	}
	titles := []string{}
	for _, r := range e.records(t, core.RecordFeedback) {
		titles = append(titles, r.Title)
		if r.CreatedBy.Kind != core.ActorConnector || (r.CreatedBy.Name != "crm" && r.CreatedBy.Name != "other") {
			t.Errorf("a scheduled import's record credits %+v, want its entry", r.CreatedBy)
		}
	}
	if slices.Sort(titles); !reflect.DeepEqual(titles, []string{"Edited title", "Original"}) {
		t.Errorf("titles %q", titles)
	}
}

func TestDryRunWritesNothing(t *testing.T) { forEachBackend(t, testDryRunWritesNothing) }

func testDryRunWritesNothing(t *testing.T, e *testEnv) {
	ctx := context.Background()
	in := e.write(t, "export.csv", sampleCSV)
	var progress []core.ImportRun
	run, err := ImportFile(ctx, e.svc, e.ws, in, Options{DryRun: true, Progress: func(r core.ImportRun) { progress = append(progress, r) }})
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != core.ImportSucceeded || run.Rows != 5 || run.Created != 3 || run.Failed != 2 || run.ID != "" {
		t.Errorf("dry run = %+v", run)
	}
	if len(progress) == 0 || progress[len(progress)-1].Status != core.ImportSucceeded {
		t.Errorf("progress callbacks %+v", progress)
	}
	if n := len(e.records(t, core.RecordFeedback)); n != 0 {
		t.Errorf("dry run created %d records", n)
	}
	if runs, err := e.svc.ImportRuns(ctx, e.ws); err != nil || len(runs) != 0 {
		t.Errorf("dry run stored runs %v (%v)", runs, err)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "export.errors.csv")); !os.IsNotExist(err) {
		t.Errorf("dry run wrote an errors file (%v)", err)
	}
}

func TestImportFileFailures(t *testing.T) {
	tests := []struct {
		name, file, content string
		opts                Options
		format              bool
		want                string
	}{
		{"no title column", "a.csv", "Body\nx\n", Options{}, true, "no title column"},
		{"mapping names a missing column", "b.csv", "Title\nx\n", Options{Mapping: map[string]string{"title": "Subject"}}, true, `no column "Subject"`},
		{"empty file", "c.csv", "", Options{}, true, "empty file"},
		{"missing file", "", "", Options{}, false, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			path := filepath.Join(e.dir, "missing.csv")
			if tt.file != "" {
				path = e.write(t, tt.file, tt.content)
			}
			run, err := ImportFile(context.Background(), e.svc, e.ws, path, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
			var fe *FormatError
			if errors.As(err, &fe) != tt.format {
				t.Errorf("FormatError: %v, want %v", errors.As(err, &fe), tt.format)
			}
			stored, serr := e.svc.ImportRun(context.Background(), e.ws, run.ID)
			if serr != nil || stored.Status != core.ImportFailed || !strings.Contains(stored.Error, tt.want) || stored.FinishedAt.IsZero() {
				t.Errorf("stored run %+v (%v)", stored, serr)
			}
		})
	}
}

func TestImportRecordType(t *testing.T) {
	e := newTestEnv(t)
	in := e.write(t, "ideas.csv", "title\nAn idea\n")
	if _, err := ImportFile(context.Background(), e.svc, e.ws, in, Options{RecordType: "idea"}); err != nil {
		t.Fatal(err)
	}
	if n := len(e.records(t, core.RecordIdea)); n != 1 {
		t.Errorf("%d ideas, want 1", n)
	}
	if _, err := ImportFile(context.Background(), e.svc, e.ws, in, Options{RecordType: "Bogus"}); err == nil {
		t.Error("a bogus record type was accepted")
	}
}

// TestBatchesInFlight imports in batches of three while the store may be writing two at once (PostgreSQL):
// a row that repeats the external id of a row in the batch before must still lose to it, and the bad rows
// must reach the errors file and the BadRow calls in input order.
func TestBatchesInFlight(t *testing.T) { forEachBackend(t, testBatchesInFlight) }

func testBatchesInFlight(t *testing.T, e *testEnv) {
	var sb, wantErrs strings.Builder
	sb.WriteString("id,title,email\n")
	wantErrs.WriteString("id,title,email,error\n")
	var wantLines []int
	created, dups, failed := 0, 0, 0
	kind := make([]string, 60)
	for i := range kind {
		line := i + 2
		switch {
		case i%7 == 6: // no title: refused by the reader
			kind[i] = "untitled"
			fmt.Fprintf(&sb, "%d,,\n", i)
			fmt.Fprintf(&wantErrs, "%d,,,title is required\n", i)
			wantLines, failed = append(wantLines, line), failed+1
		case i%11 == 10: // refused by the service
			kind[i] = "bad email"
			fmt.Fprintf(&sb, "%d,Row %d,not-an-address\n", i, i)
			fmt.Fprintf(&wantErrs, "%d,Row %d,not-an-address,invalid customer_email\n", i, i)
			wantLines, failed = append(wantLines, line), failed+1
		case i%5 == 4 && kind[i-2] == "good": // the id of the row two lines up: in the batch before or this one
			fmt.Fprintf(&sb, "%d,Row %d repeated,\n", i-2, i)
			dups++
		default:
			kind[i] = "good"
			fmt.Fprintf(&sb, "%d,Row %d,user%d@acme.com\n", i, i, i)
			created++
		}
	}
	in := e.write(t, "inflight.csv", sb.String())
	var lines []int
	run, err := ImportFile(context.Background(), e.svc, e.ws, in, Options{BatchSize: 3, BadRow: func(line int, _ string) {
		lines = append(lines, line)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if run.Rows != 60 || run.Created != created || run.Duplicates != dups || run.Failed != failed {
		t.Errorf("run %+v, want %d created, %d duplicates, %d failed", run, created, dups, failed)
	}
	for _, r := range e.records(t, core.RecordFeedback) {
		if strings.HasSuffix(r.Title, "repeated") {
			t.Errorf("record %q: a later row with the same id won", r.Title)
		}
	}
	if !slices.Equal(lines, wantLines) {
		t.Errorf("bad rows reported on lines %v, want %v", lines, wantLines)
	}
	got, err := os.ReadFile(filepath.Join(e.dir, "inflight.errors.csv"))
	if err != nil || string(got) != wantErrs.String() {
		t.Errorf("errors file (%v):\n%s\nwant\n%s", err, got, wantErrs.String())
	}
}
