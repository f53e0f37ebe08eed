package connectors

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/feedbridge/feedbridge/internal/recovery"
)

// Lease timing: a holder renews every leaseRenew; a dead holder's lease runs out after leaseTTL, so another
// replica takes over within leaseTTL+leaseRenew (well inside the contract's 60 s).
const (
	leaseTTL   = 30 * time.Second
	leaseRenew = 10 * time.Second
)

// RunExclusive runs fn while this replica holds the named lease, and only then. fn's context ends when the
// lease is lost or ctx ends; when fn returns early it is started again after a pause, as long as the lease
// is held. RunExclusive returns when ctx ends.
func RunExclusive(ctx context.Context, env Env, lock string, fn func(ctx context.Context) error) {
	log := env.Log.WithField("lease", lock)
	for ctx.Err() == nil {
		ok, err := env.Leases.TryAcquire(ctx, lock, env.Holder, leaseTTL)
		if err != nil {
			log.WithError(err).Warn("lease: acquire failed")
		}
		if !ok {
			Sleep(ctx, leaseRenew/2+time.Duration(rand.Int64N(int64(leaseRenew/2))))
			continue
		}
		log.Info("lease: acquired")
		holdAndRun(ctx, env, lock, fn)
		// Give the lease back so another replica need not wait for it to expire (shutdown, fn gave up).
		release, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		if err := env.Leases.Release(release, lock, env.Holder); err != nil {
			log.WithError(err).Warn("lease: release failed")
		}
		cancel()
	}
}

// holdAndRun renews the lease in the background while fn runs, cancelling fn when renewal fails.
func holdAndRun(ctx context.Context, env Env, lock string, fn func(ctx context.Context) error) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for runCtx.Err() == nil {
			if err := guarded(runCtx, env, lock, fn); err != nil && runCtx.Err() == nil {
				env.Log.WithField("lease", lock).WithError(err).Warn("exclusive task stopped; restarting")
				Sleep(runCtx, 5*time.Second)
			}
		}
	}()
	t := time.NewTicker(leaseRenew)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			ok, err := env.Leases.TryAcquire(ctx, lock, env.Holder, leaseTTL)
			if !ok || err != nil {
				env.Log.WithField("lease", lock).WithError(err).Warn("lease: lost")
				cancel()
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
