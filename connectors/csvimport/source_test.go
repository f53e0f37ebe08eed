package csvimport

import (
	"context"
	"crypto/tls"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// entry builds one validated entry on the env's service; change adjusts the config first.
func (e *testEnv) entry(t testing.TB, change func(c *Config)) *entry {
	t.Helper()
	c := Config{Name: "crm", Workspace: string(e.ws), Schedule: "@every 1s",
		Path: filepath.Join(e.dir, "in", "*.csv"), ArchiveDir: filepath.Join(e.dir, "done")}
	if change != nil {
		change(&c)
	}
	en := e.newEntry(t, c, nil)
	en.settle = 0
	return en
}

// newEntry checks c as Build does and makes its entry on the env's service.
func (e *testEnv) newEntry(t testing.TB, c Config, tlsConf *tls.Config) *entry {
	t.Helper()
	env := e.connEnv("replica-a")
	base, err := connectors.NewEntry(Kind, &c, env)
	if err != nil {
		t.Fatal(err)
	}
	if err := connectors.ApplyDefaults(&c); err != nil {
		t.Fatal(err)
	}
	spec, err := parseConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	return newEntry(base, spec, env, tlsConf)
}

func (e *testEnv) connEnv(holder string) connectors.Env {
	return connectors.Env{Service: e.svc, Log: e.log, Holder: holder, Now: time.Now}
}

func listDir(t testing.TB, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, d := range des {
		out = append(out, d.Name())
	}
	return out
}

func TestLocalSource(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	en := e.entry(t, nil)
	e.write(t, "in/a.csv", "title,body\nOne,x\nTwo,y\n")
	e.write(t, "in/b.csv", "title,created\nGood,2024-01-01\nBad,someday\n")
	e.write(t, "in/old.errors.csv", "title,error\nx,y\n")
	e.write(t, "in/notes.txt", "not matched by the glob")
	en.runOnce(ctx)

	done := filepath.Join(e.dir, "done")
	if got, want := listDir(t, done), []string{"a.csv", "b.csv", "b.errors.csv"}; !slices.Equal(got, want) {
		t.Errorf("archive holds %q, want %q", got, want)
	}
	if got, want := listDir(t, filepath.Join(e.dir, "in")), []string{"notes.txt", "old.errors.csv"}; !slices.Equal(got, want) {
		t.Errorf("input folder holds %q, want %q", got, want)
	}
	errs, _ := os.ReadFile(filepath.Join(done, "b.errors.csv"))
	if !strings.Contains(string(errs), "Bad,someday,") {
		t.Errorf("errors file %q", errs)
	}
	runs, err := e.svc.ImportRuns(ctx, e.ws)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %+v (%v)", runs, err)
	}
	for _, r := range runs {
		if r.Connector != "crm" || r.Status != core.ImportSucceeded {
			t.Errorf("run %+v", r)
		}
	}

	// The same export dropped again: archived under a new name, nothing new created.
	e.write(t, "in/a.csv", "title,body\nOne,x\nTwo,y\n")
	en.runOnce(ctx)
	if n := len(listDir(t, done)); n != 4 {
		t.Errorf("archive holds %q after the second drop", listDir(t, done))
	}
	runs, _ = e.svc.ImportRuns(ctx, e.ws)
	if r := runs[0]; r.Created != 0 || r.Duplicates != 2 {
		t.Errorf("re-import run %+v", r)
	}
	if n := len(e.records(t, core.RecordFeedback)); n != 3 {
		t.Errorf("%d records, want 3", n)
	}
	st := e.status(t, "crm")
	if st.State != string(connectors.StateRunning) || st.LastError != "" || st.LastSuccessAt.IsZero() {
		t.Errorf("connector status %+v", st)
	}
	// Today's counts are the runs' created rows taken and failed rows refused.
	created, failed := 0, 0
	for _, r := range runs {
		created, failed = created+r.Created, failed+r.Failed
	}
	if created == 0 || st.TakenToday != created || st.RefusedToday != failed {
		t.Errorf("today: taken %d, refused %d; the runs created %d and failed %d", st.TakenToday, st.RefusedToday, created, failed)
	}
}

func (e *testEnv) status(t testing.TB, name string) core.ConnectorStatus {
	t.Helper()
	sts, err := e.svc.Connectors(context.Background(), e.ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sts {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no status for %s in %+v", name, sts)
	return core.ConnectorStatus{}
}

func TestLocalSourceLeavesGrowingFiles(t *testing.T) {
	e := newTestEnv(t)
	en := e.entry(t, nil)
	growing := e.write(t, "in/growing.csv", "title\nFirst\n")
	e.write(t, "in/complete.csv", "title\nDone\n")
	en.wait = func(ctx context.Context, d time.Duration) error {
		// A copy still in progress: the file grows while the entry waits.
		f, err := os.OpenFile(growing, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteString("Second\n")
		return err
	}
	en.runOnce(context.Background())
	if got := listDir(t, filepath.Join(e.dir, "in")); !slices.Equal(got, []string{"growing.csv"}) {
		t.Errorf("input folder holds %q, want the growing file only", got)
	}
	if got := listDir(t, filepath.Join(e.dir, "done")); !slices.Equal(got, []string{"complete.csv"}) {
		t.Errorf("archive holds %q", got)
	}
	en.wait = func(context.Context, time.Duration) error { return nil } // the copy has finished
	en.runOnce(context.Background())
	if n := len(e.records(t, core.RecordFeedback)); n != 3 {
		t.Errorf("%d records, want 3", n)
	}
}

// A file that can never be imported as it is gets archived with a failed run, and the entry reports it as a
// refused item: counted with its reason, not a fault of the entry (the run after it is a success).
func TestLocalSourceUnreadableFile(t *testing.T) {
	e := newTestEnv(t)
	en := e.entry(t, nil)
	e.write(t, "in/x.csv", "body\nno title column\n")
	en.runOnce(context.Background())
	if got := listDir(t, filepath.Join(e.dir, "done")); !slices.Equal(got, []string{"x.csv"}) {
		t.Errorf("archive holds %q", got)
	}
	runs, _ := e.svc.ImportRuns(context.Background(), e.ws)
	if len(runs) != 1 || runs[0].Status != core.ImportFailed || !strings.Contains(runs[0].Error, "no title column") {
		t.Errorf("runs %+v", runs)
	}
	st := e.status(t, "crm")
	if st.State != string(connectors.StateRunning) || st.LastError != "" || st.Refused != 1 ||
		!strings.HasPrefix(st.LastRefused, "file x.csv refused: ") || !strings.Contains(st.LastRefused, "no title column") {
		t.Errorf("status %+v, want running, no last_error, one refused file with its reason", st)
	}
	if f := e.svc.Faults().List(); len(f) != 0 {
		t.Errorf("failing %v after a refused file", f)
	}
}

// Runs that a killed process left "running" are closed when the entry starts: the entry's own at once, any
// other once nobody renews its lease (a run stored without one stands for a process gone for longer than
// the lease), while a run whose process is alive is left alone.
func TestEntryClosesInterruptedRuns(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	mine, _ := e.svc.StartImport(ctx, e.ws, "crm", "/in/a.csv")
	abandoned, _ := e.svc.StartImport(ctx, e.ws, ConnectorCLI, "/tmp/killed.csv")
	live, lease, err := startRun(ctx, e.svc, e.ws, "other", "/in/b.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer lease.release()
	en := e.entry(t, nil)
	en.wait = func(context.Context, time.Duration) error { return context.Canceled } // stop before the first tick
	if err := en.loop(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range []core.ID{mine.ID, abandoned.ID} {
		if got, _ := e.svc.ImportRun(ctx, e.ws, id); got.Status != core.ImportFailed || got.Error != interruptedError || got.FinishedAt.IsZero() {
			t.Errorf("interrupted run %+v", got)
		}
	}
	if got, _ := e.svc.ImportRun(ctx, e.ws, live.ID); got.Status != core.ImportRunning {
		t.Errorf("a live run of another entry was closed: %+v", got)
	}
}

// The schedule fires on its own: a file dropped in the folder is imported within a couple of ticks.
func TestScheduledImport(t *testing.T) {
	e := newTestEnv(t)
	env := e.connEnv("replica-a")
	reg := prometheus.NewRegistry()
	env.Metrics = reg
	built, err := Build([]map[string]any{{"name": "crm", "workspace": string(e.ws), "schedule": "@every 1s",
		"path": filepath.Join(e.dir, "in", "*.csv"), "archive_dir": filepath.Join(e.dir, "done")}}, env)
	if err != nil {
		t.Fatal(err)
	}
	built.(*set).entries[0].settle = 0
	e.write(t, "in/a.csv", "title\nScheduled\n\n,no title\n")
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { _ = built.Run(ctx); close(stopped) }()
	deadline := time.Now().Add(15 * time.Second)
	for !slices.Contains(listDir(t, filepath.Join(e.dir, "done")), "a.csv") && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	cancel()
	<-stopped
	if n := len(e.records(t, core.RecordFeedback)); n != 1 {
		t.Fatalf("%d records after the schedule fired, want 1", n)
	}
	got := map[string]float64{}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			key := mf.GetName()
			for _, l := range m.GetLabel() {
				key += " " + l.GetName() + "=" + l.GetValue()
			}
			got[key] = m.GetCounter().GetValue()
		}
	}
	for key, want := range map[string]float64{
		"feedbridge_csv_rows_total connector=crm outcome=created":  1,
		"feedbridge_csv_rows_total connector=crm outcome=failed":   1,
		"feedbridge_csv_runs_total connector=crm status=succeeded": 1,
	} {
		if got[key] != want {
			t.Errorf("%s = %v, want %v (all: %v)", key, got[key], want, got)
		}
	}
}

// TestEntryChosenReading: an entry's encoding and delimiter keys read a file that detection gets wrong
// (commas tie with the semicolons; É before a no-break space is valid UTF-8).
func TestEntryChosenReading(t *testing.T) {
	e := newTestEnv(t)
	en := e.entry(t, func(c *Config) {
		c.Encoding, c.Delimiter = EncWindows1252, "semicolon"
		c.Mapping = map[string]string{"description": "Details, as written, unedited"}
	})
	e.write(t, "in/a.csv", "Title;Details, as written, unedited\nPRIORIT\xc9\xa0! Invoice sent twice;12,50 EUR, twice\n")
	en.runOnce(context.Background())
	recs := e.records(t, core.RecordFeedback)
	if len(recs) != 1 || recs[0].Title != "PRIORITÉ\u00a0! Invoice sent twice" || recs[0].Description != "12,50 EUR, twice" {
		t.Fatalf("records %+v", recs)
	}
}
