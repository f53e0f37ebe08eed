package events

import (
	"context"
	"crypto/tls"
	"errors"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/queueworker"
)

// Options configure a Manager; zero values are the daemon's defaults.
type Options struct {
	Queue core.Queue
	// Subscribe receives the configured subscribers at every Apply, so that changes write events for
	// them (the service's SetSubscribers); nil in tests that enqueue by hand.
	Subscribe func([]core.Subscriber)
	Holder    string // this replica's lease holder id
	Log       *logrus.Entry
	Metrics   prometheus.Registerer // nil: metrics kept but not registered
	Resolve   Resolver              // nil: the system resolver
	TLS       *tls.Config           // nil: the system roots
	Poll      time.Duration         // how often an idle subscriber's queue is looked at (default 500ms)
	Lease     time.Duration         // claim lease (default: the entry's timeout plus 20s)
	// Delay replaces the backoff (tests); nil: core.RetryDelay.
	Delay func(attempts int, retryAfter time.Duration) time.Duration
	Now   func() time.Time
}

// Manager runs one queue worker per configured subscriber, so that a slow or dead subscriber holds back
// only its own queue, and keeps each one's status. Apply changes the set while it runs (reload).
type Manager struct {
	opts    Options
	log     *logrus.Entry
	metrics *metrics
	ctx     context.Context
	wg      sync.WaitGroup

	mu      sync.Mutex
	running map[string]*runner
	removed map[string]bool // subscribers a reload removed while events of theirs were pending: logged once
}

// runner is one subscriber's worker and its status.
type runner struct {
	entry  Entry
	cancel context.CancelFunc
	done   chan struct{}

	mu          sync.Mutex
	lastSuccess time.Time
	lastError   string
	lastErrorAt time.Time
	failing     bool
}

// New makes a manager whose workers run until ctx ends; Wait waits for them.
func New(ctx context.Context, opts Options) (*Manager, error) {
	if opts.Queue == nil || opts.Holder == "" {
		return nil, errors.New("events: a queue and a holder id are required")
	}
	if opts.Log == nil {
		l := logrus.New()
		l.SetLevel(logrus.PanicLevel)
		opts.Log = logrus.NewEntry(l)
	}
	if opts.Poll <= 0 {
		opts.Poll = 500 * time.Millisecond
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m, err := newMetrics(opts.Metrics)
	if err != nil {
		return nil, err
	}
	mgr := &Manager{opts: opts, log: opts.Log.WithField("component", "events"), metrics: m, ctx: ctx,
		running: map[string]*runner{}, removed: map[string]bool{}}
	mgr.wg.Go(mgr.sample)
	return mgr, nil
}

// Apply makes entries the running set: new subscribers start, removed ones stop (their events stay in
// their queue, kept and not sent, and are reported), changed ones restart, and the others keep running.
// The service writes events for the new set from when Apply returns.
func (m *Manager) Apply(entries []Entry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	want := map[string]Entry{}
	subs := make([]core.Subscriber, 0, len(entries))
	for _, e := range entries {
		want[e.Name] = e
		subs = append(subs, e.Subscriber())
	}
	if m.opts.Subscribe != nil {
		m.opts.Subscribe(subs)
	}
	for name, r := range m.running {
		if e, ok := want[name]; ok && reflect.DeepEqual(e, r.entry) {
			continue
		}
		r.cancel()
		<-r.done
		delete(m.running, name)
		if _, kept := want[name]; !kept {
			m.metrics.forget(name)
			m.log.WithField("subscriber", name).Info("events: subscriber removed; events not yet delivered are kept, not sent")
		}
	}
	for name, e := range want {
		if _, ok := m.running[name]; ok {
			continue
		}
		delete(m.removed, name)
		m.start(e)
	}
	m.reportRemoved(want)
}

// start runs e's worker; m.mu is held.
func (m *Manager) start(e Entry) {
	ctx, cancel := context.WithCancel(m.ctx)
	r := &runner{entry: e, cancel: cancel, done: make(chan struct{})}
	log := m.log.WithFields(logrus.Fields{"subscriber": e.Name, "workspace": e.Workspace})
	snd := newSender(e, m.opts.Resolve, m.opts.TLS, m.opts.Now)
	lease := m.opts.Lease
	if lease <= 0 {
		lease = e.Timeout + 20*time.Second
	}
	// A subscriber's success is noted as soon as it has answered, before the queue marks the item done:
	// a status read in between must not show an empty queue beside the failure that came before.
	deliver := func(ctx context.Context, it core.QueueItem) error {
		err := snd.send(ctx, it)
		if err == nil {
			r.mu.Lock()
			r.lastSuccess, r.failing = m.opts.Now(), false
			r.mu.Unlock()
		}
		return err
	}
	w, err := queueworker.New(m.opts.Queue, deliver, queueworker.Config{
		Queue: core.EventQueue(e.Name), Holder: m.opts.Holder + "/" + e.Name, Concurrency: e.Concurrency,
		Lease: lease, Timeout: e.Timeout + time.Second, Poll: m.opts.Poll, Delay: m.opts.Delay,
		Observer: &observer{r: r, m: m.metrics, now: m.opts.Now}, Log: log,
	})
	if err != nil { // only a programming error: every field is set above
		log.WithError(err).Error("events: subscriber not started")
		cancel()
		close(r.done)
		return
	}
	m.running[e.Name] = r
	m.wg.Go(func() {
		defer close(r.done)
		w.Run(ctx)
	})
}

// reportRemoved logs, once per subscriber, that a subscriber no longer configured still holds events.
func (m *Manager) reportRemoved(want map[string]Entry) {
	qs, err := m.opts.Queue.PendingQueues(m.ctx, core.EventKind, "")
	if err != nil {
		m.log.WithError(err).Warn("events: could not look for removed subscribers' events")
		return
	}
	for _, q := range qs {
		name := strings.TrimPrefix(q, core.EventQueue(""))
		if _, ok := want[name]; ok || m.removed[name] {
			continue
		}
		m.removed[name] = true
		st, _ := m.opts.Queue.QueueStats(m.ctx, q)
		m.log.WithFields(logrus.Fields{"subscriber": name, "pending": st.Pending}).Warn(
			"events: a subscriber that is not in the configuration has events pending: they are kept, not sent, until it is configured again")
	}
}

// Wait returns once every worker stopped (after the manager's context ended).
func (m *Manager) Wait() { m.wg.Wait() }

// sampleEvery is how often the pending gauge is refreshed.
const sampleEvery = 15 * time.Second

// sample refreshes the pending gauge of each running subscriber until the context ends.
func (m *Manager) sample() {
	t := time.NewTicker(sampleEvery)
	defer t.Stop()
	for {
		m.mu.Lock()
		names := make([]string, 0, len(m.running))
		for name := range m.running {
			names = append(names, name)
		}
		m.mu.Unlock()
		for _, name := range names {
			if st, err := m.opts.Queue.QueueStats(m.ctx, core.EventQueue(name)); err == nil {
				m.metrics.pending.WithLabelValues(name).Set(float64(st.Pending))
			}
		}
		select {
		case <-m.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// observer keeps a subscriber's failures and its metrics from its settled items (its successes are noted
// as it answers, in start).
type observer struct {
	r   *runner
	m   *metrics
	now func() time.Time
}

func (o *observer) Settled(it core.QueueItem, outcome queueworker.Outcome, err error, _ time.Duration) {
	name := o.r.entry.Name
	now := o.now()
	o.r.mu.Lock()
	defer o.r.mu.Unlock()
	switch outcome {
	case queueworker.Done:
		o.m.delivered.WithLabelValues(name).Inc()
		o.m.lag.WithLabelValues(name).Observe(now.Sub(it.CreatedAt).Seconds())
		return
	case queueworker.Retried:
		o.m.retried.WithLabelValues(name).Inc()
	case queueworker.Failed:
		o.m.failed.WithLabelValues(name).Inc()
	default:
		return
	}
	o.r.lastError, o.r.lastErrorAt, o.r.failing = err.Error(), now, true
}
