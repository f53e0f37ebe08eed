package csvimport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// logEvery is how often a long import logs its progress.
const logEvery = 5 * time.Second

var _ connectors.Builder = Build

// Build is the connectors.Builder of `connectors.csv`: it validates every entry, without network calls,
// and returns a Set that runs each entry's schedule on one replica at a time.
func Build(entries []map[string]any, env connectors.Env) (connectors.Set, error) {
	env = env.WithDefaults()
	m, err := connectors.Metrics(env, newMetrics)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	es, err := connectors.Entries(Kind, entries, env, func(en connectors.Entry, c *Config) (*entry, error) {
		spec, err := parseConfig(*c)
		if err != nil {
			return nil, err
		}
		e := newEntry(en, spec, env, nil)
		e.metrics = m
		return e, nil
	})
	if err != nil {
		return nil, err
	}
	return &set{env: env, entries: es}, nil
}

// Kind is the key of this connector under `connectors:`.
const Kind = "csv"

type set struct {
	env     connectors.Env
	entries []*entry
}

// Run runs every entry's schedule until ctx ends. Each entry holds the lease "csv:<name>" while it runs,
// so with several replicas each schedule fires on one of them; its runs follow one another, so a run
// that outlasts its interval is never started a second time (the missed ticks are skipped).
func (s *set) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, e := range s.entries {
		wg.Go(func() { e.RunExclusive(ctx, s.env, e.loop) })
	}
	wg.Wait()
	return nil
}

// entry is one configured import and its state between runs.
type entry struct {
	connectors.Entry
	spec    *entrySpec
	env     connectors.Env
	client  *http.Client
	settle  time.Duration
	wait    func(context.Context, time.Duration) error
	metrics *metrics
	// refusedFiles are the drop-folder entries refused at the last run (not regular files of their own):
	// each is a refused item once, not once per run.
	refusedFiles map[string]bool
}

func newEntry(en connectors.Entry, spec *entrySpec, env connectors.Env, tlsConf *tls.Config) *entry {
	m, _ := newMetrics(prometheus.NewRegistry())
	e := &entry{Entry: en, spec: spec, env: env, settle: settleTime, wait: sleep, metrics: m}
	if spec.url != nil {
		e.client = connectors.HTTPClient(connectors.HTTPOptions{AllowPrivate: spec.AllowPrivate, TLS: tlsConf})
	}
	return e
}

// loop runs the schedule while this replica holds the entry's lease.
func (e *entry) loop(ctx context.Context) error {
	e.closeInterrupted(ctx)
	e.Report(ctx, connectors.StateRunning)
	for {
		now := e.env.Now()
		next := e.spec.schedule.Next(now)
		if next.IsZero() {
			return errors.New("schedule never fires")
		}
		if err := e.wait(ctx, next.Sub(now)); err != nil {
			return nil
		}
		e.runOnce(ctx)
	}
}

// runOnce imports what the source has now and reports the outcome.
func (e *entry) runOnce(ctx context.Context) {
	e.Report(ctx, connectors.StateBusy)
	var err error
	if e.spec.url != nil {
		err = e.importURL(ctx)
	} else {
		err = e.importFiles(ctx)
	}
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		e.Log.WithError(err).Error("csv: import failed")
		e.Fail(err)
		e.Report(ctx, connectors.StateError)
		return
	}
	e.Succeeded(e.env.Now())
	e.Report(ctx, connectors.StateRunning)
}

// importFiles imports every complete file of the glob and archives it. A file that failed for a passing
// reason (store down, read error) stays for the next run; one that can never be imported as it is (no
// title column, say) is archived with its failed run so that it does not fail every run.
func (e *entry) importFiles(ctx context.Context) error {
	ready, busy, refused, err := readyFiles(ctx, e.spec.Path, e.settle, e.wait)
	if err != nil {
		return err
	}
	for _, f := range busy {
		e.Log.WithField("file", f).Info("csv: file is still being written; left for the next run")
	}
	still := make(map[string]bool, len(refused))
	for _, f := range refused {
		e.Log.WithField("file", f).Warn("csv: " + errNotRegular.Error() + "; left alone")
		if !e.refusedFiles[f] { // counted once while it stays, though every run sees it again
			e.Refused("file " + filepath.Base(f) + " refused: " + errNotRegular.Error() + "; left alone")
		}
		still[f] = true
	}
	e.refusedFiles = still
	var errs []error
	for _, f := range ready {
		if ctx.Err() != nil {
			break
		}
		target, err := archivePath(e.spec.ArchiveDir, f, e.env.Now())
		if err != nil {
			// Imported but never archived, the file would be read again on every run.
			run, err := failedRun(ctx, e.env.Service, e.Workspace, f, e.options(""), fmt.Errorf("archive: %w", err))
			e.observe(run)
			errs = append(errs, err)
			continue
		}
		run, err := importDropFile(ctx, e.env.Service, e.Workspace, f, e.options(filepath.Join(e.spec.ArchiveDir, ErrorsFileName(target))))
		e.observe(run)
		var fe *FormatError
		switch {
		case err == nil:
		case errors.As(err, &fe) && run.ID != "":
			// The sender's file, not a fault of the entry: a refused item, archived with its failed run.
			e.Refused("file " + filepath.Base(f) + " refused: " + fe.Error() + "; archived")
		case errors.As(err, &fe):
			errs = append(errs, err) // its failed run was not stored: say so as a fault, archive it all the same
		default:
			errs = append(errs, err)
			continue
		}
		if err := moveFile(f, target); err != nil {
			errs = append(errs, fmt.Errorf("archive %s: %w", f, err))
		}
	}
	return errors.Join(errs...)
}

// importURL fetches the URL and imports the body as it arrives. Each run's errors file carries the run's
// time in its name, since the URL's file name is the same every time.
func (e *entry) importURL(ctx context.Context) error {
	label := urlLabel(e.spec.url)
	name := urlFileName(e.spec.url, e.Name)
	stem := strings.TrimSuffix(name, filepath.Ext(name))
	errorsFile := filepath.Join(e.spec.ArchiveDir, ErrorsFileName(stem+"-"+e.env.Now().UTC().Format("20060102T150405Z")+".csv"))
	opts := e.options(errorsFile)
	headers, err := e.spec.resolveHeaders()
	var body io.ReadCloser
	if err == nil {
		body, err = fetch(ctx, e.client, e.spec.url, headers, e.spec.Timeout, e.spec.MaxBytes)
	}
	var run core.ImportRun
	if err != nil {
		run, err = failedRun(ctx, e.env.Service, e.Workspace, label, opts, err)
	} else {
		run, err = Import(ctx, e.env.Service, e.Workspace, body, label, opts)
		body.Close()
	}
	e.observe(run)
	return err
}

func (e *entry) options(errorsFile string) Options {
	var last time.Time
	return Options{
		Connector:  e.Name,
		RecordType: e.spec.recordType,
		Mapping:    e.spec.Mapping,
		DateOrder:  e.spec.dateOrder,
		Encoding:   e.spec.Encoding,
		Delimiter:  e.spec.delimiter,
		ErrorsFile: errorsFile,
		Log:        e.Log,
		Progress: func(r core.ImportRun) {
			now := e.env.Now()
			if r.Status != core.ImportRunning || now.Sub(last) < logEvery {
				return
			}
			if last.IsZero() {
				last = now // the first batch is not worth a line
				return
			}
			last = now
			rate := float64(r.Rows) / now.Sub(r.StartedAt).Seconds()
			e.Log.WithFields(logrus.Fields{"file": r.File, "rows": r.Rows, "created": r.Created, "duplicates": r.Duplicates,
				"failed": r.Failed, "rows_per_second": int(rate)}).Info("csv: importing")
		},
	}
}

// closeInterrupted marks as failed the runs of this entry that a stopped process left "running", without
// waiting for their leases to run out: it runs under the entry's lease, so no other replica is importing
// for the entry. Then it closes the workspace's other abandoned runs (`feedbridge import csv` killed, say).
func (e *entry) closeInterrupted(ctx context.Context) {
	runs, err := e.env.Service.ImportRuns(ctx, e.Workspace)
	if err != nil {
		e.Log.WithError(err).Warn("csv: list import runs")
		return
	}
	for _, r := range runs {
		if r.Connector != e.Name || r.Status != core.ImportRunning {
			continue
		}
		r.Status, r.Error = core.ImportFailed, interruptedError
		if err := e.env.Service.FinishImport(ctx, r); err != nil {
			e.Log.WithError(err).Warn("csv: close interrupted run")
		}
	}
	closeAbandoned(ctx, e.env.Service, e.Workspace, e.Log)
}

// sleep is connectors.Sleep with the context's error when it ends first.
func sleep(ctx context.Context, d time.Duration) error {
	if connectors.Sleep(ctx, d) {
		return nil
	}
	return ctx.Err()
}

// observe notes a finished run in the metrics and in today's counts: its created rows taken, its failed
// rows refused.
func (e *entry) observe(run core.ImportRun) {
	e.metrics.observe(e.Name, run)
	e.Took(run.Created)
	e.CountRefused(run.Failed)
}
