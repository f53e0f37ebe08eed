package email

import (
	"fmt"
	"testing"

	"github.com/feedbridge/feedbridge/connectors/connectortest"
	"github.com/feedbridge/feedbridge/core"
)

// TestConformance points the config entry at a loopback port where nothing listens: the kind must report
// the fault, keep retrying and still stop promptly. The fed entry reads a mailbox of go-imap's in-process
// server.
func TestConformance(t *testing.T) {
	connectortest.Run(t, connectortest.Case{Kind: "email", Entry: func(t testing.TB, ws core.ID, dir string) map[string]any {
		return map[string]any{"name": "inbox", "workspace": string(ws), "server": "127.0.0.1:1", "security": "none",
			"username": "feedback@example.com", "password": "s3cret"}
	}, Feed: mailFeed})
}

// mailFeed delivers each item as a customer's mail appended to the mailbox, as a delivery agent would; a
// resend is the same message, Message-ID and all, again.
func mailFeed(t testing.TB, ws core.ID, dir string) connectortest.Feed {
	tg := startMemServer(t, memOptions{})
	tg.create(t, "Feedback")
	return connectortest.Feed{
		Entry: map[string]any{"name": "support", "workspace": string(ws), "server": tg.addr, "security": "none",
			"username": tg.user, "password": tg.pass, "mailbox": "Feedback", "processed_mailbox": "Processed",
			"failed_mailbox": "Failed", "poll_interval": "100ms"},
		Source: "Email",
		Deliver: func(t testing.TB, l *connectortest.Live, items []connectortest.Item, attempt int) []connectortest.Answer {
			for _, it := range items {
				tg.appendRaw(t, "Feedback", customerMail(it))
			}
			return nil
		},
		// A message with neither subject nor text between two good ones goes to the failed mailbox.
		Bad: func(t testing.TB, l *connectortest.Live, good []connectortest.Item) func() string {
			empty := []byte("From: Ana <ana@globex.com>\r\nTo: feedback@example.com\r\nDate: Mon, 3 Nov 2026 10:00:00 +0000\r\n" +
				"Message-ID: <empty@globex.com>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\r\n")
			tg.appendRaw(t, "Feedback", customerMail(good[0]), empty, customerMail(good[1]))
			return func() string {
				if n := len(tg.messages(t, "Failed")); n > 0 {
					return fmt.Sprintf("%d message(s) set aside in the failed mailbox", n)
				}
				return ""
			}
		},
	}
}

func customerMail(it connectortest.Item) []byte {
	return fmt.Appendf(nil, "From: %s <%s>\r\nTo: feedback@example.com\r\nSubject: %s\r\nDate: Mon, 3 Nov 2026 10:00:00 +0000\r\n"+
		"Message-ID: <%s@conformance.example>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n",
		it.Name, it.Email, it.Title, it.ExternalID, it.Description)
}
