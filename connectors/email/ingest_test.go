package email

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"

	"github.com/feedbridge/feedbridge/core"
)

// ingestCorpus is a mailbox's worth of real-looking mail: forwards, direct mail, an out-of-office reply, a
// bounce, two messages that cannot be parsed, one message delivered twice and one without Message-ID.
var ingestCorpus = []string{
	"gmail_forward", "outlook_desktop_forward", "rfc822_attachment", "autoreply_auto_submitted", "bounce_dsn",
	"broken_header", "duplicate_message_id_a", "duplicate_message_id_b", "missing_message_id", "direct_plain",
	"outlook_fr_forward", "empty_message",
}

const (
	wantCreated = 7 // the rest: 2 auto-replies, 1 duplicate, 2 unparseable
	wantFailed  = 2
)

func TestIngest(t *testing.T) {
	cases := []struct {
		name    string
		memOnly *memOptions
		extra   map[string]any
		moved   bool
	}{
		{name: "move to processed and failed mailboxes", moved: true},
		{name: "flag seen and flagged in place", extra: map[string]any{"processed_mailbox": "", "failed_mailbox": ""}},
		{name: "copy and expunge where MOVE is missing", memOnly: &memOptions{noMove: true}, moved: true},
		{name: "polling without IDLE", extra: map[string]any{"idle": false}, moved: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eachServer(t, func(t *testing.T, tg *imapTarget) {
				if tc.memOnly != nil {
					if tg.mem == nil {
						t.Skip("needs a server without MOVE; Dovecot has it")
					}
					tg = startMemServer(t, *tc.memOnly)
				}
				testIngest(t, tg, tc.extra, tc.moved)
			})
		})
	}
}

func testIngest(t *testing.T, tg *imapTarget, extra map[string]any, moved bool) {
	fx := newFixture(t)
	tg.create(t, tg.box("Feedback"))
	tg.appendRaw(t, tg.box("Feedback"), corpus(t, ingestCorpus...)...)
	stop := run(t, fx.build(t, fx.entryConfig(tg, extra)))

	waitFor(t, 20*time.Second, "every message handled", func() bool {
		return fx.counter(t, "feedbridge_email_messages_fetched_total") == float64(len(ingestCorpus)) &&
			len(fx.records(t)) == wantCreated && !fx.status(t).LastSuccessAt.IsZero()
	})
	checkRecords(t, fx, ingestCorpus)
	for _, r := range fx.records(t) {
		if r.CreatedBy != (core.Actor{Kind: core.ActorConnector, Name: "support-inbox"}) {
			t.Errorf("record %q credits %+v, want the mailbox's entry", r.Title, r.CreatedBy)
		}
	}
	checkMailboxes(t, tg, moved, len(ingestCorpus)-wantFailed, wantFailed)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"feedbridge_email_records_created_total", nil, wantCreated},
		{"feedbridge_email_messages_failed_total", nil, wantFailed},
		{"feedbridge_email_messages_skipped_total", []string{"reason", SkipAutoSubmitted}, 2},
		{"feedbridge_email_messages_skipped_total", []string{"reason", SkipDuplicate}, 1},
		{"feedbridge_email_messages_skipped_total", []string{"reason", SkipPrecedence}, 0},
	} {
		if got := fx.counter(t, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if fx.counter(t, "feedbridge_email_last_success_timestamp_seconds") < float64(time.Now().Add(-time.Minute).Unix()) {
		t.Error("last success time is not recent")
	}
	st := fx.status(t)
	if st.Kind != "email" || st.LastSuccessAt.IsZero() || st.LastError != "" {
		t.Errorf("status %+v, want kind email, a last success and no error", st)
	}
	// Today's counts: the records taken; the unreadable messages and the automatic ones refused (a
	// duplicate is neither).
	refused := wantFailed
	for _, r := range SkipReasons {
		refused += int(fx.counter(t, "feedbridge_email_messages_skipped_total", "reason", r))
	}
	if st.TakenToday != wantCreated || st.RefusedToday != refused || refused <= wantFailed {
		t.Errorf("today: taken %d, refused %d; want %d and %d", st.TakenToday, st.RefusedToday, wantCreated, refused)
	}
	// The messages set aside are refused items, shown apart from last_error (they are no fault of the
	// mailbox, which stays out of /readyz's failing list).
	if st.Refused != int64(wantFailed) || !strings.HasPrefix(st.LastRefused, "message uid ") || !strings.HasSuffix(st.LastRefused, "; set aside") ||
		st.LastRefusedAt.IsZero() {
		t.Errorf("status %+v, want %d refused messages with the last one's reason and time", st, wantFailed)
	}
	if f := fx.svc.Faults().List(); len(f) != 0 {
		t.Errorf("failing %v after messages were set aside, want none", f)
	}
	uidValidity := mailboxUIDValidity(t, tg, tg.box("Feedback"))
	wantCP := fmt.Sprintf("v1:%d:%d", uidValidity, len(ingestCorpus))
	if got := fx.checkpoint(t, "email:support-inbox:"+tg.box("Feedback")); got != wantCP {
		t.Errorf("checkpoint %q, want %q", got, wantCP)
	}

	// New mail while the connector waits (IDLE or poll) is picked up, once.
	tg.appendRaw(t, tg.box("Feedback"), simpleMessage(1, "late-a"), simpleMessage(2, "late-b"))
	waitFor(t, 20*time.Second, "the two new messages recorded and moved or flagged", func() bool {
		return len(fx.records(t)) == wantCreated+2 && unhandled(t, tg, tg.box("Feedback"), moved) == 0
	})

	// A restart reads nothing again.
	stop()
	fetched := fx.counter(t, "feedbridge_email_messages_fetched_total")
	lastPoll := fx.status(t).LastSuccessAt
	stop = run(t, fx.build(t, fx.entryConfig(tg, extra)))
	waitFor(t, 10*time.Second, "a poll by the restarted connector", func() bool {
		return fx.status(t).LastSuccessAt.After(lastPoll)
	})
	stop()
	if got := fx.counter(t, "feedbridge_email_messages_fetched_total"); got != fetched {
		t.Errorf("restart fetched %v more messages, want none", got-fetched)
	}
	if n := len(fx.records(t)); n != wantCreated+2 {
		t.Errorf("%d records after restart, want %d", n, wantCreated+2)
	}
	if fx.logs.contains(tg.pass) {
		t.Error("the IMAP password appears in the log")
	}
}

// checkRecords compares each record with what the parser makes of its message, so the golden tests'
// expectations carry over: customer, reporter, title and description, through the service and back.
func checkRecords(t *testing.T, fx *fixture, names []string) {
	t.Helper()
	p := NewParser([]string{"example.com"})
	byKey := map[string]Message{}
	for _, raw := range corpus(t, names...) {
		m, err := p.Parse(raw)
		if err != nil || m.SkipReason != "" {
			continue
		}
		if _, dup := byKey[m.Title]; !dup {
			byKey[m.Title] = m
		}
	}
	for _, r := range fx.records(t) {
		want, ok := byKey[r.Title]
		if !ok {
			t.Errorf("unexpected record %q", r.Title)
			continue
		}
		if r.Source != "Email" || r.Type != "Feedback" || r.CustomerEmail != want.CustomerEmail ||
			r.Reporter != want.Reporter || r.Description != core.StripTags(want.Description) {
			t.Errorf("record %q:\n got source %q type %q customer %q reporter %q description %q\nwant customer %q reporter %q description %q",
				r.Title, r.Source, r.Type, r.CustomerEmail, r.Reporter, r.Description, want.CustomerEmail, want.Reporter, want.Description)
		}
		if r.CustomerEmail == "jane.doe@acme-corp.com" && r.Customer != "Acme Corp" {
			t.Errorf("record %q: company %q, want Acme Corp", r.Title, r.Customer)
		}
	}
}

// checkMailboxes checks where the messages ended up: moved, or flagged in place.
func checkMailboxes(t *testing.T, tg *imapTarget, moved bool, done, failed int) {
	t.Helper()
	inbox := tg.messages(t, tg.box("Feedback"))
	if moved {
		processed, bad := tg.messages(t, tg.box("Processed")), tg.messages(t, tg.box("Failed"))
		if len(inbox) != 0 || len(processed) != done || len(bad) != failed {
			t.Errorf("mailboxes: %d left, %d processed, %d failed; want 0, %d, %d", len(inbox), len(processed), len(bad), done, failed)
		}
		for _, m := range bad {
			if !strings.Contains(m.subject, "???") && m.subject != "" {
				t.Errorf("message %q in the failed mailbox", m.subject)
			}
		}
		return
	}
	seen, flagged := 0, 0
	for _, m := range inbox {
		switch {
		case m.has(imap.FlagSeen) && !m.has(imap.FlagFlagged):
			seen++
		case m.has(imap.FlagFlagged) && !m.has(imap.FlagSeen):
			flagged++
		}
	}
	if len(inbox) != done+failed || seen != done || flagged != failed {
		t.Errorf("mailbox: %d messages, %d seen, %d flagged; want %d, %d, %d", len(inbox), seen, flagged, done+failed, done, failed)
	}
}

// unhandled counts the messages of a mailbox that were neither moved nor flagged.
func unhandled(t *testing.T, tg *imapTarget, mailbox string, moved bool) int {
	n := 0
	for _, m := range tg.messages(t, mailbox) {
		if moved || !(m.has(imap.FlagSeen) || m.has(imap.FlagFlagged)) {
			n++
		}
	}
	return n
}

func mailboxUIDValidity(t *testing.T, tg *imapTarget, mailbox string) uint32 {
	t.Helper()
	c := tg.client(t)
	defer c.Close()
	st, err := c.Status(mailbox, &imap.StatusOptions{UIDValidity: true}).Wait()
	if err != nil {
		t.Fatal(err)
	}
	return st.UIDValidity
}
