package core

import (
	"context"
	"time"
)

// Delivery is input a connector accepted from its sender and answered, but has not yet turned into
// records: the kit's durable inbound queue. A kind that answers before it writes (the webhook's 202) keeps
// the raw input here in one write, and its worker claims it under a lease, writes its records and removes
// it; input that cannot be written is kept as failed with its error. Entry is the connector entry's key,
// "<kind>:<name>", so the kinds share one queue.
type Delivery struct {
	ID         ID
	Workspace  ID
	Entry      string // "<kind>:<name>" of the connector entry
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

// QueueDelivery keeps a delivery for the worker of entry, in one write, and returns it with its id.
// A missing or suspended workspace is refused as for a record.
func (s *Service) QueueDelivery(ctx context.Context, ws ID, entry string, body []byte) (Delivery, error) {
	if err := s.writable(ctx, ws); err != nil {
		return Delivery{}, err
	}
	now := s.Now()
	d := Delivery{ID: NewIDAt(now), Workspace: ws, Entry: entry, Body: body, State: JobQueued, RunAt: now,
		CreatedAt: now, UpdatedAt: now}
	if err := s.store.QueueDelivery(ctx, d); err != nil {
		return Delivery{}, err
	}
	return d, nil
}

// ClaimDeliveries leases up to n due deliveries of entry to worker (see Store).
func (s *Service) ClaimDeliveries(ctx context.Context, entry, worker string, n int, lease time.Duration) ([]Delivery, error) {
	return s.store.ClaimDeliveries(ctx, entry, worker, n, lease)
}

// FinishDelivery removes a delivery whose records are written.
func (s *Service) FinishDelivery(ctx context.Context, d Delivery, worker string) error {
	return s.store.FinishDelivery(ctx, d, worker)
}

// FailDelivery records a failed attempt: queued again at retryAt, or kept as failed when final.
func (s *Service) FailDelivery(ctx context.Context, d Delivery, worker, msg string, retryAt time.Time, final bool) error {
	return s.store.FailDelivery(ctx, d, worker, msg, retryAt, final)
}

// Deliveries lists the deliveries of entry still kept in the workspace (queued, running or failed).
func (s *Service) Deliveries(ctx context.Context, ws ID, entry string) ([]Delivery, error) {
	return s.store.Deliveries(ctx, ws, entry)
}
