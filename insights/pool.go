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
	Faults       *core.Faults // nil: none kept; else the extractor is listed while its last call failed
}

// Pool drains the store's insight queue with N workers: it claims due jobs with a lease (also jobs whose
// holder died and let the lease run out), runs the extractor, stores the insights, and on failure requeues
// the job with exponential backoff or, after the last attempt, keeps it as failed.
type Pool struct {
	store   core.Store
	ex      Extractor
	cfg     PoolConfig
	log     *logrus.Entry
	metrics *poolMetrics
	wake    chan struct{}
	held    atomic.Int32   // jobs claimed and not yet settled
	beat    atomic.Int64   // when the last heartbeat that went through was sent (Unix ns)
	writes  chan struct{}  // one token per outcome write in flight (writeBehind)
	pending sync.WaitGroup // outcome writes not yet finished
}

// defaultLease is how long a claim lasts without a heartbeat. The pool renews its claims every third of
// it, so two missed heartbeats in a row are survived, and the jobs of a process that died are claimable
// again within defaultLease (the contract allows 30 s).
const defaultLease = 15 * time.Second

// maxExtract bounds one extraction, however long its claim is kept alive: a call that hangs for good must
// not hold its job for good.
const maxExtract = 5 * time.Minute

// writesPerWorker bounds the outcome writes in flight per worker (writeBehind).
const writesPerWorker = 8

// NewPool wires a pool to its store and extractor. It fails only when its metrics cannot be registered.
func NewPool(store core.Store, ex Extractor, cfg PoolConfig) (*Pool, error) {
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
		wake: make(chan struct{}, 1), writes: make(chan struct{}, writesPerWorker*max(cfg.Workers, 1))}, nil
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

// Run works the queue until ctx ends. Then it stops claiming, cancels running extractions and gives their
// jobs back to the queue untouched, and returns nil once every worker has stopped.
func (p *Pool) Run(ctx context.Context) error {
	jobs := make(chan core.InsightJob, p.cfg.Workers)
	free := make(chan struct{}, p.cfg.Workers) // a token per worker that finished a job since the last claim
	var wg sync.WaitGroup
	for i := 0; i < p.cfg.Workers; i++ {
		free <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range jobs {
				p.process(ctx, job)
				select {
				case free <- struct{}{}:
				default: // dispatch has a token from every worker already
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		p.watchDepth(ctx)
	}()
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
		case <-time.After(shutdownGrace):
		}
	}()
	if p.cfg.Workers > 0 {
		p.dispatch(ctx, jobs, free)
	} else {
		// insights.workers 0: another replica drains the queue; this one only reports its depth.
		<-ctx.Done()
	}
	close(jobs)
	wg.Wait()
	p.pending.Wait()
	return nil
}

// dispatch claims as many due jobs as there are idle workers, plus as many as fit the jobs buffer while
// jobs run quickly, and hands them out; when nothing is due it waits for the next poll or a wake-up.
func (p *Pool) dispatch(ctx context.Context, jobs chan core.InsightJob, free chan struct{}) {
	tick := time.NewTicker(p.cfg.PollInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-free:
		}
		idle := 1
		for len(free) > 0 {
			<-free
			idle++
		}
		// Jobs are claimed only for idle workers: a job claimed ahead waits in the buffer while its lease
		// runs, and a claim whose answer is lost to a store outage would leave them all held until their
		// leases ran out, to be claimed again as a second attempt.
		n := idle
		// The claim outlives ctx by shutdownGrace (storeCall): a claim cancelled half-way may still commit on
		// the server (PostgreSQL's single UPDATE … RETURNING) while its rows never reach us, and those jobs
		// would stay held until their lease ran out; but a claim waiting for a store that does not answer
		// must not hold up the stop. Claimed jobs reach a worker, which releases them when ctx is done.
		cctx, cancel := storeCall(ctx)
		got, err := p.store.ClaimInsightJobs(cctx, p.cfg.Holder, n, p.cfg.Lease)
		cancel()
		p.held.Add(int32(len(got)))
		if err != nil && ctx.Err() == nil {
			p.log.WithError(err).Warn("insights: claim jobs")
		}
		for _, job := range got {
			jobs <- job // the buffer's room and the idle workers take them all
		}
		for i := len(got); i < idle; i++ {
			select {
			case free <- struct{}{}:
			default:
			}
		}
		if len(got) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-p.wake:
		}
	}
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
