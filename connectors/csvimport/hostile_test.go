//go:build unix

package csvimport

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// A drop folder imports regular files only: a symbolic link to a secret or to another entry's archived
// export, a hard link, and a FIFO are left alone, and nothing of what they point at reaches a record, a
// run or the archive.
func TestDropFolderRefusesLinks(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	secret := e.write(t, "secrets/token.env", "SLACK_TOKEN=xoxb-hunter2\n")
	archived := e.write(t, "other/done/export.csv", "title\nAnother workspace's row\n")
	hardTarget := e.write(t, "other/done/hard.csv", "title\nHard-linked row\n")
	in := filepath.Join(e.dir, "in")
	e.write(t, "in/good.csv", "title\nOur row\n")
	for link, target := range map[string]string{"secret.csv": secret, "stolen.csv": archived} {
		if err := os.Symlink(target, filepath.Join(in, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(hardTarget, filepath.Join(in, "hard.csv")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(in, "pipe.csv"), 0o600); err != nil {
		t.Fatal(err)
	}

	en := e.entry(t, nil)
	en.runOnce(ctx)
	// The four are refused items, each counted once however many runs see them, and no fault.
	en.runOnce(ctx)
	if st := e.status(t, "crm"); st.Refused != 4 || !strings.HasSuffix(st.LastRefused, "; left alone") || st.LastError != "" ||
		strings.Contains(st.LastRefused, "hunter2") {
		t.Errorf("status %+v, want 4 refused entries, the last reason, no last_error", st)
	}

	recs := e.records(t, core.RecordFeedback)
	if len(recs) != 1 || recs[0].Title != "Our row" {
		t.Errorf("records %+v, want the regular file's row only", recs)
	}
	runs, _ := e.svc.ImportRuns(ctx, e.ws)
	if len(runs) != 1 || runs[0].File != filepath.Join(in, "good.csv") {
		t.Errorf("runs %+v, want one for good.csv", runs)
	}
	for _, r := range runs {
		if strings.Contains(r.Error, "hunter2") {
			t.Errorf("a run shows the secret: %+v", r)
		}
	}
	if got, want := listDir(t, in), []string{"hard.csv", "pipe.csv", "secret.csv", "stolen.csv"}; !slices.Equal(got, want) {
		t.Errorf("input folder holds %q, want the refused entries left in place %q", got, want)
	}
	if got := listDir(t, filepath.Join(e.dir, "done")); !slices.Equal(got, []string{"good.csv"}) {
		t.Errorf("archive holds %q", got)
	}
	warned := 0
	for _, entry := range e.hook.AllEntries() {
		if strings.Contains(entry.Message, "not a regular file") {
			warned++
		}
	}
	if warned != 8 {
		t.Errorf("%d warnings about refused entries in two runs, want 8", warned)
	}
}

// A file swapped for a link after the folder was listed is still refused: the open itself does not follow
// links, and a FIFO is refused without waiting for a writer.
func TestDropFileOpenRefusesLinks(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	secret := e.write(t, "secrets/token.env", "title\nxoxb-hunter2\n")
	link := filepath.Join(e.dir, "link.csv")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(e.dir, "pipe.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, fifo} {
		done := make(chan error, 1)
		go func() { _, err := importDropFile(ctx, e.svc, e.ws, p, Options{Connector: "crm"}); done <- err }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: imported", filepath.Base(p))
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: open blocked", filepath.Base(p))
		}
	}
	if recs := e.records(t, core.RecordFeedback); len(recs) != 0 {
		t.Errorf("records %+v", recs)
	}
}

// The errors file is created afresh and never through a link: a link planted at its name while the
// import runs (here, just before the first bad row is reported) makes the run fail and leaves the
// link's target as it was.
func TestErrorsFileRefusesLink(t *testing.T) {
	e := newTestEnv(t)
	victim := e.write(t, "victim.txt", "precious\n")
	in := e.write(t, "in.csv", "title,created\nGood,2024-01-01\nBad,someday\n")
	errorsFile := filepath.Join(e.dir, "in.errors.csv")
	run, err := ImportFile(context.Background(), e.svc, e.ws, in, Options{ErrorsFile: errorsFile, BadRow: func(int, string) {
		if err := os.Symlink(victim, errorsFile); err != nil {
			t.Error(err)
		}
	}})
	if err == nil || run.Status != core.ImportFailed {
		t.Errorf("run %+v, err %v: want a failed run", run, err)
	}
	if got, _ := os.ReadFile(victim); string(got) != "precious\n" {
		t.Errorf("the link's target now holds %q", got)
	}
}

// An errors file left by an earlier run is replaced, not appended to or followed.
func TestErrorsFileReplacesOldOne(t *testing.T) {
	e := newTestEnv(t)
	in := e.write(t, "in.csv", "title,created\nBad,someday\n")
	old := e.write(t, "in.errors.csv", "stale,stale,stale\n")
	if _, err := ImportFile(context.Background(), e.svc, e.ws, in, Options{}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(old)
	if strings.Contains(string(got), "stale") || !strings.Contains(string(got), "Bad,someday,") {
		t.Errorf("errors file %q", got)
	}
}

// Archiving ends on every error: a name that cannot take a timestamp any more is shortened to fit, and an
// archive folder that cannot be entered fails the file's run (and the entry) instead of spinning.
func TestArchiveTerminates(t *testing.T) {
	runOnce := func(t *testing.T, en *entry) {
		t.Helper()
		done := make(chan struct{})
		go func() { en.runOnce(context.Background()); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("the run did not finish")
		}
	}
	t.Run("long name", func(t *testing.T) {
		e := newTestEnv(t)
		en := e.entry(t, nil)
		name := strings.Repeat("é", 118) + ".csv" // 240 bytes
		e.write(t, "in/"+name, "title\nFirst\n")
		runOnce(t, en)
		e.write(t, "in/"+name, "title\nSecond\n")
		runOnce(t, en)
		got := listDir(t, filepath.Join(e.dir, "done"))
		if len(got) != 2 || !slices.Contains(got, name) {
			t.Fatalf("archive holds %q", got)
		}
		for _, n := range got {
			if len(n) > maxNameBytes || !strings.HasSuffix(n, ".csv") || !strings.HasPrefix(n, "éé") {
				t.Errorf("archive name %q (%d bytes)", n, len(n))
			}
		}
		if recs := e.records(t, core.RecordFeedback); len(recs) != 2 {
			t.Errorf("%d records, want 2", len(recs))
		}
	})
	t.Run("archive folder is a file", func(t *testing.T) {
		e := newTestEnv(t)
		blocker := e.write(t, "done", "not a folder\n")
		en := e.entry(t, func(c *Config) { c.ArchiveDir = blocker })
		e.write(t, "in/a.csv", "title\nRow\n")
		runOnce(t, en)
		runs, _ := e.svc.ImportRuns(context.Background(), e.ws)
		if len(runs) != 1 || runs[0].Status != core.ImportFailed || !strings.Contains(runs[0].Error, "archive") {
			t.Errorf("runs %+v, want one failed run naming the archive", runs)
		}
		if st := e.status(t, "crm"); st.State != string(connectors.StateError) || !strings.Contains(st.LastError, "archive") {
			t.Errorf("status %+v", st)
		}
		if recs := e.records(t, core.RecordFeedback); len(recs) != 0 {
			t.Errorf("records %+v: a file that cannot be archived would be read again every run", recs)
		}
		if got := listDir(t, filepath.Join(e.dir, "in")); !slices.Equal(got, []string{"a.csv"}) {
			t.Errorf("input folder holds %q", got)
		}
	})
}

// Cells that a spreadsheet would run as a formula get a leading quote in the errors file; dropping one
// leading quote from a cell gives the original back.
func TestErrorsFileDefusesFormulas(t *testing.T) {
	e := newTestEnv(t)
	cells := []string{"=HYPERLINK(\"http://x\")", "+1+1", "-2", "@SUM(A1)", "\tTab", "\rCR", "'quoted", "plain", ""}
	var in bytes.Buffer
	w := csv.NewWriter(&in)
	w.Write([]string{"title", "=cmd", "created"})
	for _, c := range cells {
		w.Write([]string{c, c, "someday"})
	}
	w.Flush()
	path := e.write(t, "in.csv", in.String())
	if _, err := ImportFile(context.Background(), e.svc, e.ws, path, Options{}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(e.dir, "in.errors.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(raw, []byte("\uFEFF")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+len(cells) {
		t.Fatalf("errors file has %d rows: %q", len(rows), rows)
	}
	if rows[0][1] != "'=cmd" {
		t.Errorf("header cell %q", rows[0][1])
	}
	recover := func(c string) string { return strings.TrimPrefix(c, "'") }
	for i, want := range cells {
		got := rows[i+1][1]
		if c := strings.TrimLeft(got, " "); c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
			t.Errorf("cell %q written as %q: a spreadsheet runs it", want, got)
		}
		if recover(got) != want {
			t.Errorf("cell %q written as %q, which recovers as %q", want, got, recover(got))
		}
	}
}
