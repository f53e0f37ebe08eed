package email

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestRedeliveryAfterErasure erases the customer of two ingested messages, one with a Message-ID and one
// without, then delivers both again: each is still recognised as a duplicate (its dedup key was built from
// her address and is now stored as a keyed hash), so no record comes back with her in it.
func TestRedeliveryAfterErasure(t *testing.T) {
	fx := newFixture(t)
	tg := startMemServer(t, memOptions{})
	tg.create(t, tg.box("Feedback"))
	withID := []byte("From: Jane Roe <jane.roe@globex.com>\r\nTo: feedback@example.com\r\nSubject: Export is slow\r\n" +
		"Date: Mon, 3 Nov 2026 10:00:00 +0000\r\nMessage-ID: <erase-1@globex.com>\r\n" +
		"Content-Type: text/plain; charset=utf-8\r\n\r\nHi, Jane Roe here: the export is slow.\r\n")
	withoutID := []byte("From: Jane Roe <jane.roe@globex.com>\r\nTo: feedback@example.com\r\nSubject: Import too\r\n" +
		"Date: Mon, 3 Nov 2026 11:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nAnd the import.\r\n")
	tg.appendRaw(t, tg.box("Feedback"), withID, withoutID)
	run(t, fx.build(t, fx.entryConfig(tg, nil)))
	waitFor(t, 20*time.Second, "both messages stored", func() bool { return len(fx.records(t)) == 2 })

	got, err := fx.svc.ForgetContact(context.Background(), fx.ws, "jane.roe@globex.com")
	if err != nil || got.Records != 2 || got.Contacts != 1 {
		t.Fatalf("forget: %+v, %v", got, err)
	}
	tg.appendRaw(t, tg.box("Feedback"), withID, withoutID)
	waitFor(t, 20*time.Second, "the redelivered messages handled", func() bool {
		return len(tg.messages(t, tg.box("Processed"))) == 4
	})
	recs := fx.records(t)
	if len(recs) != 2 {
		t.Fatalf("%d records after redelivery, want 2", len(recs))
	}
	for _, r := range recs {
		all := strings.ToLower(r.Title + r.Description + r.CustomerEmail + r.Reporter)
		if strings.Contains(all, "jane") || r.ContactID != "" {
			t.Errorf("record still names her: %+v", r)
		}
	}
}
