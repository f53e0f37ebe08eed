package insights

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/core"

	"github.com/feedbridge/feedbridge/internal/recovery"
)

// storeTimeout bounds each store call that records a job's outcome; they run detached from the pool's
// context so that a result reached during shutdown is still written. Once the pool stops, a call still
// waiting on the store gets at most shutdownGrace more: a store that does not answer must not hold up the
// stop, and the job keeps its claim until the lease runs out, as after a crash.
const (
	storeTimeout  = 10 * time.Second
	shutdownGrace = 2 * time.Second
)

// storeCall returns the context for one store call made on the pool's behalf: detached from ctx, bounded by
// storeTimeout, and by shutdownGrace once ctx ends.
func storeCall(ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(shutdownGrace, cancel) })
	return c, func() { stop(); cancel() }
}

// An outcome that cannot be written because the store is unavailable (down, busy) is written again after
// a wait that starts at firstRewrite and doubles up to maxRewrite, so the job is done within about
// maxRewrite of the store's return rather than when its claim runs out.
const (
	firstRewrite = 100 * time.Millisecond
	maxRewrite   = 2 * time.Second
)

// maxErrorText bounds the error kept with a failed job.
const maxErrorText = 1000

// process runs one claimed job to its end: done with insights, requeued with backoff, kept as failed after
// its last attempt, or released untouched when the pool is stopping.
func (p *Pool) process(ctx context.Context, job core.InsightJob) {
	start := p.cfg.Now()
	log := p.log.WithFields(logrus.Fields{"job": job.ID, "workspace": job.Workspace, "record": job.RecordID,
		"attempt": job.Attempts})
	// The claim was made just before and the heartbeat keeps it while the job runs; rewriting an outcome
	// stops when the claim may have run out (the heartbeat failing too).
	claimed := time.Now()
	settled := true // the heartbeat covers the job until its outcome is written
	defer func() {
		if settled {
			p.held.Add(-1)
		}
	}()
	jctx, cancel := context.WithTimeout(ctx, maxExtract)
	defer cancel()
	ins, err := p.extract(jctx, job)
	w := outcome{ctx: ctx, log: log, until: func() time.Time { return p.heldUntil(claimed) }}
	switch {
	case err != nil && ctx.Err() != nil:
		if rerr := w.write("release job at shutdown", func(c context.Context) error {
			return p.store.ReleaseInsightJob(c, job, p.cfg.Holder)
		}); rerr != nil {
			log.WithError(rerr).Warn("insights: release job at shutdown (its lease will expire)")
		}
	case err != nil:
		p.fault(true)
		p.fail(w, job, err)
	default:
		p.fault(false)
		// The worker moves on to its next job while the insights are written: writes in flight together
		// share a transaction (SQLite) or run side by side (PostgreSQL), where one at a time per worker
		// bounded the queue's drain by the store's round trip rather than by extraction.
		settled = false
		p.writeBehind(func() {
			defer p.held.Add(-1)
			if cerr := w.write("complete job", func(c context.Context) error {
				return p.store.CompleteInsightJob(c, job, p.cfg.Holder, ins)
			}); cerr != nil {
				// The store stayed unavailable until the lease ran out or the pool stopped, or the lease ran out
				// and another worker holds the job now; either way the job runs again.
				log.WithError(cerr).Warn("insights: complete job (the lease will expire and the job rerun)")
				p.metrics.failures.WithLabelValues(p.ex.Name(), "false").Inc()
				return
			}
			done := p.cfg.Now()
			p.metrics.duration.WithLabelValues(p.ex.Name()).Observe(done.Sub(start).Seconds())
			p.metrics.lag.Observe(done.Sub(job.CreatedAt).Seconds())
			p.metrics.completed.WithLabelValues(p.ex.Name()).Inc()
			log.WithField("insights", len(ins)).Debug("insights: job done")
		})
	}
}

// writeBehind runs fn, a job's outcome write, on its own goroutine once fewer than cap(p.writes) are in
// flight; it blocks while that many are, so a slow store still holds the workers back.
func (p *Pool) writeBehind(fn func()) {
	p.writes <- struct{}{}
	p.pending.Add(1)
	go func() {
		defer func() {
			<-p.writes
			p.pending.Done()
		}()
		fn()
	}()
}

// fault tells the process's fault list whether the extractor's last call failed.
func (p *Pool) fault(failing bool) {
	if p.cfg.Faults != nil {
		p.cfg.Faults.Set("insights:"+p.ex.Name(), failing)
	}
}

// extract reads the record and its workspace's tags and runs the extractor. A record that no longer
// exists has nothing to extract: no insights, no error.
func (p *Pool) extract(ctx context.Context, job core.InsightJob) ([]core.Insight, error) {
	rec, err := p.store.Record(ctx, job.Workspace, job.RecordID)
	if errors.Is(err, core.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read record: %w", err)
	}
	tags, err := p.store.Lookups(ctx, job.Workspace, core.LookupTag)
	if err != nil {
		return nil, fmt.Errorf("read tags: %w", err)
	}
	labels := make([]string, len(tags))
	for i, t := range tags {
		labels[i] = t.Label
	}
	got, err := func() (got []Insight, err error) {
		// The text is a customer's; a panic on it fails this job (retried, then kept as failed), not the daemon.
		defer recovery.Guard(p.log, "insights: extract", &err)
		return p.ex.Extract(ctx, Input{Title: rec.Title, Text: rec.Description, Tags: labels})
	}()
	if err != nil {
		return nil, fmt.Errorf("%s extractor: %w", p.ex.Name(), err)
	}
	now := p.cfg.Now().UTC().Truncate(time.Millisecond)
	out := make([]core.Insight, len(got))
	for i, in := range got {
		out[i] = core.Insight{
			ID: core.NewIDAt(now), Workspace: job.Workspace, RecordID: job.RecordID, Kind: in.Kind,
			Summary: in.Summary, Quote: in.Quote, Sentiment: in.Sentiment, SentimentScore: in.Score,
			Themes: in.Themes, Tags: in.Tags, Extractor: p.ex.Name(), CreatedAt: now,
		}
	}
	return out, nil
}

// fail records a failed attempt: requeued after a backoff, or kept as failed when it was the last one.
func (p *Pool) fail(w outcome, job core.InsightJob, err error) {
	log := w.log
	// The store queues every job with the default attempt count; the configured one decides.
	maxAttempts := p.cfg.MaxAttempts
	if maxAttempts <= 0 {
		maxAttempts = max(job.MaxAttempts, 1)
	}
	final := job.Attempts >= maxAttempts
	var retryAfter time.Duration
	var temp *TemporaryError
	if errors.As(err, &temp) {
		retryAfter = temp.RetryAfter
	}
	retryAt := p.cfg.Now().Add(p.backoffFor(job.Attempts, retryAfter))
	msg := err.Error()
	if len(msg) > maxErrorText {
		msg = truncate(msg, maxErrorText)
	}
	p.metrics.failures.WithLabelValues(p.ex.Name(), fmt.Sprint(final)).Inc()
	if ferr := w.write("record failed attempt", func(c context.Context) error {
		return p.store.FailInsightJob(c, job, p.cfg.Holder, msg, retryAt, final)
	}); ferr != nil {
		log.WithError(ferr).Warn("insights: record failed attempt (the lease will expire and the job rerun)")
		return
	}
	if final {
		log.WithError(err).Error("insights: job failed for good; kept for `feedbridge insights retry`")
		return
	}
	log.WithError(err).WithField("retry_at", retryAt.UTC().Format(time.RFC3339)).Warn("insights: job failed, will retry")
}

// outcome writes a job's outcome: each attempt detached from the pool's context and bounded by
// storeTimeout, again while the store is unavailable, until the pool stops (ctx) or the claim may have run
// out (until).
type outcome struct {
	ctx   context.Context
	log   *logrus.Entry
	until func() time.Time
}

func (w outcome) write(what string, call func(context.Context) error) error {
	wait := firstRewrite
	for attempt := 1; ; attempt++ {
		c, cancel := storeCall(w.ctx)
		err := call(c)
		cancel()
		if err == nil {
			if attempt > 1 {
				w.log.WithField("attempts", attempt).Info("insights: " + what + ": written once the store was back")
			}
			return nil
		}
		// A conflict (the claim was lost) or any other refusal is final; only an unavailable or slow store
		// is worth another try.
		if !errors.Is(err, core.ErrUnavailable) && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		d := time.Duration(float64(wait) * (0.8 + 0.4*mrand.Float64()))
		if w.ctx.Err() != nil || time.Now().Add(d).After(w.until()) {
			return err
		}
		if attempt == 1 {
			w.log.WithError(err).Warn("insights: " + what + ": store unavailable, writing again until it is back")
		}
		t := time.NewTimer(d)
		select {
		case <-w.ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(wait*2, maxRewrite)
	}
}
