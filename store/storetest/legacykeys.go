package storetest

import (
	"context"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

// LegacyEmailRecord is an email record's dedup key as an earlier version stored it (the Message-ID alone),
// with the key it must carry once the store's migrations have run.
type LegacyEmailRecord struct {
	Source, CustomerEmail, Reporter string
	Old, Want                       string
}

// LegacyEmailRecords are the cases each store's migration test writes in its old schema: a direct message (its
// customer sent it), a colleague's forward (the reporter sent it), a colleague's own message, a key of a
// message without Message-ID, and another connector's key.
var LegacyEmailRecords = []LegacyEmailRecord{
	{"Email", "jane@acme.com", "", "email:a1@acme.com", "email:a1@acme.com <jane@acme.com>"},
	{"Email", "mark@umbrella.org", "alice@example.com", "email:a2@example.com", "email:a2@example.com <alice@example.com>"},
	{"Email", "", "bob@example.com", "email:a3@example.com", "email:a3@example.com <bob@example.com>"},
	{"Email", "x@y.com", "", "email:sha256:00ff", "email:sha256:00ff"},
	{"Slack", "", "", "slack:T1:C1:1.2", "slack:T1:C1:1.2"},
}

// CheckLegacyEmailRecords checks a store migrated over LegacyEmailRecords in workspace ws: count(key) tells how
// many records carry a dedup key. The same message read again must find its record; a stranger's message with
// a known Message-ID must not.
func CheckLegacyEmailRecords(t *testing.T, st core.Store, ws core.ID, count func(key string) (int, error)) {
	t.Helper()
	for _, r := range LegacyEmailRecords {
		if n, err := count(r.Want); err != nil || n != 1 {
			t.Errorf("key %q after migrating: %d records, %v", r.Want, n, err)
		}
	}
	ctx := context.Background()
	svc := core.NewService(st, core.Options{})
	submit := func(title, key string) (bool, error) {
		res, err := svc.Submit(ctx, ws, core.Submission{Type: core.RecordFeedback, Title: title, PlainText: true,
			Source: "Email", DedupKey: key})
		return res.Created, err
	}
	if created, err := submit("again", LegacyEmailRecords[0].Want); err != nil || created {
		t.Errorf("the same message read again: created %v, %v; want the migrated record found", created, err)
	}
	if created, err := submit("stranger", "email:a1@acme.com <mallory@evil.example>"); err != nil || !created {
		t.Errorf("a stranger's message with a known Message-ID: created %v, %v; want a record of its own", created, err)
	}
}
