package core

import (
	"context"
	"errors"
	"fmt"
	"html"
	"slices"
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

// ETag is the entity tag of a record's current reading.
func ETag(r Record) string { return fmt.Sprintf(`"%s-%d"`, r.ID, r.Version) }

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
		out, err := s.store.UpdateRecord(ctx, ws, c)
		if errors.Is(err, ErrStale) {
			if ifMatch != "" {
				return Record{}, ErrPrecondition
			}
			if attempt < staleRetries {
				continue
			}
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
		UpdatedAt: s.Now(),
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

func (s *Service) changeRefs(rec Record, p Patch, c *RecordChange, set func(string, any, any), only func(string, ...RecordType) error) error {
	for _, f := range []struct {
		name string
		v    *string
		cur  ID
		dst  *ID
	}{{"product", p.Product, rec.ProductID, &c.ProductID}, {"user", p.User, rec.AssigneeID, &c.AssigneeID}} {
		if f.v == nil {
			continue
		}
		if f.name == "product" {
			if err := only("product", RecordIdea, RecordFeedback, RecordFeature); err != nil {
				return err
			}
		}
		v := strings.TrimSpace(*f.v)
		if v != "" && !ValidID(v) {
			return invalid(f.name, "invalid "+f.name+" id", "%s must be a 24-character hex id or \"\".", f.name)
		}
		if ID(v) != f.cur {
			set(f.name, string(f.cur), v)
			*f.dst = ID(v)
		}
	}
	if p.Tags != nil {
		if len(*p.Tags) > MaxTags {
			return invalid("tags", "too many tags", "A record takes at most %d tags; %d were given.", MaxTags, len(*p.Tags))
		}
		tags := []ID{}
		for _, t := range *p.Tags {
			if !ValidID(t) {
				return invalid("tags", "invalid tag id", "Each tag must be a 24-character hex id; %q is not.", t)
			}
			if !slices.Contains(tags, ID(t)) {
				tags = append(tags, ID(t))
			}
		}
		if !slices.Equal(tags, rec.TagIDs) {
			set("tags", idStrings(rec.TagIDs), idStrings(tags))
			c.TagIDs, c.SetTags = tags, true
		}
	}
	return nil
}

func (s *Service) changePlanning(rec Record, p Patch, c *RecordChange, set func(string, any, any), only func(string, ...RecordType) error) error {
	if p.Importance != nil || p.ClearImportance {
		if err := only("importance", RecordFeedback); err != nil {
			return err
		}
		n := 0
		if p.Importance != nil {
			if n = *p.Importance; n < 1 || n > 3 {
				return invalid("importance", "invalid importance", "importance must be 1, 2 or 3, or null.")
			}
		}
		if n != rec.Importance {
			set("importance", importanceValue(rec.Importance), importanceValue(n))
			c.Importance = n
		}
	}
	for _, f := range []struct {
		name  string
		v     *string
		owner RecordType
		cur   string
		dst   *string
	}{{"release", p.Release, RecordFeature, rec.Release, &c.Release}, {"timeframe", p.Timeframe, RecordObjective, rec.Timeframe, &c.Timeframe}} {
		if f.v == nil {
			continue
		}
		if err := only(f.name, f.owner); err != nil {
			return err
		}
		v := strings.TrimSpace(*f.v)
		if runeLen(v) > MaxRelease {
			return invalid(f.name, f.name+" is too long", "The %s has %d characters; the limit is %d.", f.name, runeLen(v), MaxRelease)
		}
		if v != f.cur {
			set(f.name, f.cur, v)
			*f.dst = v
		}
	}
	return nil
}

// changeCustomer regroups the record by the new address as a create would; a name alone renames the
// record's contact.
func (s *Service) changeCustomer(rec Record, p Patch, c *RecordChange, set func(string, any, any), only func(string, ...RecordType) error) error {
	if p.CustomerEmail == nil && p.CustomerName == nil {
		return nil
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"customer_email", p.CustomerEmail}, {"customer_name", p.CustomerName}} {
		if f.v != nil {
			if err := only(f.name, RecordFeedback, RecordIdea); err != nil {
				return err
			}
		}
	}
	email, name := rec.CustomerEmail, rec.CustomerName
	if p.CustomerEmail != nil {
		email = strings.TrimSpace(*p.CustomerEmail)
	}
	if p.CustomerName != nil {
		name = strings.TrimSpace(*p.CustomerName)
		if n := runeLen(name); n > MaxCustomerName {
			return invalid("customer_name", "customer_name is too long", "The customer_name has %d characters; the limit is %d.", n, MaxCustomerName)
		}
	}
	if email == "" {
		if p.CustomerName != nil && name != "" {
			return invalid("customer_name", "customer_name needs customer_email", "A customer is named by an address; give customer_email too.")
		}
		if rec.CustomerEmail != "" {
			set("customer_email", rec.CustomerEmail, "")
			c.SetContact = true
		}
		return nil
	}
	if runeLen(email) > MaxCustomerEmail {
		return invalid("customer_email", "customer_email is too long", "The customer_email has more than %d characters.", MaxCustomerEmail)
	}
	addr, err := ParseEmail(email)
	if err != nil {
		return invalid("customer_email", "invalid customer_email", "customer_email must be one bare address such as jane@acme.com.")
	}
	ref := &ContactRef{Email: addr, EmailKey: strings.ToLower(addr), Name: name}
	ref.Domain, ref.CompanyName, _ = s.companies.Resolve(addr)
	if addr != rec.CustomerEmail {
		set("customer_email", rec.CustomerEmail, addr)
		c.SetContact, c.Contact = true, ref
		if p.CustomerName == nil {
			ref.Name = "" // a new address keeps its own contact's name
		}
	}
	if p.CustomerName != nil && name != rec.CustomerName {
		set("customer_name", rec.CustomerName, name)
		c.SetContact, c.Contact, c.RenameContact = true, ref, true
	}
	return nil
}

func importanceValue(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

func idStrings(ids []ID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}
