package core

import (
	"context"
	"errors"
	"fmt"
	"html"
	"slices"
	"strconv"
	"strings"
)

// ErrPrecondition is an If-Match that names another version of the record than the current one.
var ErrPrecondition = errors.New("precondition failed")

// Patch is an edit of a record: a nil field is left as it is. ClearImportance sets importance to none.
type Patch struct {
	Title, Description, Status, Product, User *string
	Tags                                      *[]string
	Importance                                *int
	ClearImportance                           bool
	Release, Timeframe                        *string
	CustomerEmail, CustomerName               *string
}

// ETag is the entity tag of a record's current reading. Built without fmt: every answer with a record
// and every If-Match check makes one.
func ETag(r Record) string { return `"` + string(r.ID) + "-" + strconv.FormatInt(r.Version, 10) + `"` }

// staleRetries bounds how often an edit without If-Match is recomputed when another change lands first.
const staleRetries = 8

// Update applies p to a record and returns it. ifMatch, when not empty, must be the record's current ETag
// (ErrPrecondition otherwise, nothing written). An edit that changes nothing writes nothing, and neither
// updatedAt nor the ETag moves. The check against the current version is made inside the store's write,
// so of two edits made from the same version exactly one is written.
func (s *Service) Update(ctx context.Context, ws, id ID, p Patch, ifMatch string) (Record, error) {
	if p == (Patch{}) {
		return Record{}, invalid("body", "empty patch", "The body names no field to change.")
	}
	if mv, ok := s.store.(StatusMover); ok && onlyStatus(p) {
		if rec, done, err := s.moveStatus(ctx, mv, ws, id, p, ifMatch); done {
			return rec, err
		}
	}
	for attempt := 0; ; attempt++ {
		rec, err := s.store.Record(ctx, ws, id)
		if err != nil {
			return Record{}, err
		}
		c, err := s.change(rec, p)
		if err != nil {
			return Record{}, err
		}
		if rec.Status == StatusMerged {
			return Record{}, ErrMerged
		}
		if ifMatch != "" && ifMatch != ETag(rec) {
			return Record{}, ErrPrecondition
		}
		if len(c.History.Changes) == 0 {
			return rec, nil
		}
		if err := s.writable(ctx, ws); err != nil {
			return Record{}, err
		}
		c.History.Actor = ActorFrom(ctx)
		c.Outbox = s.outbox(ws, EventRecordUpdated, EventRecordStatusChanged)
		c.Notify = s.notifyPlan(rec, c.Status)
		out, err := s.store.UpdateRecord(ctx, ws, c)
		if errors.Is(err, ErrStale) {
			if ifMatch != "" {
				return Record{}, ErrPrecondition
			}
			if attempt < staleRetries {
				continue
			}
		}
		if err == nil {
			s.matcherChanged(ws, out)
		}
		return out, err
	}
}

// change validates p against rec and computes the record's new state and its history entry.
func (s *Service) change(rec Record, p Patch) (RecordChange, error) {
	c := RecordChange{
		ID: rec.ID, Version: rec.Version, Title: rec.Title, DescriptionHTML: rec.DescriptionHTML,
		Description: rec.Description, Status: rec.Status, ProductID: rec.ProductID, AssigneeID: rec.AssigneeID,
		TagIDs: rec.TagIDs, Importance: rec.Importance, Release: rec.Release, Timeframe: rec.Timeframe,
		UpdatedAt: s.Now(), Base: &rec,
	}
	ch := map[string][2]any{}
	set := func(field string, from, to any) { ch[field] = [2]any{from, to} }
	only := func(field string, types ...RecordType) error {
		if !slices.Contains(types, rec.Type) {
			return invalid(field, fmt.Sprintf("field %q does not apply to %s", field, rec.Type),
				"A %s record has no %s.", rec.Type, field)
		}
		return nil
	}
	var strs []*string
	for _, v := range []*string{p.Title, p.Description, p.Status, p.Product, p.User, p.Release, p.Timeframe, p.CustomerEmail, p.CustomerName} {
		if v != nil {
			strs = append(strs, v)
		}
	}
	cleanText(strs...)
	if p.Title != nil {
		t := strings.TrimSpace(*p.Title)
		switch n := runeLen(t); {
		case n == 0:
			return c, invalid("title", "title is required", "The title must not be blank.")
		case n > MaxTitle:
			return c, invalid("title", "title is too long", "The title has %d characters; the limit is %d.", n, MaxTitle)
		}
		if t != rec.Title {
			set("title", rec.Title, t)
			c.Title = t
		}
	}
	if p.Description != nil {
		if n := runeLen(*p.Description); n > MaxDescription {
			return c, invalid("description", "description is too long", "The description has %d characters; the limit is %d.", n, MaxDescription)
		}
		h, text := s.describe(*p.Description)
		// A plain description is compared as text: its stored HTML is its escaped form or the text itself.
		if text != rec.Description || (IsHTML(*p.Description) && h != rec.DescriptionHTML) {
			set("description", rec.Description, text)
			c.DescriptionHTML, c.Description = h, text
		}
	}
	if p.Status != nil {
		st, merged, ok := ParseStatus(rec.Type, *p.Status)
		switch {
		case merged:
			return c, invalid("status", "status Merged is set only by a merge", "Merge the record into another instead (POST /records/{id}/merge).")
		case !ok:
			return c, invalid("status", fmt.Sprintf("invalid status %q", *p.Status), "The statuses of %s records are %s.", rec.Type, strings.Join(boardStatuses[rec.Type], ", "))
		}
		if st != rec.Status {
			set("status", rec.Status, st)
			c.Status = st
		}
	}
	if err := s.changeRefs(rec, p, &c, set, only); err != nil {
		return c, err
	}
	if err := s.changePlanning(rec, p, &c, set, only); err != nil {
		return c, err
	}
	if err := s.changeCustomer(rec, p, &c, set, only); err != nil {
		return c, err
	}
	c.SearchText = Fold(c.Title + "\n" + c.Description)
	c.History = HistoryEntry{At: c.UpdatedAt, Action: ActionUpdated, Changes: ch}
	if _, ok := ch["status"]; ok && len(ch) == 1 {
		c.History.Action = ActionStatus
	}
	return c, nil
}

// describe turns a description as given into its stored HTML and plain text, as a create does.
func (s *Service) describe(d string) (htmlText, text string) {
	d = strings.TrimSpace(d)
	switch {
	case d == "":
		return "", ""
	case IsHTML(d):
		htmlText = s.sanitizer.Sanitize(d)
		text = HTMLToText(htmlText)
	default:
		htmlText, text = html.EscapeString(d), d
	}
	return htmlText, StripTags(text)
}
