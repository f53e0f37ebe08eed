package insights

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/core"
)

// PoolConfig tunes the worker pool; zero values are sensible defaults.
type PoolConfig struct {
	Workers      int           // concurrent jobs (insights.workers); 0 runs none here: Run only keeps the metrics
	Lease        time.Duration // how long a claim lasts without a heartbeat (default 15s); renewed every Lease/3
	PollInterval time.Duration // how often an idle pool looks for due jobs (default 1s)
	MaxAttempts  int           // attempts before a job is kept as failed (Service.JobAttempts); ≤ 0: the job's own
	BaseBackoff  time.Duration // wait before the first retry (default 10s), doubling per attempt
	MaxBackoff   time.Duration // longest wait between attempts (default 1h)
	Holder       string        // lease holder id; default host-pid-random, unique per pool
	Log          *logrus.Entry
	Metrics      prometheus.Registerer // nil: metrics are kept but not registered
	Now          func() time.Time
	Faults       *core.Faults  // nil: none kept; else the extractor is listed while its last call failed
	StopGrace    time.Duration // how long a stop still waits on the store to write outcomes and give jobs back (default 2s)
}

// Pool drains the store's insight queue with N workers: it claims due jobs with a lease (also jobs whose
// holder died and let the lease run out), runs the extractor, stores the insights, and on failure requeues
// the job with exponential backoff or, after the last attempt, keeps it as failed.
type Pool struct {
	store   Store
	ex      Extractor
	cfg     PoolConfig
	log     *logrus.Entry
	metrics *poolMetrics
	wake    chan struct{}
	held    atomic.Int32 // jobs claimed and not yet settled
	busy    atomic.Int32 // workers running a job
	beat    atomic.Int64 // when the last heartbeat that went through was sent (Unix ns)
	meanRun atomic.Int64 // running mean of a job's run time in nanoseconds (noteRun); 0 until one ran
	mu      sync.Mutex
	known   map[core.ID]time.Time // jobs this pool holds: the zero time while in hand, else when their write was given up
}

// defaultLease is how long a claim lasts without a heartbeat. The pool renews its claims every third of
// it, so two missed heartbeats in a row are survived, and the jobs of a process that died are claimable
// again within defaultLease (the contract allows 30 s).
const defaultLease = 15 * time.Second

// maxExtract bounds one extraction, however long its claim is kept alive: a call that hangs for good must
// not hold its job for good.
const maxExtract = 5 * time.Minute

// While jobs take little time, the pool keeps a reserve of claimed jobs beside its workers and tops it up
// a claimBatch at a time, so a claim's round trips are shared by that many jobs (see wanted). A crash
// costs the jobs of the reserve an attempt, as it does the running ones: the reserve stays small.
const (
	claimBatch = 128
	reserve    = 2 * claimBatch
)

// writesPerWorker bounds the finished jobs per worker whose insights wait to be written (completer).
const writesPerWorker = 8

// completers is how many writes of finished jobs may be in flight at once: while one is written, the jobs
// that finish meanwhile gather for the next.
const completers = 2

// maxComplete bounds the jobs one write completes.
const maxComplete = 256

// Store is the part of core.Store the pool uses: it claims and completes insight jobs, reads the records
// they are about and the workspace's labels. It works beside the service rather than through it because
// a job is the store's own work, queued with its record in the record's transaction.
type Store interface {
	core.QueueStore
	core.RecordStore
	core.LookupStore
}

// NewPool wires a pool to its store and extractor. It fails only when its metrics cannot be registered.
func NewPool(store Store, ex Extractor, cfg PoolConfig) (*Pool, error) {
	if store == nil || ex == nil {
		return nil, errors.New("insights: pool needs a store and an extractor")
	}
	if cfg.Workers < 0 {
		return nil, errors.New("insights: workers must not be negative")
	}
	if cfg.Lease <= 0 {
		cfg.Lease = defaultLease
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Second
	}
	if cfg.BaseBackoff <= 0 {
		cfg.BaseBackoff = 10 * time.Second
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = time.Hour
	}
	if cfg.Holder == "" {
		cfg.Holder = defaultHolder()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = shutdownGrace
	}
	log := cfg.Log
	if log == nil {
		l := logrus.New()
		l.Out = discard{}
		log = logrus.NewEntry(l)
	}
	m, err := newPoolMetrics(cfg.Metrics)
	if err != nil {
		return nil, err
	}
	return &Pool{store: store, ex: ex, cfg: cfg, log: log.WithField("component", "insights"), metrics: m,
		wake: make(chan struct{}, 1), known: map[core.ID]time.Time{}}, nil
}

// Wake makes an idle pool look for jobs now rather than at its next poll. It never blocks.
func (p *Pool) Wake() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// RecordCreated lets the pool serve as the service's core.Observer, so a new feedback is picked up at once.
func (p *Pool) RecordCreated(_ string, t core.RecordType) {
	if t == core.RecordFeedback {
		p.Wake()
	}
}

// claim is a job as the dispatcher hands it to a worker, with when it was claimed.
type claim struct {
	job core.InsightJob
	at  time.Time
	in  *input // read with the claim's other jobs; nil: the worker reads it
}

// Run works the queue until ctx ends. Then it stops claiming, cancels running extractions and gives their
// jobs, and the claimed jobs no worker started, back to the queue untouched, and returns nil once every
// worker has stopped and every finished job's write has ended.
func (p *Pool) Run(ctx context.Context) error {
	ctx = withStopGrace(ctx, p.cfg.StopGrace)
	jobs := make(chan claim, p.cfg.Workers+reserve)
	free := make(chan struct{}, 1) // a worker finished a job since dispatch last looked
	results := make(chan finished, max(writesPerWorker*p.cfg.Workers, maxComplete))
	var left atomic.Int32 // claimed jobs no worker started before the stop
	var wg, writers sync.WaitGroup
	for i := 0; i < p.cfg.Workers; i++ {
		wg.Go(func() {
			for c := range jobs {
				if ctx.Err() != nil {
					p.settled(c.job.ID, nil) // given back with the others below, in one call
					left.Add(1)
					continue
				}
				p.busy.Add(1)
				start := time.Now()
				p.process(ctx, c, results)
				p.noteRun(time.Since(start))
				p.busy.Add(-1)
				select {
				case free <- struct{}{}:
				default: // dispatch has been told already
				}
			}
		})
	}
	for range completers {
		writers.Go(func() { p.completer(ctx, results) })
	}
	wg.Go(func() { p.watchDepth(ctx) })
	// The heartbeat outlives ctx until the workers are gone: jobs being released or written at shutdown
	// stay claimed until then.
	beatCtx, stopBeat := context.WithCancel(context.WithoutCancel(ctx))
	beatDone := make(chan struct{})
	go func() {
		defer close(beatDone)
		p.heartbeat(beatCtx)
	}()
	defer func() {
		// A renewal waiting on an unanswering store ends by itself; it must not hold up the stop.
		stopBeat()
		select {
		case <-beatDone:
		case <-time.After(p.cfg.StopGrace):
		}
	}()
	fenced := false
	if p.cfg.Workers > 0 {
		fenced = p.dispatch(ctx, jobs, free)
	} else {
		// insights.workers 0: another replica drains the queue; this one only reports its depth.
		<-ctx.Done()
	}
	close(jobs)
	wg.Wait()
	close(results)
	writers.Wait()
	if left.Load() > 0 || fenced {
		p.fence(ctx)
	}
	return nil
}

// dispatch claims jobs for the workers (wanted says how many) and hands them out; when nothing is due it
// waits for the next poll or a wake-up. It returns whether a claim failed since the last fence.
//
// A claim whose answer is lost (a store outage, a stop cutting it short) may still have committed, and its
// jobs would stay held by this pool, unseen, until their lease ran out, to run then as another attempt.
// So after a failed claim nothing is claimed until a fence has given back every job this pool holds
// without knowing it; that makes claiming ahead of the workers safe.
func (p *Pool) dispatch(ctx context.Context, jobs chan claim, free chan struct{}) (fenced bool) {
	tick := time.NewTicker(p.cfg.PollInterval)
	defer tick.Stop()
	for {
		n := p.wanted(jobs)
		if n == 0 {
			select {
			case <-ctx.Done():
				return fenced
			case <-free:
			}
			continue
		}
		if !fenced || p.fence(ctx) {
			fenced = false
			got, err := p.claim(ctx, n)
			if err != nil {
				fenced = true
				if ctx.Err() == nil {
					p.log.WithError(err).Warn("insights: claim jobs")
				}
			}
			at := time.Now()
			inputs := p.prefetch(ctx, got)
			for _, job := range got {
				c := claim{job: job, at: at}
				if in, ok := inputs[job.ID]; ok {
					c.in = &in
				}
				jobs <- c // never blocks: n fits the buffer's room
			}
			if len(got) > 0 {
				continue
			}
		}
		select {
		case <-ctx.Done():
			return fenced
		case <-tick.C:
		case <-p.wake:
		}
	}
}

// claim leases up to n jobs to this pool and notes them as known. The claim outlives ctx by the stop's grace
// (storeCall): a claim cancelled half-way may still commit on the server (PostgreSQL's single UPDATE …
// RETURNING) while its rows never reach us; but a claim waiting for a store that does not answer must not
// hold up the stop. Claimed jobs reach a worker, or are given back unstarted when ctx is done.
func (p *Pool) claim(ctx context.Context, n int) ([]core.InsightJob, error) {
	cctx, cancel := storeCall(ctx)
	got, err := p.store.ClaimInsightJobs(cctx, p.cfg.Holder, n, p.cfg.Lease)
	cancel()
	p.held.Add(int32(len(got)))
	p.mu.Lock()
	for _, job := range got {
		p.known[job.ID] = time.Time{}
	}
	p.mu.Unlock()
	return got, err
}

// wanted is how many jobs to claim now: one per idle worker, and while jobs take little time a reserve
// beside the workers as well, topped up only once a claimBatch of it is used so that each claim takes many
// jobs. A job of the reserve waits for a worker while its lease runs (the heartbeat renews it), so jobs
// that take long are claimed only for idle workers.
func (p *Pool) wanted(jobs chan claim) int {
	target, least := p.cfg.Workers, 1
	if mean := time.Duration(p.meanRun.Load()); mean > 0 && mean*reserve/time.Duration(max(p.cfg.Workers, 1)) < p.cfg.Lease/10 {
		target, least = target+reserve, claimBatch
	}
	n := min(target-len(jobs)-int(p.busy.Load()), cap(jobs)-len(jobs))
	if n < least {
		return 0
	}
	return n
}

// noteRun folds one job's run time into the running mean that wanted consults.
func (p *Pool) noteRun(d time.Duration) {
	d = max(d, time.Nanosecond)
	if old := p.meanRun.Load(); old > 0 {
		d = time.Duration(old + (int64(d)-old)/8)
	}
	p.meanRun.Store(int64(d))
}

// fence gives back, restoring their attempt, the jobs this pool holds without knowing of them: those a
// claim took while its answer was lost. It reports whether the store did it.
func (p *Pool) fence(ctx context.Context) bool {
	c, cancel := storeCall(ctx)
	n, err := p.store.ReleaseInsightJobs(c, p.cfg.Holder, p.knownIDs())
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			p.log.WithError(err).Warn("insights: give back jobs of a failed claim (claiming waits for it)")
		}
		return false
	}
	if n > 0 {
		p.log.WithField("jobs", n).Info("insights: gave back jobs claimed unseen or left unstarted")
	}
	return true
}

// knownIDs lists the jobs this pool holds knowingly. A job whose write was given up stays on the list
// for a lease: it is held until then, as after a crash, and runs again as another attempt; should the
// heartbeat have kept it longer, a fence gives it back.
func (p *Pool) knownIDs() []core.ID {
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := make([]core.ID, 0, len(p.known))
	for id, gaveUp := range p.known {
		if !gaveUp.IsZero() && time.Since(gaveUp) > p.cfg.Lease {
			delete(p.known, id)
			continue
		}
		ids = append(ids, id)
	}
	return ids
}

// settled notes that the write of a job's outcome ended with err. The job is no longer this pool's once the
// store took the write or answered that the job was not the pool's any more; after any other failure it
// may still be held.
func (p *Pool) settled(id core.ID, err error) {
	p.held.Add(-1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err == nil || errors.Is(err, core.ErrConflict) {
		delete(p.known, id)
		return
	}
	p.known[id] = time.Now()
}

// heartbeat renews the claims of the jobs this pool holds every Lease/3, in one store call, so that a slow
// extraction keeps its job while a dead process's jobs come free within Lease.
func (p *Pool) heartbeat(ctx context.Context) {
	t := time.NewTicker(p.cfg.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if p.held.Load() == 0 {
			continue
		}
		sent := time.Now()
		c, cancel := context.WithTimeout(ctx, p.cfg.Lease/3)
		_, err := p.store.ExtendInsightJobs(c, p.cfg.Holder, p.cfg.Lease)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				p.log.WithError(err).Warn("insights: renew job claims")
			}
			continue
		}
		p.beat.Store(sent.UnixNano())
	}
}

// heldUntil is when a job claimed at claimed may be claimed by another worker at the earliest, given the
// heartbeats that went through since.
func (p *Pool) heldUntil(claimed time.Time) time.Time {
	if b := time.Unix(0, p.beat.Load()); b.After(claimed) {
		claimed = b
	}
	return claimed.Add(p.cfg.Lease)
}

// watchDepth refreshes the queue-depth gauge; it counts every replica's jobs, as the queue is shared.
func (p *Pool) watchDepth(ctx context.Context) {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		p.updateDepth(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (p *Pool) updateDepth(ctx context.Context) {
	n, err := p.store.InsightQueueDepth(ctx)
	if err != nil {
		if ctx.Err() == nil {
			p.log.WithError(err).Warn("insights: queue depth")
		}
		return
	}
	p.metrics.depth.Set(float64(n))
}

// backoffFor is the wait after a failed attempt (1-based): BaseBackoff doubled per attempt, capped, with
// ±20% jitter, and never shorter than the Retry-After the endpoint asked for.
func (p *Pool) backoffFor(attempt int, retryAfter time.Duration) time.Duration {
	d := float64(p.cfg.BaseBackoff) * math.Pow(2, float64(max(attempt-1, 0)))
	d = math.Min(d, float64(p.cfg.MaxBackoff)) * (0.8 + 0.4*mrand.Float64())
	return max(time.Duration(d), retryAfter)
}

func defaultHolder() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
