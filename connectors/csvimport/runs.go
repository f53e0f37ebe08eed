package csvimport

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// A run that is going holds the lease "import-run:<id>" and renews it; a run still "running" whose lease
// nobody has renewed for runLeaseTTL belongs to a process that is gone (killed, or its machine stopped), and
// the next import into the workspace, or the next start of a daemon that imports into it, closes it as
// failed. The lease is only a sign of life: losing it does not stop an import.
const (
	runLeaseTTL   = 30 * time.Second
	runLeaseRenew = 10 * time.Second
)

// interruptedError is the error of a run closed by someone other than its process.
const interruptedError = "interrupted: the process stopped during the import"

func runLeaseName(id core.ID) string { return "import-run:" + string(id) }

// leaseHolder names this process in the leases it takes.
func leaseHolder(role string) string {
	host, _ := os.Hostname()
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("csvimport %s %s:%d %s", role, host, os.Getpid(), hex.EncodeToString(b[:]))
}

// runLease keeps a run's lease renewed until release.
type runLease struct {
	leases       core.Leases
	name, holder string
	stop         chan struct{}
	done         sync.WaitGroup
}

// startRun stores a new running run. Its lease is taken first, under an id chosen here, so that no sweep
// can take the run for abandoned between the two writes.
func startRun(ctx context.Context, svc connectors.Service, ws core.ID, connector, file string) (core.ImportRun, *runLease, error) {
	run := core.ImportRun{ID: core.NewID(), Workspace: ws, Connector: connector, File: file, Status: core.ImportRunning, StartedAt: svc.Now()}
	l := &runLease{leases: svc, name: runLeaseName(run.ID), holder: leaseHolder("run"), stop: make(chan struct{})}
	if _, err := l.leases.TryAcquire(ctx, l.name, l.holder, runLeaseTTL); err != nil {
		return run, nil, err
	}
	// FinishImport stores a run with a running status as it is, as StartImport does.
	if err := svc.FinishImport(ctx, run); err != nil {
		l.release()
		return run, nil, err
	}
	l.done.Go(l.renew)
	return run, l, nil
}

func (l *runLease) renew() {
	t := time.NewTicker(runLeaseRenew)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			// A failed renewal is tried again at the next tick; a sweep that took the lease meanwhile has
			// closed the run, and the run's next save reopens it.
			ctx, cancel := context.WithTimeout(context.Background(), runLeaseRenew)
			_, _ = l.leases.TryAcquire(ctx, l.name, l.holder, runLeaseTTL)
			cancel()
		}
	}
}

// release stops the renewals and gives the lease back, also when the import's context has ended.
func (l *runLease) release() {
	select {
	case <-l.stop:
		return
	default:
		close(l.stop)
	}
	l.done.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = l.leases.Release(ctx, l.name, l.holder)
}

// CloseAbandoned marks as failed the workspace's runs that are still "running" although no process has
// renewed their lease for runLeaseTTL, and returns them. A run of another live process keeps its lease, so
// it is left alone, whichever replica or machine runs it.
func CloseAbandoned(ctx context.Context, svc connectors.Service, ws core.ID) ([]core.ImportRun, error) {
	runs, err := svc.ImportRuns(ctx, ws)
	if err != nil {
		return nil, fmt.Errorf("list import runs: %w", err)
	}
	var closed []core.ImportRun
	holder := leaseHolder("sweep")
	for _, r := range runs {
		if r.Status != core.ImportRunning {
			continue
		}
		name := runLeaseName(r.ID)
		ok, err := svc.TryAcquire(ctx, name, holder, runLeaseTTL)
		if err != nil {
			return closed, fmt.Errorf("run %s: %w", r.ID, err)
		}
		if !ok {
			continue // its process is alive
		}
		// Read the run again under its lease: its process may have finished it and let the lease go
		// since the listing.
		id := r.ID
		r, err = svc.ImportRun(ctx, ws, id)
		if err == nil && r.Status == core.ImportRunning {
			r.Status, r.Error = core.ImportFailed, interruptedError
			if err = svc.FinishImport(ctx, r); err == nil {
				closed = append(closed, r)
			}
		}
		if rerr := svc.Release(ctx, name, holder); err == nil {
			err = rerr
		}
		if err != nil {
			return closed, fmt.Errorf("close run %s: %w", id, err)
		}
	}
	return closed, nil
}

// SweepAbandoned runs CloseAbandoned on every workspace once per interval until ctx ends. The daemon runs
// it whatever its config: a killed `feedbridge import csv` into a workspace that no CSV entry serves would
// otherwise stay "running" until the next import into that workspace.
func SweepAbandoned(ctx context.Context, svc connectors.Service, every time.Duration, log *logrus.Entry) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		wss, err := svc.Workspaces(ctx)
		if err != nil {
			if ctx.Err() == nil {
				log.WithError(err).Warn("csv: list workspaces to close abandoned import runs")
			}
			continue
		}
		for _, w := range wss {
			closeAbandoned(ctx, svc, w.ID, log)
		}
	}
}

// closeAbandoned is CloseAbandoned for an import about to start: a failure is logged, never fatal.
func closeAbandoned(ctx context.Context, svc connectors.Service, ws core.ID, log *logrus.Entry) {
	closed, err := CloseAbandoned(ctx, svc, ws)
	if log == nil {
		return
	}
	if err != nil {
		log.WithError(err).Warn("csv: close abandoned import runs")
	}
	for _, r := range closed {
		log.WithFields(logrus.Fields{"run": r.ID, "connector": r.Connector, "file": r.File, "rows": r.Rows}).
			Warn("csv: closed an import run whose process stopped")
	}
}
