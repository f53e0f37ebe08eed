package core

import (
	"context"
	"encoding/json"
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
// failed first.
func (s *Service) FailedEvents(ctx context.Context, ws ID) ([]FailedEvent, error) {
	its, err := s.store.FailedItems(ctx, EventKind, ws)
	if err != nil {
		return nil, err
	}
	out := make([]FailedEvent, len(its))
	for i, it := range its {
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(it.Body, &head) // a body the store kept is one Items wrote; a bad one shows no type
		out[i] = FailedEvent{ID: it.ID, Subscriber: strings.TrimPrefix(it.Queue, EventQueue("")), Workspace: it.Workspace,
			Type: head.Type, Record: ID(it.Key), Attempts: it.Attempts, LastError: it.LastError, FailedAt: it.UpdatedAt}
	}
	return out, nil
}

// RetryEvents queues failed events again, due now with a fresh retry_for: the one with id (to every
// subscriber it failed for), or all when id is "" (of ws, or of every workspace when ws is ""). A given id
// with no failed event is ErrNotFound.
func (s *Service) RetryEvents(ctx context.Context, ws, id ID) (int, error) {
	return s.store.RetryFailedItems(ctx, EventKind, ws, id)
}
