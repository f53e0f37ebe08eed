package core

import (
	"context"
	"errors"
)

// Ping checks that the store answers and that its schema is the one this binary expects (readiness).
func (s *Service) Ping(ctx context.Context) error { return s.store.Ping(ctx) }

// ThemeSignals aggregates a workspace's insights by theme over q's window, in the store.
func (s *Service) ThemeSignals(ctx context.Context, ws ID, q SignalQuery) ([]ThemeSignal, error) {
	return s.store.ThemeSignals(ctx, ws, q)
}

// FailedInsightJobs lists the insight jobs kept as failed after their last attempt (of ws, or all when ws
// is "").
func (s *Service) FailedInsightJobs(ctx context.Context, ws ID) ([]InsightJob, error) {
	return s.store.FailedInsightJobs(ctx, ws)
}

// RetryInsightJobs queues failed jobs again: one by id, or all when id is "" (of ws, or all when ws is "").
func (s *Service) RetryInsightJobs(ctx context.Context, ws ID, id ID) (int, error) {
	return s.store.RetryInsightJobs(ctx, ws, id)
}

// ErrNoBackup is Backup's answer for a store that cannot copy itself online (PostgreSQL: use pg_dump).
var ErrNoBackup = errors.New("this store does not support online backup")

// Backup writes an online, consistent copy of the store to path, when the store can (SQLite).
func (s *Service) Backup(ctx context.Context, path string) error {
	b, ok := s.store.(interface {
		Backup(ctx context.Context, path string) error
	})
	if !ok {
		return ErrNoBackup
	}
	return b.Backup(ctx, path)
}
