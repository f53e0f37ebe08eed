package core

import (
	"context"
	"errors"
	"fmt"
	"html"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of the contract (§2.1), in characters.
const (
	MaxTitle        = 500
	MaxDescription  = 100_000
	MaxCustomerName = 200
	// MaxCustomerEmail is the longest address a mail path can carry.
	MaxCustomerEmail = 254
	MaxTags          = 50
	MaxRelease       = 200 // release and timeframe labels
)

// Submission is one record to create, from any path: API, Slack, email or CSV.
type Submission struct {
	Type               RecordType
	Title              string
	Description        string // HTML or plain text
	PlainText          bool   // Description is typed text (email, CSV, Slack): never parsed as markup
	CustomerEmail      string
	CustomerName       string
	Source             string // raw label, normalized
	DefaultSource      string // when Source is blank; "" means "Manual"
	ProductID          ID
	AssigneeID         ID
	TagIDs             []ID
	Reporter           string
	Release            string    // Feature only: the release it ships in
	Timeframe          string    // Objective only: the period it is set for
	CreatedAt          time.Time // zero: now
	CountsAgainstLimit bool
	DedupKey           string
	Idempotency        *Idempotency
	Checkpoint         *Checkpoint
	ImportRun          ID // the CSV import run writing it
	// Origin is how a connector received it, kept so that its people can be answered (nil: none).
	Origin *Origin
}

// Result is a created (or replayed) record.
type Result struct {
	Record  Record
	Created bool // false: the dedup or idempotency key matched an earlier record
}

// BatchResult is one submission's outcome in SubmitBatch. Err is that item's validation error;
// Created=false with a nil Err is a duplicate.
type BatchResult struct {
	ID      ID
	Created bool
	Err     error
}

// Submit validates and writes one record with everything that belongs to it, in one transaction.
func (s *Service) Submit(ctx context.Context, ws ID, sub Submission) (Result, error) {
	nr, err := s.prepare(sub)
	if err != nil {
		return Result{}, err
	}
	nr.CreatedBy = ActorFrom(ctx)
	if err := s.writable(ctx, ws); err != nil {
		return Result{}, err
	}
	nr.Outbox = s.outbox(ws, EventRecordCreated)
	rec, created, err := s.store.CreateRecord(ctx, ws, nr)
	if err != nil {
		return Result{}, err
	}
	if created && s.obs != nil {
		s.obs.RecordCreated(rec.Source, rec.Type)
	}
	if created {
		s.matcherChanged(ws, rec)
	}
	return Result{Record: rec, Created: created}, nil
}

// SubmitBatch validates each submission on its own and writes the valid ones in one store transaction.
func (s *Service) SubmitBatch(ctx context.Context, ws ID, subs []Submission) ([]BatchResult, error) {
	out := make([]BatchResult, len(subs))
	var (
		valid []NewRecord
		index []int
	)
	for i, sub := range subs {
		nr, err := s.prepare(sub)
		if err != nil {
			out[i].Err = err
			continue
		}
		nr.CountIdea, nr.Idempotency, nr.CreatedBy = false, nil, ActorFrom(ctx)
		valid = append(valid, nr)
		index = append(index, i)
	}
	if len(valid) == 0 {
		return out, nil
	}
	if err := s.writable(ctx, ws); err != nil {
		return nil, err
	}
	if ob := s.outbox(ws, EventRecordCreated); ob != nil {
		for i := range valid {
			valid[i].Outbox = ob
		}
	}
	res, err := s.store.CreateRecords(ctx, ws, valid)
	if err != nil {
		return nil, err
	}
	for j, r := range res {
		out[index[j]].ID, out[index[j]].Created = r.ID, r.Created
		if r.Created && s.obs != nil {
			s.obs.RecordCreated(valid[j].Source, valid[j].Type)
		}
	}
	return out, nil
}

// BatchWriters is how many SubmitBatch calls one importer may keep in flight to advantage: what the store
// says it takes (PostgreSQL writes each batch on its own connection), else one at a time.
func (s *Service) BatchWriters() int {
	if p, ok := s.store.(interface{ BulkWriters() int }); ok {
		return max(1, p.BulkWriters())
	}
	return 1
}

// Check applies every rule of the contract to a submission without writing anything (dry runs).
func (s *Service) Check(sub Submission) error {
	_, err := s.prepare(sub)
	return err
}

// prepare applies every rule of the contract to a submission and returns the record to store.
func (s *Service) prepare(sub Submission) (NewRecord, error) {
	cleanText(&sub.Title, &sub.Description, &sub.CustomerEmail, &sub.CustomerName, &sub.Source, &sub.Reporter, &sub.Release, &sub.Timeframe)
	if _, ok := ParseRecordType(string(sub.Type)); !ok {
		return NewRecord{}, invalid("record_type", "invalid record_type", "record_type must be one of Idea, Feedback, Feature, Objective.")
	}
	title := strings.TrimSpace(sub.Title)
	switch n := runeLen(title); {
	case n == 0:
		return NewRecord{}, invalid("title", "title is required", "The title must not be blank.")
	case n > MaxTitle:
		return NewRecord{}, invalid("title", "title is too long", "The title has %d characters; the limit is %d.", n, MaxTitle)
	}
	if n := runeLen(sub.Description); n > MaxDescription {
		return NewRecord{}, invalid("description", "description is too long", "The description has %d characters; the limit is %d.", n, MaxDescription)
	}
	if n := runeLen(sub.CustomerName); n > MaxCustomerName {
		return NewRecord{}, invalid("customer_name", "customer_name is too long", "The customer_name has %d characters; the limit is %d.", n, MaxCustomerName)
	}
	if len(sub.TagIDs) > MaxTags {
		return NewRecord{}, invalid("tags", "too many tags", "A record takes at most %d tags; %d were given.", MaxTags, len(sub.TagIDs))
	}
	release, timeframe, err := planning(sub)
	if err != nil {
		return NewRecord{}, err
	}
	nr := NewRecord{
		Type: sub.Type, Title: title, Status: StatusTriage, Reporter: strings.TrimSpace(sub.Reporter),
		Release: release, Timeframe: timeframe,
		Source: s.sources.Normalize(sub.Source, sub.DefaultSource), DedupKey: sub.DedupKey,
		CountIdea: sub.CountsAgainstLimit, Idempotency: sub.Idempotency, Checkpoint: sub.Checkpoint,
		ImportRun: sub.ImportRun, Origin: sub.Origin.String(),
	}
	if err := checkIDs(&nr, sub); err != nil {
		return NewRecord{}, err
	}
	if d := strings.TrimSpace(sub.Description); d != "" {
		switch {
		case sub.PlainText:
			nr.DescriptionHTML, nr.Description = html.EscapeString(d), d
		case IsHTML(d):
			nr.DescriptionHTML = s.sanitizer.Sanitize(d)
			nr.Description = HTMLToText(nr.DescriptionHTML)
		default:
			// Text that does not look like markup may still hold a tag the regexp misses ("<img src=x
			// onerror=…" without its ">"), which a page would close with its own markup: escape it.
			nr.DescriptionHTML, nr.Description = html.EscapeString(d), d
		}
		nr.Description = StripTags(nr.Description)
	}
	if e := strings.TrimSpace(sub.CustomerEmail); e != "" {
		if n := runeLen(e); n > MaxCustomerEmail {
			return NewRecord{}, invalid("customer_email", "customer_email is too long", "The customer_email has %d characters; the limit is %d.", n, MaxCustomerEmail)
		}
		addr, err := ParseEmail(e)
		if err != nil {
			return NewRecord{}, invalid("customer_email", "invalid customer_email", "customer_email must be one bare address such as jane@acme.com.")
		}
		c := &ContactRef{Email: addr, EmailKey: strings.ToLower(addr), Name: strings.TrimSpace(sub.CustomerName)}
		c.Domain, c.CompanyName, _ = s.companies.Resolve(addr)
		nr.Contact = c
	}
	now := s.Now()
	nr.CreatedAt, nr.UpdatedAt = now, now
	if !sub.CreatedAt.IsZero() {
		nr.CreatedAt = sub.CreatedAt.UTC().Truncate(time.Millisecond)
		if nr.CreatedAt.After(now) {
			nr.UpdatedAt = nr.CreatedAt
		}
	}
	nr.ID = NewIDAt(nr.CreatedAt)
	nr.SearchText = Fold(nr.Title + "\n" + nr.Description)
	nr.EnqueueInsight = nr.Type == RecordFeedback && nr.Description != ""
	return nr, nil
}

// cleanText makes outside text storable by every backend: NUL bytes are dropped and invalid UTF-8 becomes
// U+FFFD, the same on SQLite and PostgreSQL (which refuses both).
func cleanText(fields ...*string) {
	for _, f := range fields {
		if strings.IndexByte(*f, 0) >= 0 {
			*f = strings.ReplaceAll(*f, "\x00", "")
		}
		if !utf8.ValidString(*f) {
			*f = strings.ToValidUTF8(*f, "\uFFFD")
		}
	}
}

// writable refuses writes to a workspace that is missing or suspended, whichever path they come from (an
// API key of a suspended workspace is refused earlier, at authentication). The answer is remembered for
// workspaceTTL, so a create costs no extra read while a suspension still takes effect within the
// contract's 5 seconds.
func (s *Service) writable(ctx context.Context, ws ID) error {
	now := s.now()
	if v, ok := s.wsCache.Load(ws); ok {
		if e := v.(wsState); now.Before(e.until) {
			return e.err
		}
	}
	w, err := s.store.Workspace(ctx, ws)
	switch {
	case err == nil && w.Suspended:
		err = ErrWorkspaceNotFound
	case err != nil && !isNotFound(err):
		return err // a store failure is not remembered
	}
	s.wsCache.Store(ws, wsState{err: err, until: now.Add(workspaceTTL)})
	return err
}

// workspaceTTL is how long a workspace's writable state is remembered.
const workspaceTTL = 2 * time.Second

type wsState struct {
	err   error
	until time.Time
}

// checkIDs validates the layout of referenced ids and removes repeated tags; whether they exist in the
// workspace is checked by the store inside the write transaction.
func checkIDs(nr *NewRecord, sub Submission) error {
	for _, f := range []struct {
		field string
		id    ID
		dst   *ID
	}{{"product", sub.ProductID, &nr.ProductID}, {"user", sub.AssigneeID, &nr.AssigneeID}} {
		if f.id == "" {
			continue
		}
		if !ValidID(string(f.id)) {
			return invalid(f.field, "invalid "+f.field+" id", "%s must be a 24-character hex id.", f.field)
		}
		*f.dst = f.id
	}
	seen := make(map[ID]bool, len(sub.TagIDs))
	for _, t := range sub.TagIDs {
		if !ValidID(string(t)) {
			return invalid("tags", "invalid tag id", "Each tag must be a 24-character hex id; %q is not.", t)
		}
		if !seen[t] {
			seen[t] = true
			nr.TagIDs = append(nr.TagIDs, t)
		}
	}
	return nil
}

// UnknownID is the validation error a store returns for a referenced id that is not the workspace's.
func UnknownID(field string, id ID) *ValidationError {
	return invalid(field, fmt.Sprintf("unknown %s id %q", field, id), "No %s with id %s exists in this workspace.", field, id)
}

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// planning checks the two planning labels: a release belongs to a Feature and a timeframe to an Objective
// (the record views show each only there), so either on another type is refused rather than lost.
func planning(sub Submission) (release, timeframe string, err error) {
	release, timeframe = strings.TrimSpace(sub.Release), strings.TrimSpace(sub.Timeframe)
	t, _ := ParseRecordType(string(sub.Type))
	for _, f := range []struct {
		name, value string
		owner       RecordType
	}{{"release", release, RecordFeature}, {"timeframe", timeframe, RecordObjective}} {
		switch {
		case f.value == "":
		case t != f.owner:
			return "", "", invalid(f.name, f.name+" is only for "+string(f.owner)+" records",
				"A %s belongs to a %s record; this one is a %s.", f.name, f.owner, t)
		case runeLen(f.value) > MaxRelease:
			return "", "", invalid(f.name, f.name+" is too long", "The %s has %d characters; the limit is %d.", f.name, runeLen(f.value), MaxRelease)
		}
	}
	return release, timeframe, nil
}
