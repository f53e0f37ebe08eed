package csvimport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/recovery"
)

// importer carries one run: it streams rows into batches and keeps the run's counters, which always add
// up (rows = created + duplicates + failed).
//
// Reading and writing overlap: the next batch is read while the store writes the last one, and a store that
// takes parallel bulk writes (PostgreSQL) gets the next one before the last has committed, each in its own
// transaction. Only the store call leaves the importing goroutine, and batches are counted in input order,
// so the counters, the errors file and the progress calls come out as if the batches had been written one
// after the other.
type importer struct {
	svc      connectors.Service
	ws       core.ID
	opts     Options
	now      func() time.Time
	run      core.ImportRun
	tags     tagMatcher
	errs     *ErrorWriter
	cur      *batch    // being filled
	inflight []*batch  // handed to the store, oldest first, not counted yet
	parallel int       // how many batches may be in flight
	size     int       // rows per batch now, up to opts.BatchSize (see fit)
	lastEnd  time.Time // when the last batch counted finished writing
	saved    time.Time
	failed   failedKeeper
}

// writers is how many batches the run may have in flight: as many as the store takes to advantage (a dry
// run writes nothing).
func (im *importer) writers() int {
	if im.opts.DryRun {
		return 1
	}
	return im.svc.BatchWriters()
}

// batch is a run of consecutive input rows: the good ones are written together, and the rows that could
// not be read are reported with them, so that the errors file follows the input.
type batch struct {
	subs []core.Submission
	rows []Row // the rows behind subs, for the errors file
	bad  []Row // rows the reader refused
	keys map[string]bool
	done chan struct{} // closed when res, err, start and end are set
	res  []core.BatchResult
	err  error
	// start and end bound the batch's write, zero when nothing was written.
	start, end time.Time
}

func (b *batch) size() int { return len(b.subs) + len(b.bad) }

// overlaps reports whether o holds a dedup key of b.
func (b *batch) overlaps(o *batch) bool {
	for _, s := range b.subs {
		if o.keys[s.DedupKey] {
			return true
		}
	}
	return false
}

func (im *importer) importAll(ctx context.Context, r io.Reader) error {
	rd, err := NewReader(r, ReadOptions{Mapping: im.opts.Mapping, DateOrder: im.opts.DateOrder,
		Encoding: im.opts.Encoding, Delimiter: im.opts.Delimiter})
	if err != nil {
		return err
	}
	im.failed.header = rd.Header()
	tags, err := im.svc.Tags(ctx, im.ws)
	if err != nil {
		return fmt.Errorf("list tags: %w", err)
	}
	im.tags = newTagMatcher(tags)
	if !im.opts.DryRun && im.opts.ErrorsFile != "" {
		// A file left by an earlier, interrupted run of the same input would describe rows of that run.
		if err := os.Remove(im.opts.ErrorsFile); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("errors file: %w", err)
		}
	}
	im.errs = NewErrorWriter(rd, im.openErrors)
	defer im.errs.Close()
	im.cur, im.parallel, im.size = &batch{}, im.writers(), im.opts.BatchSize
	if err := im.readAll(ctx, rd); err != nil {
		// Batches still being written are counted if they were stored, so the run says what it created.
		return errors.Join(err, im.drain(ctx, len(im.inflight)))
	}
	if err := im.errs.Close(); err != nil {
		return fmt.Errorf("errors file: %w", err)
	}
	return nil
}

func (im *importer) readAll(ctx context.Context, rd *Reader) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		row, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if row.Err != nil {
			im.cur.bad = append(im.cur.bad, row)
		} else {
			im.cur.subs = append(im.cur.subs, im.submission(row.Fields))
			im.cur.rows = append(im.cur.rows, row)
		}
		if im.cur.size() >= im.size {
			if err := im.send(ctx); err != nil {
				return err
			}
		}
	}
	if err := im.send(ctx); err != nil {
		return err
	}
	return im.drain(ctx, len(im.inflight))
}
func (im *importer) openErrors() (io.WriteCloser, error) {
	if im.opts.DryRun || im.opts.ErrorsFile == "" {
		return discard{}, nil
	}
	if err := os.MkdirAll(filepath.Dir(im.opts.ErrorsFile), 0o750); err != nil {
		return nil, err
	}
	// The rows hold customers' data: readable by the owner and group only. The file was removed when the
	// run began; it is created anew, never through a link someone put in its place (that would write the
	// rows wherever the link points) and never into a file that appeared meanwhile.
	return os.OpenFile(im.opts.ErrorsFile, os.O_CREATE|os.O_EXCL|os.O_WRONLY|openNoFollow, 0o640)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }

func (im *importer) submission(f Fields) core.Submission {
	// A release or timeframe column found by its alias in an import of another type is an ordinary
	// unmapped column (CheckMappingType refused mapping it explicitly).
	if im.opts.RecordType != core.RecordFeature {
		f.Release = ""
	}
	if im.opts.RecordType != core.RecordObjective {
		f.Timeframe = ""
	}
	return core.Submission{
		Type:          im.opts.RecordType,
		Title:         f.Title,
		Description:   f.Description,
		PlainText:     true, // a cell is typed text: "<jane@acme.com>" is an address, not a tag
		CustomerEmail: f.CustomerEmail,
		CustomerName:  f.CustomerName,
		Source:        f.Source,
		DefaultSource: "CSV",
		CreatedAt:     f.CreatedAt,
		TagIDs:        im.tags.ids(f.Tags),
		Release:       f.Release,
		Timeframe:     f.Timeframe,
		DedupKey:      dedupKey(im.opts.Connector, f),
		ImportRun:     im.run.ID,
	}
}

// bad records a row that is not imported. Losing its report would lose the row, so a failing errors file
// fails the run.
func (im *importer) bad(row Row, reason string) error {
	im.run.Rows++
	im.run.Failed++
	if im.opts.BadRow != nil {
		im.opts.BadRow(row.Line, reason)
	}
	if err := im.errs.Write(row.Columns, reason); err != nil {
		return fmt.Errorf("errors file: %w", err)
	}
	if !im.opts.DryRun {
		im.failed.add(row, reason)
	}
	return nil
}

// send hands the filled batch to the store and starts the next. It first counts the oldest batches while
// too many are in flight, and every batch in flight that shares a dedup key with this one, so that of two
// rows with one key the first in the input is the one created.
func (im *importer) send(ctx context.Context) error {
	b := im.cur
	im.cur = &batch{}
	if b.size() == 0 {
		return nil
	}
	b.keys = make(map[string]bool, len(b.subs))
	for _, s := range b.subs {
		b.keys[s.DedupKey] = true
	}
	wait := max(0, len(im.inflight)-im.parallel+1)
	for i := len(im.inflight) - 1; i >= wait; i-- {
		if b.overlaps(im.inflight[i]) {
			wait = i + 1
			break
		}
	}
	if err := im.drain(ctx, wait); err != nil {
		return err
	}
	b.done = make(chan struct{})
	im.inflight = append(im.inflight, b)
	switch {
	case len(b.subs) == 0:
		close(b.done)
	case im.opts.DryRun:
		b.res = checkBatch(im.svc, b.subs)
		close(b.done)
	default:
		go func() {
			defer close(b.done)
			defer recovery.Guard(im.opts.Log, "csv: write batch", &b.err)
			b.start = time.Now()
			b.res, b.err = im.write(ctx, b.subs)
			b.end = time.Now()
		}()
	}
	return nil
}

// drain waits for the oldest n batches in flight and counts them. Once one has failed, every batch in
// flight is awaited, and those that were stored are still counted; the first error is returned.
func (im *importer) drain(ctx context.Context, n int) error {
	var first error
	for ; len(im.inflight) > 0 && (n > 0 || first != nil); n-- {
		b := im.inflight[0]
		<-b.done
		im.fit(b)
		im.inflight[0] = nil
		im.inflight = im.inflight[1:]
		err := b.err
		if err == nil {
			err = im.count(ctx, b)
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// A batch's rows are written in one transaction, and on SQLite every other writer, a command beside the
// daemon included, waits for it. So the batch size follows how long the last write took: halved while
// one takes longer than batchTime, doubled back towards opts.BatchSize while one takes less than a
// quarter of it. On a quiet machine batches stay full; on a busy one they shrink until a write again takes
// about batchTime. A write's time counts from its start or the previous batch's end, whichever is later,
// so that a batch queued behind the one before it is not charged for that one's write.
const (
	batchTime = 100 * time.Millisecond
	minBatch  = 100
)

// fit adjusts the batch size to the write of b, the oldest batch in flight.
func (im *importer) fit(b *batch) {
	if b.end.IsZero() {
		return
	}
	took := b.end.Sub(later(b.start, im.lastEnd))
	im.lastEnd = later(b.end, im.lastEnd)
	switch {
	case took > batchTime:
		im.size = max(im.size/2, min(minBatch, im.opts.BatchSize))
	case took < batchTime/4:
		im.size = min(im.size*2, im.opts.BatchSize)
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// count reports a written batch: every row's outcome, in input order.
func (im *importer) count(ctx context.Context, b *batch) error {
	bad := b.bad
	for i, r := range b.res {
		for len(bad) > 0 && bad[0].Line < b.rows[i].Line {
			if err := im.bad(bad[0], bad[0].Err.Error()); err != nil {
				return err
			}
			bad = bad[1:]
		}
		switch {
		case r.Err != nil:
			if err := im.bad(b.rows[i], r.Err.Error()); err != nil {
				return err
			}
		case r.Created:
			im.run.Rows++
			im.run.Created++
		default:
			im.run.Rows++
			im.run.Duplicates++
		}
	}
	for _, row := range bad {
		if err := im.bad(row, row.Err.Error()); err != nil {
			return err
		}
	}
	if err := im.failed.flush(ctx, im.svc, im.ws, im.run.ID); err != nil {
		return err
	}
	im.progress(ctx)
	return nil
}

// write submits a batch, retrying while the store is briefly unavailable. When the store refuses the
// batch as a whole over one record (a tag deleted meanwhile), the records are written one by one so that
// only that one fails.
func (im *importer) write(ctx context.Context, subs []core.Submission) ([]core.BatchResult, error) {
	delay := 200 * time.Millisecond
	for attempt := 1; ; attempt++ {
		res, err := im.svc.SubmitBatch(ctx, im.ws, subs)
		if err == nil {
			return res, nil
		}
		var verr *core.ValidationError
		if errors.As(err, &verr) && len(subs) > 1 {
			return im.writeOneByOne(ctx, subs)
		}
		if errors.As(err, &verr) {
			return []core.BatchResult{{Err: verr}}, nil
		}
		if !errors.Is(err, core.ErrUnavailable) || attempt == 4 {
			return nil, fmt.Errorf("write rows: %w", err)
		}
		if err := sleep(ctx, delay); err != nil {
			return nil, err
		}
		delay *= 4
	}
}

func (im *importer) writeOneByOne(ctx context.Context, subs []core.Submission) ([]core.BatchResult, error) {
	out := make([]core.BatchResult, len(subs))
	for i := range subs {
		res, err := im.write(ctx, subs[i:i+1])
		if err != nil {
			return nil, err
		}
		out[i] = res[0]
	}
	return out, nil
}

// progress reports the counters, and saves them now and then so that GET /api/imports shows a long
// import advancing.
func (im *importer) progress(ctx context.Context) {
	if im.opts.Progress != nil {
		im.opts.Progress(im.run)
	}
	if im.opts.DryRun || im.now().Sub(im.saved) < progressEvery {
		return
	}
	im.saved = im.now()
	if err := im.svc.FinishImport(ctx, im.run); err != nil && im.opts.Log != nil {
		im.opts.Log.WithError(err).Warn("csv: save import progress")
	}
}

// finish stamps the run's outcome and stores it, even when ctx has ended (shutdown).
func (im *importer) finish(ctx context.Context, cause error) (core.ImportRun, error) {
	im.run.FinishedAt = im.now()
	if cause == nil {
		im.run.Status = core.ImportSucceeded
	} else {
		im.run.Status, im.run.Error = core.ImportFailed, cause.Error()
		if ctx.Err() != nil {
			im.run.Error = "interrupted: " + cause.Error()
		}
	}
	if !im.opts.DryRun {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		// Rows counted by a batch that failed half-way are still waiting.
		if err := im.failed.flush(sctx, im.svc, im.ws, im.run.ID); err != nil {
			cause = errors.Join(cause, err)
		}
		if err := im.svc.FinishImport(sctx, im.run); err != nil {
			cause = errors.Join(cause, fmt.Errorf("save import run: %w", err))
		}
	}
	if im.opts.Progress != nil {
		im.opts.Progress(im.run)
	}
	if unknown := im.tags.unknownLabels(); len(unknown) > 0 && im.opts.UnknownTags != nil {
		im.opts.UnknownTags(unknown)
	}
	if log := im.opts.Log; log != nil {
		log.WithFields(map[string]any{"file": im.run.File, "run": im.run.ID, "status": im.run.Status, "rows": im.run.Rows,
			"created": im.run.Created, "duplicates": im.run.Duplicates, "failed": im.run.Failed,
			"seconds": im.run.FinishedAt.Sub(im.run.StartedAt).Seconds()}).Info("csv: import finished")
		if unknown := im.tags.unknownLabels(); len(unknown) > 0 {
			log.WithField("labels", unknown).Warn("csv: tag labels that match no workspace tag were left off the records")
		}
	}
	return im.run, cause
}
