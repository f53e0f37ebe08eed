package email

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestForwardTrustIngest runs forged and real forwards through a real IMAP server into the store: only an
// authenticated colleague's forward credits its inner sender, a forged colleague's address is logged and
// the message is taken as that address's own, a stranger's forward is the stranger's, and a stranger who reuses the Message-ID of a
// message not yet read, with or without its sender's From, does not make that message a duplicate.
func TestForwardTrustIngest(t *testing.T) {
	eachServer(t, func(t *testing.T, tg *imapTarget) {
		for _, tc := range []struct {
			name     string
			authserv any // nil: the key is left out
			// customers of the forwards, in mailbox order: the authenticated one, the forged one, the stranger's
			customers []string
			distrust  string
		}{
			{"topmost Authentication-Results", nil,
				[]string{"hank.scorpio@globex-corp.com", "alice@example.com", "mallory@evil.example"}, "DMARC failed for alice@example.com"},
			{"authserv-id of the receiving server", "mx.example.com",
				[]string{"hank.scorpio@globex-corp.com", "alice@example.com", "mallory@evil.example"}, "DMARC failed for alice@example.com"},
			{"authserv-id of another server", "mx.elsewhere.example",
				[]string{"alice@example.com", "alice@example.com", "mallory@evil.example"}, "no Authentication-Results from mx.elsewhere.example for alice@example.com"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				testForwardTrustIngest(t, tg, tc.authserv, tc.customers, tc.distrust)
			})
		}
	})
}

func testForwardTrustIngest(t *testing.T, tg *imapTarget, authserv any, customers []string, distrust string) {
	fx := newFixture(t)
	box := tg.box("Trust" + randomHex(3))
	tg.create(t, box)
	// The stranger's message comes first with the Message-ID of the real one that follows.
	real := simpleMessage(7, "real")
	stranger := strings.Replace(string(real), "From: Customer 7 <c7@customer-0.com>", "From: Mallory <mallory@evil.example>", 1)
	stranger = strings.Replace(stranger, "the export is slow", "please ignore", 1)
	msgs := corpus(t, "trust_dmarc_pass", "trust_dmarc_fail", "trust_outsider_forward")
	// And a forger who also writes the real sender's From, first too (before, the key of Message-ID and
	// sender made the real message its duplicate).
	forger := strings.Replace(string(real), "the export is slow", "cancel my account", 1)
	msgs = append(msgs, []byte(stranger), []byte(forger), real)
	tg.appendRaw(t, box, msgs...)
	stop := run(t, fx.build(t, fx.entryConfig(tg, map[string]any{"mailbox": box, "authserv_id": authserv})))
	waitFor(t, 20*time.Second, "every message recorded", func() bool { return len(fx.records(t)) == len(msgs) })
	stop()

	recs := fx.records(t)
	for i, want := range customers {
		if recs[i].CustomerEmail != want {
			t.Errorf("record %d %q: customer %q, want %q", i, recs[i].Title, recs[i].CustomerEmail, want)
		}
	}
	if customers[0] == "hank.scorpio@globex-corp.com" && recs[0].Customer != "Globex Corp" {
		t.Errorf("authenticated forward: company %q, want Globex Corp", recs[0].Customer)
	}
	if recs[1].Reporter != "" {
		t.Errorf("forged colleague recorded as reporter %q", recs[1].Reporter)
	}
	if recs[3].CustomerEmail != "mallory@evil.example" || recs[4].CustomerEmail != "c7@customer-0.com" ||
		recs[5].CustomerEmail != "c7@customer-0.com" {
		t.Errorf("same Message-ID: customers %q, %q and %q, want the stranger's, then the real sender's twice",
			recs[3].CustomerEmail, recs[4].CustomerEmail, recs[5].CustomerEmail)
	}
	if !strings.Contains(recs[5].Description, "the export is slow") || !strings.Contains(recs[4].Description, "cancel my account") {
		t.Errorf("the real message was skipped: %q / %q", recs[4].Description, recs[5].Description)
	}
	cos, err := fx.svc.Store().Companies(context.Background(), fx.ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cos {
		if strings.Contains(strings.ToLower(c.Domain), "bigcustomer") {
			t.Errorf("a company was created from a forged forward: %+v", c)
		}
	}
	if n := strings.Count(fx.logs.String(), "authserv_id is not set"); authserv == nil && n != 1 || authserv != nil && n != 0 {
		t.Errorf("the log warns %d times about a missing authserv_id (set: %v), want once when it is not set", n, authserv)
	}
	if !fx.logs.contains("colleague's address not trusted") || !fx.logs.contains(distrust) {
		t.Errorf("the log does not say why the colleague was not trusted (%q):\n%s", distrust, fx.logs.String())
	}
}
