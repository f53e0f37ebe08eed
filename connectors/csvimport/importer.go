package csvimport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// Options steer one import.
type Options struct {
	// Connector names the run ("cli" for the command line) and scopes external-id duplicates: a row
	// with external id X is imported once per connector name.
	Connector  string
	RecordType core.RecordType               // Feedback when empty
	Mapping    map[string]string             // field → header; see ParseMapping
	DateOrder  DateOrder                     // how to read created_at dates of digits only
	Encoding   string                        // "" detects it; else one of Encodings
	Delimiter  rune                          // 0 detects it; else one of Delimiters
	DryRun     bool                          // read and check every row, write nothing: no record, no run, no errors file
	ErrorsFile string                        // where bad rows go; ImportFile defaults it to <input>.errors.csv beside the input
	BatchSize  int                           // rows per store transaction at most (fewer while writes are slow); 0: DefaultBatchSize
	Progress   func(core.ImportRun)          // called after every batch and once at the end; must not block
	BadRow     func(line int, reason string) // called for every row that is not imported
	Log        *logrus.Entry                 // nil: no log lines
	// UnknownTags, when set, is called once at the end with the tag labels that matched no workspace
	// tag and were left off the records (most frequent first, at most 20).
	UnknownTags func(labels []string)
	// ReadBytes, when set, counts the input's bytes read so far (ImportFile only), for progress estimates.
	ReadBytes *atomic.Int64
	// Actor, when set, is who the records' history credits (the member who imported in the console);
	// otherwise the command line or the connector entry.
	Actor *core.Actor
}

// DefaultBatchSize is the number of rows written per transaction: large enough that the per-transaction
// cost vanishes, small enough that a crash repeats little and other writers are not held up for long.
const DefaultBatchSize = 1000

// ConnectorCLI is the connector name of runs started from the command line.
const ConnectorCLI = "cli"

// A run keeps its failed rows with it in the store, for download whichever way it was started: the first
// FailedRowsKept of them, or fewer when their cells would pass FailedBytesKept (the rows past the bound are
// counted, and are in the errors file when there is one). They are deleted FailedRowsAge after the run
// started, by the next import into the workspace.
const (
	FailedRowsKept  = 10_000
	FailedBytesKept = 16 << 20
	FailedRowsAge   = 30 * 24 * time.Hour
)

// progressEvery is how often a running import saves its counters for GET /api/imports.
const progressEvery = 2 * time.Second

// FormatError is a file that cannot be imported at all (no header, no title column, a mapping naming a
// missing column). Trying again will not help; the file or the mapping has to change. Header is the
// header row when it was read, so that a person can choose a mapping, or another delimiter, from it.
type FormatError struct {
	Err    error
	Header []string
	// Encoding and Delimiter are those the header was read with, when it was read.
	Encoding  string
	Delimiter rune
}

func (e *FormatError) Error() string { return e.Err.Error() }
func (e *FormatError) Unwrap() error { return e.Err }

// ImportFile imports one local CSV file as the command line does: the errors file goes beside the input
// unless opts.ErrorsFile says otherwise. The returned run is the stored run object (not stored on a dry
// run). A run with bad rows is a success; the error return means the file could not be read or stored.
func ImportFile(ctx context.Context, svc connectors.Service, ws core.ID, path string, opts Options) (core.ImportRun, error) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if opts.Connector == "" {
		opts.Connector = ConnectorCLI
	}
	if opts.ErrorsFile == "" {
		opts.ErrorsFile = filepath.Join(filepath.Dir(path), ErrorsFileName(path))
	}
	f, err := os.Open(path)
	if err != nil {
		return failedRun(ctx, svc, ws, path, opts, err)
	}
	defer f.Close()
	var in io.Reader = f
	if opts.ReadBytes != nil {
		in = countingReader{f, opts.ReadBytes}
	}
	return Import(ctx, svc, ws, in, path, opts)
}

// countingReader adds the bytes it reads to n.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}

// failedRun records a run that could not even open its input, in one write.
func failedRun(ctx context.Context, svc connectors.Service, ws core.ID, name string, opts Options, cause error) (core.ImportRun, error) {
	run := core.ImportRun{Workspace: ws, Connector: opts.Connector, File: name, Status: core.ImportFailed, Error: cause.Error()}
	if opts.DryRun {
		return run, cause
	}
	stored := run
	stored.ID, stored.StartedAt = core.NewID(), svc.Now()
	stored.FinishedAt = stored.StartedAt
	if err := svc.FinishImport(ctx, stored); err != nil {
		return run, errors.Join(cause, err)
	}
	return stored, cause
}

// forgetFailedRows deletes the failed rows past their keeping time; a failure is logged, never fatal.
func forgetFailedRows(ctx context.Context, svc connectors.Service, ws core.ID, log *logrus.Entry) {
	n, err := svc.ForgetFailedRows(ctx, ws, svc.Now().Add(-FailedRowsAge))
	if log == nil {
		return
	}
	if err != nil {
		log.WithError(err).Warn("csv: delete old failed rows")
	} else if n > 0 {
		log.WithField("rows", n).Debug("csv: deleted old failed rows")
	}
}

// Import reads CSV from r and writes its rows as records; name is the run's file label. Bad rows go to
// opts.ErrorsFile when set.
func Import(ctx context.Context, svc connectors.Service, ws core.ID, r io.Reader, name string, opts Options) (core.ImportRun, error) {
	if opts.Connector == "" {
		opts.Connector = ConnectorCLI
	}
	if opts.RecordType == "" {
		opts.RecordType = core.RecordFeedback
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBatchSize
	}
	t, ok := core.ParseRecordType(string(opts.RecordType))
	if !ok {
		return core.ImportRun{}, fmt.Errorf("record type %q: must be Idea, Feedback, Feature or Objective", opts.RecordType)
	}
	opts.RecordType = t
	// The records' history credits the schedule's entry, or the command line.
	switch {
	case opts.Actor != nil:
		ctx = core.WithActor(ctx, *opts.Actor)
	case opts.Connector == ConnectorCLI:
		ctx = core.WithActor(ctx, core.Actor{Kind: core.ActorCLI})
	default:
		ctx = core.WithActor(ctx, core.Actor{Kind: core.ActorConnector, Name: opts.Connector})
	}
	if err := CheckMappingType(opts.Mapping, t); err != nil {
		return core.ImportRun{}, err
	}
	im := &importer{svc: svc, ws: ws, opts: opts, now: svc.Now}
	im.run = core.ImportRun{Workspace: ws, Connector: opts.Connector, File: name, Status: core.ImportRunning, StartedAt: svc.Now()}
	if !opts.DryRun {
		closeAbandoned(ctx, svc, ws, opts.Log)
		forgetFailedRows(ctx, svc, ws, opts.Log)
		run, lease, err := startRun(ctx, svc, ws, opts.Connector, name)
		if err != nil {
			return im.run, fmt.Errorf("start import run: %w", err)
		}
		im.run = run
		defer lease.release()
	}
	err := im.importAll(ctx, r)
	return im.finish(ctx, err)
}
