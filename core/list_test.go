package core

import (
	"testing"
	"time"
)

func TestParseListRequest(t *testing.T) {
	id := "0123456789abcdef01234567"
	good := []struct {
		name string
		req  ListRequest
		chk  func(q ListQuery) bool
	}{
		{"defaults", ListRequest{}, func(q ListQuery) bool { return q.Type == RecordIdea && !q.Asc && q.Limit == DefaultPageSize }},
		{"type any case", ListRequest{RecordType: "fEEDBACK"}, func(q ListQuery) bool { return q.Type == RecordFeedback }},
		{"asc", ListRequest{Sort: "asc"}, func(q ListQuery) bool { return q.Asc }},
		{"search folded", ListRequest{Search: " Straße "}, func(q ListQuery) bool { return q.Search == "strasse" }},
		{"date from", ListRequest{CreatedFrom: "2026-11-01"}, func(q ListQuery) bool { return q.From.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) }},
		{"date to end of day", ListRequest{CreatedTo: "2026-11-01"}, func(q ListQuery) bool {
			return q.To.Equal(time.Date(2026, 11, 1, 23, 59, 59, 999e6, time.UTC))
		}},
		{"offset", ListRequest{CreatedFrom: "2026-11-01T10:00:00+02:00"}, func(q ListQuery) bool { return q.From.Equal(time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)) }},
		{"ids", ListRequest{Product: id, User: id, Tags: []string{id, id}}, func(q ListQuery) bool { return q.ProductID == ID(id) && len(q.TagIDs) == 2 }},
		{"limit", ListRequest{Limit: "1000"}, func(q ListQuery) bool { return q.Limit == 1000 }},
	}
	for _, c := range good {
		q, err := ParseListRequest(c.req)
		if err != nil || !c.chk(q) {
			t.Errorf("%s: got %+v, %v", c.name, q, err)
		}
	}
	bad := []struct {
		req   ListRequest
		field string
	}{
		{ListRequest{RecordType: "Bogus"}, "record_type"},
		{ListRequest{Sort: "sideways"}, "sort"},
		{ListRequest{CreatedFrom: "yesterday"}, "created_from"},
		{ListRequest{CreatedTo: "2026-13-01"}, "created_to"},
		{ListRequest{UpdatedSince: "1700000000"}, "updated_since"},
		{ListRequest{Product: "abc"}, "product"},
		{ListRequest{RecordType: "Objective", Product: id}, "product"},
		{ListRequest{User: "ABCDEF0123456789ABCDEF01"}, "user"},
		{ListRequest{Tags: []string{id, "nope"}}, "tags"},
		{ListRequest{Limit: "0"}, "limit"},
		{ListRequest{Limit: "1001"}, "limit"},
		{ListRequest{Limit: "ten"}, "limit"},
	}
	for _, c := range bad {
		_, err := ParseListRequest(c.req)
		ve, ok := err.(*ValidationError)
		if !ok || ve.Field != c.field {
			t.Errorf("%+v: got %v, want a validation error on %s", c.req, err, c.field)
		}
	}
}

func TestCursorRoundTrip(t *testing.T) {
	key, other := []byte("0123456789abcdef0123456789abcdef"), []byte("another store's key, 32 bytes!!!")
	q := ListQuery{Type: RecordIdea, Search: "x"}
	c := Cursor{CreatedAt: time.UnixMilli(1763800000123).UTC(), ID: NewID()}
	s := encodeCursor(c, key, "ws1", q)
	got, err := decodeCursor(s, key, "ws1", q)
	if err != nil || !got.CreatedAt.Equal(c.CreatedAt) || got.ID != c.ID {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	if _, err := decodeCursor(s, key, "ws2", q); err == nil {
		t.Error("cursor accepted for another workspace")
	}
	if _, err := decodeCursor(s, other, "ws1", q); err == nil {
		t.Error("cursor accepted by a store with another key")
	}
	q.Search = "y"
	if _, err := decodeCursor(s, key, "ws1", q); err == nil {
		t.Error("cursor accepted for another query")
	}
	for _, bad := range []string{"", "bogus", "AAAA", s + "A"} {
		if _, err := decodeCursor(bad, key, "ws1", q); err == nil {
			t.Errorf("cursor %q accepted", bad)
		}
	}
}

func FuzzListQuery(f *testing.F) {
	f.Add("Idea", "x", "asc", "2026-01-01", "2026-01-02T00:00:00Z", "0123456789abcdef01234567", "5", "cursor")
	f.Fuzz(func(t *testing.T, typ, search, sort, from, to, id, limit, cursor string) {
		q, err := ParseListRequest(ListRequest{RecordType: typ, Search: search, Sort: sort, CreatedFrom: from, CreatedTo: to, Product: id, Tags: []string{id}, Limit: limit})
		if err != nil {
			if _, ok := err.(*ValidationError); !ok {
				t.Fatalf("non-validation error %T: %v", err, err)
			}
			return
		}
		if q.Limit < 1 || q.Limit > MaxPageSize {
			t.Fatalf("limit %d out of range", q.Limit)
		}
		_, _ = decodeCursor(cursor, []byte("key"), "ws", q)
	})
}
