package connectors

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/feedbridge/feedbridge/internal/recovery"
)

// LeaseTiming is how the lease of an exclusive entry (a mailbox, a CSV schedule) is held.
//
// Why short leases with a heartbeat rather than PostgreSQL's session advisory locks: a lock tied to a
// connection is released by the server only when it notices the connection is gone, which for a
// partitioned or frozen machine means TCP keepalive minutes later, and the holder itself cannot tell that
// its lock is gone without asking; the same lease table also serves SQLite and the CLI. A lease makes
// both sides explicit: the holder renews it every Renew; a replica that dies stops renewing and another
// takes the lease once the database's clock passes its expiry (TTL after the last renewal; waiting
// replicas look every Retry). Fencing: the holder measures TTL from the moment it *sent* the renewal, on
// its own monotonic clock, and stops the entry's work Stop before that, which is before the database can
// expire the lease (the database stamps the expiry later than the send). So a holder whose renewals fail
// or stall (store down, process frozen between renewals) has closed its mailbox connection before any
// other replica can take the lease: two replicas never poll one mailbox at once.
type LeaseTiming struct {
	TTL   time.Duration // a lease not renewed for this long is free
	Renew time.Duration // how often the holder renews
	Retry time.Duration // how often a waiting replica tries to take the lease (±50% jitter)
	Stop  time.Duration // margin: the holder stops its work this long before its lease can run out
}

// ShortLeases are for a store shared by replicas (PostgreSQL): a dead replica's entries are taken over
// within TTL+Retry, one that stops on SIGTERM hands them over within Retry of letting them go. Waiting
// replicas each try every 0.1–0.3 s, one small statement on the lease pool per entry.
var ShortLeases = LeaseTiming{TTL: 3 * time.Second, Renew: 500 * time.Millisecond, Retry: 200 * time.Millisecond, Stop: time.Second}

// LongLeases are for a store used by one process (SQLite): nobody waits to take over, so renewals are rare
// and a store busy for a few seconds with a large import does not stop the entries.
var LongLeases = LeaseTiming{TTL: 30 * time.Second, Renew: 5 * time.Second, Retry: 5 * time.Second, Stop: 10 * time.Second}

func (t LeaseTiming) orDefault() LeaseTiming {
	if t.TTL <= 0 || t.Renew <= 0 || t.Retry <= 0 || t.Stop <= 0 || t.Stop >= t.TTL || t.Renew >= t.TTL-t.Stop {
		return ShortLeases
	}
	return t
}

// RunExclusive runs fn while this replica holds the named lease, and only then. fn's context ends when the
// lease is lost, when a renewal is overdue (see LeaseTiming), or when ctx ends; when fn returns early it is
// started again after a pause, as long as the lease is held. On the way out (ctx ended, lease lost) the
// lease is given back at once, so another replica need not wait for it to run out. RunExclusive returns
// when ctx ends.
func RunExclusive(ctx context.Context, env Env, lock string, fn func(ctx context.Context) error) {
	timing := env.Lease.orDefault()
	log := env.Log.WithField("lease", lock)
	for ctx.Err() == nil {
		// An answer later than TTL would be of no use: the lease could have run out by then.
		sent := time.Now()
		actx, cancel := context.WithTimeout(ctx, timing.TTL)
		ok, err := env.Service.TryAcquire(actx, lock, env.Holder, timing.TTL)
		cancel()
		if err != nil && ctx.Err() == nil {
			log.WithError(err).Warn("lease: acquire failed")
		}
		if !ok {
			Sleep(ctx, timing.Retry/2+time.Duration(rand.Int64N(int64(timing.Retry))))
			continue
		}
		log.Info("lease: acquired")
		holdAndRun(ctx, env, lock, timing, sent, fn)
		release, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		if err := env.Service.Release(release, lock, env.Holder); err != nil {
			log.WithError(err).Warn("lease: release failed")
		} else {
			log.Info("lease: released")
		}
		cancel()
	}
}

// holdAndRun runs fn under a context that ends Stop before the lease could run out, pushing that end back
// at each renewal; a renewal that the store refuses (another holder) ends it at once. sent is when the
// acquiring call was sent.
func holdAndRun(ctx context.Context, env Env, lock string, timing LeaseTiming, sent time.Time, fn func(ctx context.Context) error) {
	log := env.Log.WithField("lease", lock)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	deadline := sent.Add(timing.TTL - timing.Stop)
	fence := time.AfterFunc(time.Until(deadline), cancel)
	defer fence.Stop()

	done := make(chan struct{})
	go func() {
		defer close(done)
		for runCtx.Err() == nil {
			if err := guarded(runCtx, env, lock, fn); err != nil && runCtx.Err() == nil {
				log.WithError(err).Warn("exclusive task stopped; restarting")
				Sleep(runCtx, 5*time.Second)
			}
		}
	}()
	t := time.NewTicker(timing.Renew)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-runCtx.Done():
			if ctx.Err() == nil {
				log.Warn("lease: renewal overdue; stopped before the lease could run out")
			}
			<-done
			return
		case <-t.C:
		}
		// The renewal may take until the fence at most: past it the work has stopped anyway.
		sent := time.Now()
		rctx, rcancel := context.WithDeadline(runCtx, deadline)
		ok, err := env.Service.TryAcquire(rctx, lock, env.Holder, timing.TTL)
		rcancel()
		switch {
		case err != nil:
			// Tried again at the next tick; the fence stops the work if no renewal gets through in time.
			if runCtx.Err() == nil {
				log.WithError(err).Warn("lease: renewal failed")
			}
		case !ok:
			log.Warn("lease: lost to another holder")
			cancel()
			<-done
			return
		default:
			deadline = sent.Add(timing.TTL - timing.Stop)
			if !fence.Reset(time.Until(deadline)) {
				// The fence fired while the renewal was on its way: the work is stopping already.
				<-done
				return
			}
		}
	}
}

// guarded runs fn, turning a panic into an error: fn serves outside input (a mailbox, a CSV export), and a
// panic on it restarts this task after the pause instead of ending the daemon.
func guarded(ctx context.Context, env Env, lock string, fn func(ctx context.Context) error) (err error) {
	defer recovery.Guard(env.Log.WithField("lease", lock), "exclusive task", &err)
	return fn(ctx)
}
