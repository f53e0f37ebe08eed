// Package jobqueue gives both stores the insight-job and webhook-delivery methods of core.Store as views
// of the general durable queue (core.Queue): the kind of work is data on one table, and the claim, lease,
// retry and failure are written once per SQL dialect, in each store's queue code, for all of its users.
package jobqueue

import (
	"context"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/fairshare"
)

// Views implements the insight-job and delivery methods of core.Store on Q, the store itself. A store
// embeds it and sets Q when it opens.
type Views struct {
	Q Backend
}

// Backend is the part of a store the views use.
type Backend interface {
	core.Queue
	Workspace(ctx context.Context, id core.ID) (core.Workspace, error)
}

// InsightItem is the queue item of an insight job: the record id is its key, so that the jobs of one
// record run in the order they were queued and a deleted record's jobs are found by it.
func InsightItem(job core.InsightJob) core.QueueItem {
	return core.QueueItem{ID: job.ID, Queue: core.InsightQueue, Kind: core.KindInsight, Workspace: job.Workspace,
		Key: string(job.RecordID), Body: []byte{}}
}

// InsightJob is the insight job an item of the insight queue holds.
func InsightJob(it core.QueueItem) core.InsightJob {
	return core.InsightJob{ID: it.ID, Workspace: it.Workspace, RecordID: core.ID(it.Key), State: it.State,
		Attempts: it.Attempts, MaxAttempts: core.DefaultJobAttempts, LastError: it.LastError, RunAt: it.RunAt,
		LeaseUntil: it.LeaseUntil, LeasedBy: it.LeasedBy, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt}
}

func insightJobs(items []core.QueueItem) []core.InsightJob {
	out := make([]core.InsightJob, len(items))
	for i, it := range items {
		out[i] = InsightJob(it)
	}
	return out
}

// ClaimInsightJobs leases up to n insight jobs to worker, shared fairly between workspaces.
func (v Views) ClaimInsightJobs(ctx context.Context, worker string, n int, lease time.Duration) ([]core.InsightJob, error) {
	items, err := v.Q.ClaimFair(ctx, core.InsightQueue, worker, n, lease)
	if err != nil {
		return nil, err
	}
	jobs := insightJobs(items)
	fairshare.SortJobs(jobs)
	return jobs, nil
}

// FailInsightJob records an attempt's error: due again at retryAt, or kept as failed when final.
func (v Views) FailInsightJob(ctx context.Context, job core.InsightJob, worker, msg string, retryAt time.Time, final bool) error {
	return v.Q.FailItem(ctx, InsightItem(job), worker, msg, retryAt, final)
}

// ReleaseInsightJob gives a claimed job back untouched.
func (v Views) ReleaseInsightJob(ctx context.Context, job core.InsightJob, worker string) error {
	return v.Q.ReleaseItem(ctx, InsightItem(job), worker)
}

// ReleaseInsightJobs gives back every job worker holds except those in keep.
func (v Views) ReleaseInsightJobs(ctx context.Context, worker string, keep []core.ID) (int, error) {
	return v.Q.ReleaseHeld(ctx, core.InsightQueue, worker, keep)
}

// ExtendInsightJobs renews the lease of every job worker holds.
func (v Views) ExtendInsightJobs(ctx context.Context, worker string, lease time.Duration) (int, error) {
	return v.Q.ExtendHeld(ctx, core.InsightQueue, worker, lease)
}

// FailedInsightJobs lists the jobs kept as failed, most recently failed first (of ws, or all when "").
func (v Views) FailedInsightJobs(ctx context.Context, ws core.ID) ([]core.InsightJob, error) {
	items, err := v.Q.FailedItems(ctx, core.KindInsight, ws)
	if err != nil {
		return nil, err
	}
	return insightJobs(items), nil
}

// RetryInsightJobs queues failed jobs again: one by id, or all (of ws, or all when ws is "").
func (v Views) RetryInsightJobs(ctx context.Context, ws, id core.ID) (int, error) {
	return v.Q.RetryFailedItems(ctx, core.KindInsight, ws, id)
}

// InsightQueueDepth counts the jobs still to do: queued and running.
func (v Views) InsightQueueDepth(ctx context.Context) (int, error) {
	st, err := v.Q.QueueStats(ctx, core.InsightQueue)
	return st.Pending, err
}

// deliveryItem is the queue item of a delivery.
func deliveryItem(d core.Delivery) core.QueueItem {
	body := d.Body
	if body == nil {
		body = []byte{}
	}
	return core.QueueItem{ID: d.ID, Queue: core.DeliveryQueue(d.Entry), Kind: core.KindDelivery, Workspace: d.Workspace,
		Body: body}
}

func delivery(it core.QueueItem) core.Delivery {
	return core.Delivery{ID: it.ID, Workspace: it.Workspace, Entry: strings.TrimPrefix(it.Queue, core.DeliveryQueue("")),
		Body: it.Body, State: it.State, Attempts: it.Attempts, LastError: it.LastError, RunAt: it.RunAt,
		LeaseUntil: it.LeaseUntil, LeasedBy: it.LeasedBy, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt}
}

func deliveries(items []core.QueueItem) []core.Delivery {
	out := make([]core.Delivery, len(items))
	for i, it := range items {
		out[i] = delivery(it)
	}
	return out
}

// QueueDelivery keeps a delivery as queued and due at once, with its time of receipt; a missing
// workspace is core.ErrNotFound (workspaces are never deleted, so the check cannot race).
func (v Views) QueueDelivery(ctx context.Context, d core.Delivery) error {
	if _, err := v.Q.Workspace(ctx, d.Workspace); err != nil {
		return err
	}
	it := deliveryItem(d)
	it.CreatedAt = d.CreatedAt
	return v.Q.EnqueueItems(ctx, []core.QueueItem{it})
}

// ClaimDeliveries leases up to n deliveries of entry to worker, oldest first.
func (v Views) ClaimDeliveries(ctx context.Context, entry, worker string, n int, lease time.Duration) ([]core.Delivery, error) {
	items, err := v.Q.ClaimItems(ctx, core.DeliveryQueue(entry), worker, n, lease)
	if err != nil {
		return nil, err
	}
	return deliveries(items), nil
}

// FinishDelivery removes a delivery whose records are written.
func (v Views) FinishDelivery(ctx context.Context, d core.Delivery, worker string) error {
	return v.Q.FinishItem(ctx, deliveryItem(d), worker)
}

// FailDelivery records an attempt's error: due again at retryAt, or kept as failed when final.
func (v Views) FailDelivery(ctx context.Context, d core.Delivery, worker, msg string, retryAt time.Time, final bool) error {
	return v.Q.FailItem(ctx, deliveryItem(d), worker, msg, retryAt, final)
}

// Deliveries lists the kept deliveries of entry in ws, oldest first.
func (v Views) Deliveries(ctx context.Context, ws core.ID, entry string) ([]core.Delivery, error) {
	items, err := v.Q.KeptItems(ctx, core.DeliveryQueue(entry), ws)
	if err != nil {
		return nil, err
	}
	return deliveries(items), nil
}
