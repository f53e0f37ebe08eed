package core

import (
	"testing"
	"time"
)

func TestApplied(t *testing.T) {
	base := Record{ID: "a", Version: 3, Title: "old", Status: "Triage", Tags: []string{"Bug"}, Customer: "Acme"}
	at := time.Unix(100, 0)
	change := func(fields ...string) RecordChange {
		ch := map[string][2]any{}
		for _, f := range fields {
			ch[f] = [2]any{nil, nil}
		}
		return RecordChange{ID: "a", Version: 3, Title: "new", Status: "Planned", UpdatedAt: at, Base: &base,
			History: HistoryEntry{Changes: ch}}
	}
	for _, c := range []struct {
		name string
		c    RecordChange
		ok   bool
	}{
		{"status", change("status"), true},
		{"title and status", change("title", "status"), true},
		{"tags name labels", change("status", "tags"), false},
		{"a product names a label", change("product"), false},
		{"a customer is looked up", change("customer_email"), false},
		{"no base", func() RecordChange { c := change("status"); c.Base = nil; return c }(), false},
		{"another version", func() RecordChange { c := change("status"); c.Version = 2; return c }(), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Applied(c.c)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if !ok {
				return
			}
			if got.Title != "new" || got.Status != "Planned" || got.Version != 4 || !got.UpdatedAt.Equal(at) ||
				got.Customer != "Acme" || len(got.Tags) != 1 {
				t.Fatalf("got %+v", got)
			}
		})
	}
}
