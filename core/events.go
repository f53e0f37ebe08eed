package core

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
)

// FailedEvent is an event a subscriber was given up on: kept, not sent, until retried.
type FailedEvent struct {
	ID         ID
	Subscriber string
	Workspace  ID
	Type       string
	Record     ID // "" for an event about no record (import.finished)
	Attempts   int
	LastError  string
	FailedAt   time.Time
}

// FailedEvents lists the events given up on, of ws or of every workspace when ws is "", most recently
// failed first. Closing-the-loop messages given up on are listed with them: their subscriber is their
// queue ("notify:slack", "notify:email"), their type "notify" and their record the idea that moved.
func (s *Service) FailedEvents(ctx context.Context, ws ID) ([]FailedEvent, error) {
	its, err := s.store.FailedItems(ctx, EventKind, ws)
	if err != nil {
		return nil, err
	}
	notices, err := s.store.FailedItems(ctx, NotifyKind, ws)
	if err != nil {
		return nil, err
	}
	out := make([]FailedEvent, 0, len(its)+len(notices))
	for _, it := range its {
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(it.Body, &head) // a body the store kept is one Items wrote; a bad one shows no type
		out = append(out, FailedEvent{ID: it.ID, Subscriber: strings.TrimPrefix(it.Queue, EventQueue("")), Workspace: it.Workspace,
			Type: head.Type, Record: ID(it.Key), Attempts: it.Attempts, LastError: it.LastError, FailedAt: it.UpdatedAt})
	}
	for _, it := range notices {
		var n Notice
		_ = json.Unmarshal(it.Body, &n) // written by NotifyPlan.Items; a bad one shows no record
		out = append(out, FailedEvent{ID: it.ID, Subscriber: it.Queue, Workspace: it.Workspace, Type: NotifyKind,
			Record: n.Record, Attempts: it.Attempts, LastError: it.LastError, FailedAt: it.UpdatedAt})
	}
	slices.SortStableFunc(out, func(a, b FailedEvent) int { return b.FailedAt.Compare(a.FailedAt) })
	return out, nil
}

// RetryEvents queues failed events again, due now with a fresh retry_for: the one with id (to every
// subscriber it failed for), or all when id is "" (of ws, or of every workspace when ws is ""). A given id
// with no failed event is ErrNotFound.
func (s *Service) RetryEvents(ctx context.Context, ws, id ID) (int, error) {
	n, err := s.store.RetryFailedItems(ctx, EventKind, ws, id)
	if err != nil && !(errors.Is(err, ErrNotFound) && id != "") {
		return n, err
	}
	m, nerr := s.store.RetryFailedItems(ctx, NotifyKind, ws, id)
	switch {
	case nerr == nil:
		return n + m, nil
	case errors.Is(nerr, ErrNotFound) && err == nil:
		return n, nil
	}
	return n + m, nerr
}

// SubscriberStatus is how delivery to one subscriber of a workspace stands, for the API: configured
// subscribers, and removed ones that still hold events (kept, not sent).
type SubscriberStatus struct {
	Name          string
	URL           string // without query, which may carry a token
	State         string // SubscriberOK, SubscriberFailing or SubscriberRemoved
	Pending       int    // events queued or being delivered
	Failed        int    // events given up on (feedbridge events failed)
	LastSuccessAt time.Time
	LastError     string
	LastErrorAt   time.Time
}

// The states of a subscriber.
const (
	SubscriberOK      = "ok"      // its last delivery succeeded, or none was tried yet
	SubscriberFailing = "failing" // its last delivery failed; retried with backoff
	SubscriberRemoved = "removed" // no longer configured: its pending events are kept and not sent
)
