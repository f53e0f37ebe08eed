package core

import (
	"context"
	"fmt"
	"slices"
)

// Link links a Feedback to an Idea or Feature and returns the feedback. importance, when not nil, must be
// 1-3 and is set on the feedback; linking again only sets it. A Feedback in Triage becomes Processed.
// Anything but Feedback to an Idea or Feature is a *ValidationError; a merged record is ErrMerged.
func (s *Service) Link(ctx context.Context, ws, feedback, target ID, importance *int) (Record, error) {
	l := LinkChange{Feedback: feedback, Target: target, At: s.Now(), Actor: ActorFrom(ctx)}
	if importance != nil {
		if *importance < 1 || *importance > 3 {
			return Record{}, invalid("importance", "invalid importance", "importance must be 1, 2 or 3.")
		}
		l.Importance = *importance
	}
	if err := s.checkLink(ctx, ws, feedback, target); err != nil {
		return Record{}, err
	}
	if err := s.writable(ctx, ws); err != nil {
		return Record{}, err
	}
	l.Outbox = s.outbox(ws, EventRecordLinked)
	return s.store.LinkRecords(ctx, ws, l)
}

// Unlink removes the link of a Feedback to an Idea or Feature; ErrNotFound when they are not linked.
func (s *Service) Unlink(ctx context.Context, ws, feedback, target ID) error {
	if err := s.writable(ctx, ws); err != nil {
		return err
	}
	return s.store.UnlinkRecords(ctx, ws, LinkChange{Feedback: feedback, Target: target, At: s.Now(), Actor: ActorFrom(ctx),
		Outbox: s.outbox(ws, EventRecordUnlinked)})
}

// checkLink refuses links of the wrong types; record types never change, so reading them outside the
// link's transaction is safe.
func (s *Service) checkLink(ctx context.Context, ws, feedback, target ID) error {
	recs, err := s.store.RecordsByID(ctx, ws, []ID{feedback, target})
	if err != nil {
		return err
	}
	types := map[ID]RecordType{}
	for _, r := range recs {
		types[r.ID] = r.Type
	}
	ft, ok1 := types[feedback]
	tt, ok2 := types[target]
	switch {
	case !ok1 || !ok2:
		return fmt.Errorf("link: %w", ErrNotFound)
	case ft != RecordFeedback || (tt != RecordIdea && tt != RecordFeature):
		return invalid("link", "only feedback links to an idea or feature",
			"A link goes from a Feedback to an Idea or Feature; this is a %s to a %s.", ft, tt)
	}
	return nil
}

// Merge merges record id into record into (same type, not itself, neither merged) and returns into.
func (s *Service) Merge(ctx context.Context, ws, id, into ID) (Record, error) {
	switch {
	case into == "":
		return Record{}, invalid("into", "into is required", "Name the record to merge into: {\"into\": \"<id>\"}.")
	case !ValidID(string(into)):
		return Record{}, invalid("into", "invalid into id", "into must be a 24-character hex id.")
	case into == id:
		return Record{}, invalid("into", "cannot merge a record into itself", "into must name another record.")
	}
	if err := s.writable(ctx, ws); err != nil {
		return Record{}, err
	}
	return s.store.MergeRecords(ctx, ws, id, into, s.Now(), ActorFrom(ctx), s.outbox(ws, EventRecordMerged))
}

// Delete removes a record and everything that belongs to it (see Store.DeleteRecord).
func (s *Service) Delete(ctx context.Context, ws, id ID) error {
	if err := s.writable(ctx, ws); err != nil {
		return err
	}
	return s.store.DeleteRecord(ctx, ws, id, s.outbox(ws, EventRecordDeleted))
}

// History lists a record's changes, oldest first, beginning with its creation, which is read from the
// record itself so that creates write no history row.
func (s *Service) History(ctx context.Context, ws, id ID) ([]HistoryEntry, error) {
	rec, err := s.store.Record(ctx, ws, id)
	if err != nil {
		return nil, err
	}
	return s.HistoryOf(ctx, ws, rec)
}

// HistoryOf is History for a record the caller has read already, so that it is not read again.
func (s *Service) HistoryOf(ctx context.Context, ws ID, rec Record) ([]HistoryEntry, error) {
	hs, err := s.store.History(ctx, ws, rec.ID)
	if err != nil {
		return nil, err
	}
	created := HistoryEntry{At: rec.CreatedAt, Actor: rec.CreatedBy, Action: ActionCreated, Changes: map[string][2]any{}}
	return slices.Insert(hs, 0, created), nil
}
