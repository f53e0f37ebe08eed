package csvimport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// importer carries one run: it streams rows into batches and keeps the run's counters, which always add
// up (rows = created + duplicates + failed).
type importer struct {
	svc   *core.Service
	ws    core.ID
	opts  Options
	now   func() time.Time
	run   core.ImportRun
	tags  tagMatcher
	errs  *ErrorWriter
	subs  []core.Submission
	rows  []Row // the rows behind subs, for the errors file
	saved time.Time
}

func (im *importer) importAll(ctx context.Context, r io.Reader) error {
	rd, err := NewReader(r, ReadOptions{Mapping: im.opts.Mapping})
	if err != nil {
		return err
	}
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
			if err := im.bad(row, row.Err.Error()); err != nil {
				return err
			}
			continue
		}
		im.subs = append(im.subs, im.submission(row.Fields))
		im.rows = append(im.rows, row)
		if len(im.subs) >= im.opts.BatchSize {
			if err := im.flush(ctx); err != nil {
				return err
			}
		}
	}
	if err := im.flush(ctx); err != nil {
		return err
	}
	if err := im.errs.Close(); err != nil {
		return fmt.Errorf("errors file: %w", err)
	}
	return nil
}

func (im *importer) openErrors() (io.WriteCloser, error) {
	if im.opts.DryRun || im.opts.ErrorsFile == "" {
		return discard{}, nil
	}
	if err := os.MkdirAll(filepath.Dir(im.opts.ErrorsFile), 0o750); err != nil {
		return nil, err
	}
	// The rows hold customers' data: readable by the owner and group only.
	return os.OpenFile(im.opts.ErrorsFile, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o640)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }

func (im *importer) submission(f Fields) core.Submission {
	return core.Submission{
		Type:          im.opts.RecordType,
		Title:         f.Title,
		Description:   f.Description,
		CustomerEmail: f.CustomerEmail,
		CustomerName:  f.CustomerName,
		Source:        f.Source,
		DefaultSource: "CSV",
		CreatedAt:     f.CreatedAt,
		TagIDs:        im.tags.ids(f.Tags),
		DedupKey:      dedupKey(im.opts.Connector, f),
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
	return nil
}

// flush writes the pending batch and counts each row's outcome.
func (im *importer) flush(ctx context.Context) error {
	if len(im.subs) == 0 {
		return nil
	}
	var (
		res []core.BatchResult
		err error
	)
	if im.opts.DryRun {
		res = checkBatch(im.svc, im.subs)
	} else if res, err = im.write(ctx, im.subs); err != nil {
		return err
	}
	for i, r := range res {
		switch {
		case r.Err != nil:
			if err := im.bad(im.rows[i], r.Err.Error()); err != nil {
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
	clear(im.rows)
	im.subs, im.rows = im.subs[:0], im.rows[:0]
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
		if err := im.svc.FinishImport(sctx, im.run); err != nil {
			cause = errors.Join(cause, fmt.Errorf("save import run: %w", err))
		}
	}
	if im.opts.Progress != nil {
		im.opts.Progress(im.run)
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

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
