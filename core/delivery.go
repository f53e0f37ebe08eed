package core

import (
	"context"
	"time"
)

// WebhookDelivery is an inbound webhook delivery kept for its entry's worker: authenticated and checked
// against the mapping when it arrived, answered 202, and turned into records later. It is removed once its
// records are written; one that cannot be written is kept as failed with its error.
type WebhookDelivery struct {
	ID         ID
	Workspace  ID
	Entry      string // the webhook entry's name
	Body       []byte // the payload as received
	State      string // JobQueued, JobRunning or JobFailed
	Attempts   int
	LastError  string
	RunAt      time.Time // not before
	LeaseUntil time.Time // while running
	LeasedBy   string
	CreatedAt  time.Time // when it was received
	UpdatedAt  time.Time
}

// QueueWebhookDelivery keeps a delivery for the worker of entry, in one write, and returns it with its id.
// A missing or suspended workspace is refused as for a record.
func (s *Service) QueueWebhookDelivery(ctx context.Context, ws ID, entry string, body []byte) (WebhookDelivery, error) {
	if err := s.writable(ctx, ws); err != nil {
		return WebhookDelivery{}, err
	}
	now := s.Now()
	d := WebhookDelivery{ID: NewIDAt(now), Workspace: ws, Entry: entry, Body: body, State: JobQueued, RunAt: now,
		CreatedAt: now, UpdatedAt: now}
	if err := s.store.QueueWebhookDelivery(ctx, d); err != nil {
		return WebhookDelivery{}, err
	}
	return d, nil
}

// ClaimWebhookDeliveries leases up to n due deliveries of entry to worker (see Store).
func (s *Service) ClaimWebhookDeliveries(ctx context.Context, entry, worker string, n int, lease time.Duration) ([]WebhookDelivery, error) {
	return s.store.ClaimWebhookDeliveries(ctx, entry, worker, n, lease)
}

// FinishWebhookDelivery removes a delivery whose records are written.
func (s *Service) FinishWebhookDelivery(ctx context.Context, d WebhookDelivery, worker string) error {
	return s.store.FinishWebhookDelivery(ctx, d, worker)
}

// FailWebhookDelivery records a failed attempt: queued again at retryAt, or kept as failed when final.
func (s *Service) FailWebhookDelivery(ctx context.Context, d WebhookDelivery, worker, msg string, retryAt time.Time, final bool) error {
	return s.store.FailWebhookDelivery(ctx, d, worker, msg, retryAt, final)
}

// WebhookDeliveries lists the deliveries of entry still kept in the workspace (queued, running or failed).
func (s *Service) WebhookDeliveries(ctx context.Context, ws ID, entry string) ([]WebhookDelivery, error) {
	return s.store.WebhookDeliveries(ctx, ws, entry)
}
