package core

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
)

// StatusMover is a store that can move a record's status in one round trip, the commonest edit (a card
// moved on a board): it reads the record under its lock and, in the same statement, writes the new status
// with its history entry when the move is one Update would write. An optional ability, found by type
// assertion; a store without it takes the general path (read, then write).
type StatusMover interface {
	// MoveStatus returns the record of ws as it was before the move, and whether the move was written.
	// It writes only when To names a status for the record's type that differs from its status, the
	// record is not merged, and IfVersion is -1 or the record's version. ErrNotFound when there is
	// no such record.
	MoveStatus(ctx context.Context, ws ID, m StatusMove) (Record, bool, error)
}

// StatusMove is a status edit as a StatusMover writes it.
type StatusMove struct {
	ID        ID
	To        map[RecordType]string // the status asked for, as each type that has it spells it
	IfVersion int64                 // the version the record must have; -1 for any (and -2 for none)
	At        time.Time
	Actor     Actor // the history entry's actor; its action is ActionStatus, its changes {"status": [from, to]}
}

// moveStatus is Update's path for a patch of the status alone on a store that can move it in one round
// trip, when no event is due (events are written by the general path, which has the record in hand
// before its write). It answers exactly as the general path would: a refused move is explained from the
// record as the store read it. done is false when the general path must run instead.
func (s *Service) moveStatus(ctx context.Context, mv StatusMover, ws, id ID, p Patch, ifMatch string) (rec Record, done bool, err error) {
	if s.outbox(ws, EventRecordUpdated, EventRecordStatusChanged) != nil || s.writable(ctx, ws) != nil {
		return Record{}, false, nil
	}
	want := *p.Status
	cleanText(&want)
	m := StatusMove{ID: id, To: map[RecordType]string{}, IfVersion: ifVersion(id, ifMatch), At: s.Now(), Actor: ActorFrom(ctx)}
	k := statusKey(want)
	for t := range boardStatuses {
		if st, merged, ok := parseStatusKey(t, k); ok && !merged {
			m.To[t] = st
		}
	}
	// A move that may close the loop (notifyPlan) needs the record before the write: the general path.
	if p := s.notify.Load(); p != nil {
		for _, t := range []RecordType{RecordIdea, RecordFeature} {
			if st, ok := m.To[t]; ok && slices.Contains(p.Statuses, st) {
				return Record{}, false, nil
			}
		}
	}
	rec, wrote, err := mv.MoveStatus(ctx, ws, m)
	if err != nil {
		return Record{}, true, err
	}
	c, err := s.change(rec, p)
	switch {
	case err != nil:
		return Record{}, true, err
	case rec.Status == StatusMerged:
		return Record{}, true, ErrMerged
	case ifMatch != "" && ifMatch != ETag(rec):
		return Record{}, true, ErrPrecondition
	case len(c.History.Changes) == 0:
		return rec, true, nil
	case !wrote:
		return Record{}, false, nil // not expected: the store refused a move the checks above allow
	}
	c.UpdatedAt, c.History.At = m.At, m.At
	out, ok := Applied(c)
	if !ok {
		// A status change is a change of the record's own row; Applied always answers it.
		rec, err := s.store.Record(ctx, ws, id)
		return rec, true, err
	}
	s.matcherChanged(ws, out)
	return out, true, nil
}

// onlyStatus reports whether p changes the status and nothing else.
func onlyStatus(p Patch) bool {
	if p.Status == nil {
		return false
	}
	q := p
	q.Status = nil
	return q == (Patch{})
}

// ifVersion is the version an If-Match value names for record id: -1 for none (any version), and -2, which
// no record has, for a value that is not an ETag of id.
func ifVersion(id ID, ifMatch string) int64 {
	if ifMatch == "" {
		return -1
	}
	v, ok := strings.CutPrefix(ifMatch, `"`+string(id)+"-")
	if !ok || !strings.HasSuffix(v, `"`) {
		return -2
	}
	n, err := strconv.ParseInt(strings.TrimSuffix(v, `"`), 10, 64)
	if err != nil || n < 0 {
		return -2
	}
	return n
}
