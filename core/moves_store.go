package core

import (
	"context"
	"slices"
	"strings"
	"time"
)

// RecordChange is an edit of a record as the service computed it from the version it read: the record's
// whole new state of the editable fields. The store writes it only while Version is still the record's
// version, in the same transaction as its history entry.
type RecordChange struct {
	ID              ID
	Version         int64
	Title           string
	DescriptionHTML string
	Description     string
	SearchText      string
	Status          string
	ProductID       ID
	AssigneeID      ID
	TagIDs          []ID
	SetTags         bool
	Importance      int
	Release         string
	Timeframe       string
	// SetContact replaces the record's customer with Contact (nil: none). RenameContact sets the
	// contact's name to Contact.Name even when it has one.
	SetContact    bool
	RenameContact bool
	Contact       *ContactRef
	UpdatedAt     time.Time
	History       HistoryEntry
	// Base is the reading c was computed from, when the caller has it; see Applied.
	Base   *Record
	Outbox *Outbox // the events the store writes in the change's transaction
	// Notify, set when the status moves to one that tells the people who brought the record: the store
	// reads their NotifySources in the change's transaction and writes Notify.Items of those not told of
	// this status before (see NotifyPlan).
	Notify *NotifyPlan
}

// LinkChange links (or unlinks) a Feedback and an Idea or Feature.
type LinkChange struct {
	Feedback   ID
	Target     ID
	Importance int // 1-3 to set, 0 to leave as it is
	At         time.Time
	Actor      Actor
	Outbox     *Outbox // record.linked or record.unlinked about the feedback, in the change's transaction
}

// RecordMoves are the store's writes of records after their creation. Each runs in one transaction,
// writes the history entries of its change in it, and moves the Version of every record whose reading
// it changes.
type RecordMoves interface {
	// UpdateRecord writes c: ErrNotFound for no such record, ErrMerged for a Merged one, ErrStale when
	// c.Version is no longer current (nothing is written), *ValidationError for an unknown referenced id.
	UpdateRecord(ctx context.Context, ws ID, c RecordChange) (Record, error)
	// LinkRecords links a Feedback to an Idea or Feature (the service has checked the types) and returns
	// the feedback: idempotent, a repeated link only sets the importance; a Feedback in Triage becomes
	// Processed. ErrNotFound when either is absent, ErrMerged when either is merged.
	LinkRecords(ctx context.Context, ws ID, l LinkChange) (Record, error)
	// UnlinkRecords removes a link; ErrNotFound when there is none.
	UnlinkRecords(ctx context.Context, ws ID, l LinkChange) error
	// MergeRecords merges id into into (the service has checked that they differ): id becomes Merged
	// with MergedInto, its links (a Feedback's) or linked feedback (an Idea's or Feature's) move to into,
	// its tags join into's. Returns into. ErrNotFound, ErrMerged when either is already merged, and
	// *ValidationError when their types differ.
	// ob writes record.merged about id in the same transaction (nil: no event).
	MergeRecords(ctx context.Context, ws, id, into ID, at time.Time, actor Actor, ob *Outbox) (Record, error)
	// DeleteRecord removes a record with its tags, links, insights, insight jobs, history, search entry
	// and the idempotency keys that created it; the records it was linked to count one feedback less.
	// The records merged into it, directly or through a chain of merges, are deleted with it in the same
	// transaction, so that no merged_into names a record that is gone.
	// ob writes record.deleted, with the record as it was, in the same transaction (nil: no event).
	DeleteRecord(ctx context.Context, ws, id ID, ob *Outbox) error
	// History lists a record's stored changes, oldest first (the "created" entry is the service's, from
	// the record itself); ErrNotFound for no such record.
	History(ctx context.Context, ws, id ID) ([]HistoryEntry, error)
}

// RankAccounts is an Idea's accounts: the distinct company names of its own customer (own, "" for none)
// and of its linked feedback's customers (one name per linked feedback that has one), the most frequent
// first, ties by name. The stores call it so that both rank alike.
func RankAccounts(own string, linked []string) []string {
	n := map[string]int{}
	for _, c := range linked {
		if c != "" {
			n[c]++
		}
	}
	return rankAccounts(own, n)
}

// RankAccountCounts is RankAccounts of linked feedback counted by company: names[i] stands for counts[i]
// linked feedback, and a name may come more than once (companies of the same name), so that a store can
// count an Idea's links by company instead of reading every link.
func RankAccountCounts(own string, names []string, counts []int64) []string {
	n := map[string]int{}
	for i, c := range names {
		if c != "" {
			n[c] += int(counts[i])
		}
	}
	return rankAccounts(own, n)
}

// rankAccounts adds own to the linked feedback's count per name n and ranks the names.
func rankAccounts(own string, n map[string]int) []string {
	if own != "" {
		n[own]++
	}
	out := make([]string, 0, len(n))
	for c := range n {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b string) int {
		if n[a] != n[b] {
			return n[b] - n[a]
		}
		return strings.Compare(a, b)
	})
	return out
}
