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
// waiting on the store gets at most the stop's grace more (PoolConfig.StopGrace, by default
// shutdownGrace): a store that does not answer must not hold up the stop, and the job keeps its claim
// until the lease runs out, as after a crash.
const (
	storeTimeout  = 10 * time.Second
	shutdownGrace = 2 * time.Second
)

// storeCall returns the context for one store call made on the pool's behalf: detached from ctx, bounded by
// storeTimeout, and ended shutdownGrace after ctx ends. Under Run (withStopGrace) that end is one moment
// shared by every call, so the calls a stop still makes one after another (a claim, an outcome, the
// fence) cannot add up their graces.
func storeCall(ctx context.Context) (context.Context, context.CancelFunc) {
	if grace, ok := ctx.Value(graceKey{}).(context.Context); ok {
		return context.WithTimeout(grace, storeTimeout)
	}
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(shutdownGrace, cancel) })
	return c, func() { stop(); cancel() }
}

type graceKey struct{}

// withStopGrace returns ctx carrying the pool's store-call context: alive while ctx is, and for d after
// it ends.
func withStopGrace(ctx context.Context, d time.Duration) context.Context {
	grace, cancel := context.WithCancel(context.WithoutCancel(ctx))
	context.AfterFunc(ctx, func() { time.AfterFunc(d, cancel) })
	return context.WithValue(ctx, graceKey{}, grace)
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

// process runs one claimed job to its end: handed to the completers with its insights, requeued with
// backoff, kept as failed after its last attempt, or released untouched when the pool is stopping.
func (p *Pool) process(ctx context.Context, c claim, results chan<- finished) {
	job := c.job
	start := p.cfg.Now()
	log := p.log.WithFields(logrus.Fields{"job": job.ID, "workspace": job.Workspace, "record": job.RecordID,
		"attempt": job.Attempts})
	jctx, cancel := context.WithTimeout(ctx, maxExtract)
	ins, err := p.extract(jctx, job, c.in)
	cancel()
	// The heartbeat keeps the claim while the job runs; rewriting an outcome stops when the claim may have
	// run out (the heartbeat failing too).
	w := outcome{ctx: ctx, logs: []*logrus.Entry{log}, until: func() time.Time { return p.heldUntil(c.at) }}
	switch {
	case err != nil && ctx.Err() != nil:
		rerr := w.write("release job at shutdown", func(c context.Context) error {
			return p.store.ReleaseInsightJob(c, job, p.cfg.Holder)
		})
		if rerr != nil {
			log.WithError(rerr).Warn("insights: release job at shutdown (its lease will expire)")
		}
		p.settled(job.ID, rerr)
	case err != nil:
		p.fault(true)
		p.settled(job.ID, p.fail(w, log, job, err))
	default:
		p.fault(false)
		// The worker moves on to its next job while the insights are written: the jobs that finish together
		// are completed in one write, where one write per job bounded the queue's drain by the store's round
		// trips rather than by extraction. A full channel holds the workers back while the store is slow.
		results <- finished{job: job, ins: ins, log: log, start: start, claimed: c.at}
	}
}

// finished is a job whose insights wait to be written.
type finished struct {
	job     core.InsightJob
	ins     []core.Insight
	log     *logrus.Entry
	start   time.Time // when its run began (the pool's clock)
	claimed time.Time
}

// completer writes finished jobs until results is closed: each write takes the job that came first and
// every job that finished while the previous write ran, up to maxComplete.
func (p *Pool) completer(ctx context.Context, results <-chan finished) {
	for f := range results {
		batch := []finished{f}
	gather:
		for len(batch) < maxComplete {
			select {
			case f, ok := <-results:
				if !ok {
					break gather
				}
				batch = append(batch, f)
			default:
				break gather
			}
		}
		p.complete(ctx, batch)
	}
}

// errNotHeld is a finished job's outcome when the store no longer had it leased to this pool.
var errNotHeld = fmt.Errorf("the job's claim ran out and it is no longer this worker's: %w", core.ErrConflict)

// complete stores the insights of batch and marks its jobs done in one store call, written again while
// the store is unavailable until the first job's claim may have run out or the pool stops.
func (p *Pool) complete(ctx context.Context, batch []finished) {
	results := make([]core.JobResult, len(batch))
	logs := make([]*logrus.Entry, len(batch))
	first := batch[0].claimed
	for i, f := range batch {
		results[i], logs[i] = core.JobResult{Job: f.job, Insights: f.ins}, f.log
		if f.claimed.Before(first) {
			first = f.claimed
		}
	}
	var notHeld []core.ID
	w := outcome{ctx: ctx, logs: logs, until: func() time.Time { return p.heldUntil(first) }}
	err := w.write("complete job", func(c context.Context) (err error) {
		notHeld, err = p.store.CompleteInsightJobs(c, p.cfg.Holder, results)
		return err
	})
	lost := make(map[core.ID]bool, len(notHeld))
	for _, id := range notHeld {
		lost[id] = true
	}
	for _, f := range batch {
		ferr := err
		if ferr == nil && lost[f.job.ID] {
			ferr = errNotHeld
		}
		p.settled(f.job.ID, ferr)
		p.completed(f, ferr)
	}
}

// completed logs and counts a finished job's write.
func (p *Pool) completed(f finished, err error) {
	if err != nil {
		// The store stayed unavailable until the lease ran out or the pool stopped, or the lease ran out
		// and another worker holds the job now; either way the job runs again.
		f.log.WithError(err).Warn("insights: complete job (the lease will expire and the job rerun)")
		p.metrics.failures.WithLabelValues(p.ex.Name(), "false").Inc()
		return
	}
	done := p.cfg.Now()
	p.metrics.duration.WithLabelValues(p.ex.Name()).Observe(done.Sub(f.start).Seconds())
	p.metrics.lag.Observe(done.Sub(f.job.CreatedAt).Seconds())
	p.metrics.completed.WithLabelValues(p.ex.Name()).Inc()
	f.log.WithField("insights", len(f.ins)).Debug("insights: job done")
}

// fault tells the process's fault list whether the extractor's last call failed.
func (p *Pool) fault(failing bool) {
	if p.cfg.Faults != nil {
		p.cfg.Faults.Set("insights:"+p.ex.Name(), failing)
	}
}

// input is what a job's extraction reads from the store: its record (nil when it no longer exists) and its
// workspace's tag labels.
type input struct {
	rec    *core.Record
	labels []string
}

// read reads one job's input.
func (p *Pool) read(ctx context.Context, job core.InsightJob) (input, error) {
	rec, err := p.store.Record(ctx, job.Workspace, job.RecordID)
	if errors.Is(err, core.ErrNotFound) {
		return input{}, nil
	}
	if err != nil {
		return input{}, fmt.Errorf("read record: %w", err)
	}
	labels, err := p.tagLabels(ctx, job.Workspace)
	if err != nil {
		return input{}, err
	}
	return input{rec: &rec, labels: labels}, nil
}

func (p *Pool) tagLabels(ctx context.Context, ws core.ID) ([]string, error) {
	tags, err := p.store.Lookups(ctx, ws, core.LookupTag)
	if err != nil {
		return nil, fmt.Errorf("read tags: %w", err)
	}
	labels := make([]string, len(tags))
	for i, t := range tags {
		labels[i] = t.Label
	}
	return labels, nil
}

// prefetch reads the inputs of a claim's jobs with two reads per workspace, where each job reading its own
// took two round trips of its worker's time. A workspace whose reads fail is left out: its jobs' workers
// read for themselves.
func (p *Pool) prefetch(ctx context.Context, jobs []core.InsightJob) map[core.ID]input {
	byWS := map[core.ID][]core.ID{}
	for _, j := range jobs {
		byWS[j.Workspace] = append(byWS[j.Workspace], j.RecordID)
	}
	recs := map[core.ID]*core.Record{}
	labels := map[core.ID][]string{}
	for ws, ids := range byWS {
		c, cancel := storeCall(ctx)
		got, err := p.store.RecordsByID(c, ws, ids)
		if err == nil {
			labels[ws], err = p.tagLabels(c, ws)
		}
		cancel()
		if err != nil {
			delete(labels, ws)
			continue
		}
		for i := range got {
			recs[got[i].ID] = &got[i]
		}
	}
	out := make(map[core.ID]input, len(jobs))
	for _, j := range jobs {
		if l, ok := labels[j.Workspace]; ok {
			out[j.ID] = input{rec: recs[j.RecordID], labels: l}
		}
	}
	return out
}

// extract runs the extractor on the job's input, read now unless the claim brought it (in). A record that
// no longer exists has nothing to extract: no insights, no error.
func (p *Pool) extract(ctx context.Context, job core.InsightJob, in *input) ([]core.Insight, error) {
	if in == nil {
		got, err := p.read(ctx, job)
		if err != nil {
			return nil, err
		}
		in = &got
	}
	if in.rec == nil {
		return nil, nil
	}
	rec, labels := in.rec, in.labels
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
// It returns the error of the write, nil once the store took it.
func (p *Pool) fail(w outcome, log *logrus.Entry, job core.InsightJob, err error) error {
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
		return ferr
	}
	if final {
		log.WithError(err).Error("insights: job failed for good; kept for `feedbridge insights retry`")
		return nil
	}
	log.WithError(err).WithField("retry_at", retryAt.UTC().Format(time.RFC3339)).Warn("insights: job failed, will retry")
	return nil
}

// outcome writes a job's outcome: each attempt detached from the pool's context and bounded by
// storeTimeout, again while the store is unavailable, until the pool stops (ctx) or the claim may have run
// out (until).
type outcome struct {
	ctx   context.Context
	logs  []*logrus.Entry // one per job the write settles: each job's own log tells what became of it
	until func() time.Time
}

// logEach logs msg at level on every job's log, with err when not nil.
func (w outcome) logEach(level logrus.Level, msg string, err error, fields logrus.Fields) {
	for _, l := range w.logs {
		if err != nil {
			l = l.WithError(err)
		}
		l.WithFields(fields).Log(level, msg)
	}
}

func (w outcome) write(what string, call func(context.Context) error) error {
	wait := firstRewrite
	for attempt := 1; ; attempt++ {
		c, cancel := storeCall(w.ctx)
		err := call(c)
		cancel()
		if err == nil {
			if attempt > 1 {
				w.logEach(logrus.InfoLevel, "insights: "+what+": written once the store was back", nil, logrus.Fields{"attempts": attempt})
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
			w.logEach(logrus.WarnLevel, "insights: "+what+": store unavailable, writing again until it is back", err, nil)
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
