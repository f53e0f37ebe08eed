package core

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"
	"time"
)

// The event types a subscriber may ask for.
const (
	EventRecordCreated       = "record.created"
	EventRecordUpdated       = "record.updated"
	EventRecordStatusChanged = "record.status_changed"
	EventRecordLinked        = "record.linked"
	EventRecordUnlinked      = "record.unlinked"
	EventRecordMerged        = "record.merged"
	EventRecordDeleted       = "record.deleted"
	EventImportFinished      = "import.finished"
)

// EventTypes lists every event type, in the order the documentation gives them.
var EventTypes = []string{EventRecordCreated, EventRecordUpdated, EventRecordStatusChanged, EventRecordLinked,
	EventRecordUnlinked, EventRecordMerged, EventRecordDeleted, EventImportFinished}

// EventKind is the queue item kind of events to subscribers.
const EventKind = "event"

// Subscriber is one configured receiver of a workspace's events, as the service needs it.
type Subscriber struct {
	Name      string
	Workspace ID
	Events    []string
	RetryFor  time.Duration
}

// EventQueue is the queue of a subscriber's events: one queue each, so that a slow subscriber holds back
// only its own.
func EventQueue(subscriber string) string { return "events:" + subscriber }

// Outbox is the events a change writes in its own transaction, so that a change that rolls back sends
// nothing and one that commits is never lost. A nil Outbox writes nothing: the service hands one to the
// store only for a workspace that has a subscriber, so the others pay nothing.
type Outbox struct {
	subs []Subscriber
	view func(Record) any
	now  time.Time
}

// event is the body a subscriber receives.
type event struct {
	ID        ID        `json:"id"`
	Type      string    `json:"type"`
	Workspace ID        `json:"workspace"`
	CreatedAt time.Time `json:"created_at"`
	Data      eventData `json:"data"`
}

type eventData struct {
	Record    any        `json:"record"`
	Changes   any        `json:"changes"`
	ImportRun *importRun `json:"import_run,omitempty"`
}

// importRun is an import run in an import.finished event.
type importRun struct {
	ID         ID         `json:"id"`
	Connector  string     `json:"connector"`
	File       string     `json:"file"`
	Status     string     `json:"status"`
	Rows       int        `json:"rows"`
	Created    int        `json:"created"`
	Duplicates int        `json:"duplicates"`
	Failed     int        `json:"failed"`
	Error      string     `json:"error"`
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
}

// Items are the queue items of one event of typ about rec, one per subscriber that asked for typ; the items
// share the event's id, and are keyed by the record so that its events arrive in order.
func (o *Outbox) Items(typ string, rec Record, changes any) ([]QueueItem, error) {
	if o == nil {
		return nil, nil
	}
	var out []QueueItem
	var body []byte
	for _, sub := range o.subs {
		if !slices.Contains(sub.Events, typ) {
			continue
		}
		if body == nil {
			id := NewIDAt(o.now)
			var err error
			body, err = json.Marshal(event{ID: id, Type: typ, Workspace: rec.Workspace, CreatedAt: o.now,
				Data: eventData{Record: o.view(rec), Changes: changes}})
			if err != nil {
				return nil, fmt.Errorf("event %s: %w", typ, err)
			}
			out = make([]QueueItem, 0, len(o.subs))
			out = append(out, QueueItem{ID: id})
		} else {
			out = append(out, QueueItem{ID: out[0].ID})
		}
		it := &out[len(out)-1]
		it.Queue, it.Kind, it.Workspace, it.Key, it.Body, it.RetryFor = EventQueue(sub.Name), EventKind, rec.Workspace,
			string(rec.ID), body, sub.RetryFor
	}
	return out, nil
}

// ImportEvents are the import.finished events of a run that ended: record and changes are null, the run
// is in data.import_run. They are not ordered by any key.
func (o *Outbox) ImportEvents(run ImportRun) ([]QueueItem, error) {
	if o == nil {
		return nil, nil
	}
	id := NewIDAt(o.now)
	fin := run.FinishedAt
	body, err := json.Marshal(event{ID: id, Type: EventImportFinished, Workspace: run.Workspace, CreatedAt: o.now,
		Data: eventData{ImportRun: &importRun{ID: run.ID, Connector: run.Connector, File: run.File, Status: run.Status,
			Rows: run.Rows, Created: run.Created, Duplicates: run.Duplicates, Failed: run.Failed, Error: run.Error,
			StartedAt: run.StartedAt, FinishedAt: &fin}}})
	if err != nil {
		return nil, fmt.Errorf("event %s: %w", EventImportFinished, err)
	}
	var out []QueueItem
	for _, sub := range o.subs {
		if slices.Contains(sub.Events, EventImportFinished) {
			out = append(out, QueueItem{ID: id, Queue: EventQueue(sub.Name), Kind: EventKind, Workspace: run.Workspace,
				Body: body, RetryFor: sub.RetryFor})
		}
	}
	return out, nil
}

// ChangeEvents are the events of typ about rec with changes given as {"field": {"from", "to"}}.
func (o *Outbox) ChangeEvents(typ string, rec Record, changes map[string][2]any) ([]QueueItem, error) {
	if o == nil {
		return nil, nil
	}
	return o.Items(typ, rec, fromTo(changes))
}

func fromTo(changes map[string][2]any) map[string]map[string]any {
	ch := make(map[string]map[string]any, len(changes))
	for f, v := range changes {
		ch[f] = map[string]any{"from": v[0], "to": v[1]}
	}
	return ch
}

// UpdateEvents are the events of an edit: record.status_changed when the status moved, record.updated when
// anything else did; both carry every change.
func (o *Outbox) UpdateEvents(rec Record, changes map[string][2]any) ([]QueueItem, error) {
	if o == nil {
		return nil, nil
	}
	var out []QueueItem
	if hasStatus(changes) {
		its, err := o.ChangeEvents(EventRecordStatusChanged, rec, changes)
		if err != nil {
			return nil, err
		}
		out = append(out, its...)
	}
	if len(changes) > 1 || (len(changes) == 1 && !hasStatus(changes)) {
		its, err := o.ChangeEvents(EventRecordUpdated, rec, changes)
		if err != nil {
			return nil, err
		}
		out = append(out, its...)
	}
	return out, nil
}

// subscribers is the service's current subscriber set by workspace; replaced whole on reload.
type subscribers = map[ID][]Subscriber

// SetSubscribers replaces the subscriber set (at start and on reload). Changes made after it returns write
// events for the new set; a removed subscriber's events already written stay in its queue.
func (s *Service) SetSubscribers(subs []Subscriber) {
	m := subscribers{}
	for _, sub := range subs {
		m[sub.Workspace] = append(m[sub.Workspace], sub)
	}
	s.subs.Store(&m)
}

// outbox is the outbox of a change in ws, nil when no subscriber of ws wants any of types.
func (s *Service) outbox(ws ID, types ...string) *Outbox {
	m := s.subs.Load()
	if m == nil {
		return nil
	}
	var subs []Subscriber
	for _, sub := range (*m)[ws] {
		for _, t := range types {
			if slices.Contains(sub.Events, t) {
				subs = append(subs, sub)
				break
			}
		}
	}
	if len(subs) == 0 {
		return nil
	}
	view := s.recordView
	if view == nil {
		view = func(r Record) any { return r }
	}
	return &Outbox{subs: subs, view: view, now: s.Now()}
}

// subsPointer keeps the subscriber set swappable without a lock on the write path.
type subsPointer = atomic.Pointer[subscribers]

func hasStatus(changes map[string][2]any) bool {
	_, ok := changes["status"]
	return ok
}
