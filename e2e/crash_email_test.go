package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// dovecot is the IMAP server of .ci/dovecot.sh, shared by the tests; each test works in mailboxes of its
// own. go-imap's memory server lives inside the test process and so cannot serve a separate daemon.
type dovecot struct {
	addr, user, pass string
}

func needDovecot(t *testing.T) dovecot {
	t.Helper()
	d := dovecot{os.Getenv("FEEDBRIDGE_TEST_IMAP_ADDR"), os.Getenv("FEEDBRIDGE_TEST_IMAP_USER"), os.Getenv("FEEDBRIDGE_TEST_IMAP_PASS")}
	if d.addr == "" {
		t.Skip("FEEDBRIDGE_TEST_IMAP_ADDR is unset: the email tests need Dovecot (eval \"$(.ci/dovecot.sh)\")")
	}
	return d
}

func (d dovecot) client(t *testing.T) *imapclient.Client {
	t.Helper()
	c, err := imapclient.DialInsecure(d.addr, nil)
	if err != nil {
		t.Fatalf("dial IMAP: %v", err)
	}
	if err := c.Login(d.user, d.pass).Wait(); err != nil {
		t.Fatalf("IMAP login: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// mailboxes creates fresh mailboxes named after prefix and returns their names.
func (d dovecot) mailboxes(t *testing.T, c *imapclient.Client, prefix string, suffixes ...string) []string {
	t.Helper()
	var b [4]byte
	_, _ = rand.Read(b[:])
	base := prefix + "-" + hex.EncodeToString(b[:])
	var out []string
	for _, s := range suffixes {
		name := base + s
		if err := c.Create(name, nil).Wait(); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		out = append(out, name)
	}
	return out
}

func appendMessage(t *testing.T, c *imapclient.Client, mailbox string, raw []byte) {
	t.Helper()
	cmd := c.Append(mailbox, int64(len(raw)), nil)
	if _, err := cmd.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.Wait(); err != nil {
		t.Fatalf("append to %s: %v", mailbox, err)
	}
}

func countMessages(t *testing.T, c *imapclient.Client, mailbox string) int {
	t.Helper()
	st, err := c.Status(mailbox, &imap.StatusOptions{NumMessages: true}).Wait()
	if err != nil {
		t.Fatalf("status %s: %v", mailbox, err)
	}
	return int(*st.NumMessages)
}

// feedbackMail is a customer's message; every autoEvery-th one is an auto-reply, which makes no record.
func feedbackMail(tag string, i int, auto bool) []byte {
	extra := ""
	if auto {
		extra = "Auto-Submitted: auto-replied\r\n"
	}
	return []byte(fmt.Sprintf("From: Customer %d <c%d@acme%d.example>\r\nTo: feedback@example.com\r\nSubject: Re: mail %s-%d\r\n"+
		"Message-ID: <%s-%d@e2e.test>\r\nDate: Sun, 22 Nov 2026 09:%02d:00 +0000\r\n%sContent-Type: text/plain; charset=utf-8\r\n\r\n"+
		"The export of report %d times out after a minute.\r\n\r\n-- \r\nCustomer %d\r\n",
		i, i%40, i%3, tag, i, tag, i, i%60, extra, i, i))
}

// kill -9 while the email connector ingests a mailbox (Dovecot). Each trial appends new mail, waits until
// records start to appear and kills the daemon at a random point; the next daemon carries on from the
// checkpoint. In the end every message made exactly one record, auto-replies none, and every message sits
// in the processed mailbox (none deleted, none left behind).
func TestCrashDuringEmailIngestion(t *testing.T) {
	t.Parallel()
	imapSrv := needDovecot(t)
	eachStore(t, func(t *testing.T, storeURL string) {
		e := newEnv(t, storeURL, "")
		ws, _ := e.workspace("Crash mail")
		c := imapSrv.client(t)
		boxes := imapSrv.mailboxes(t, c, "crash", "", "-done")
		inbox, done := boxes[0], boxes[1]
		e.configure(storeURL, fmt.Sprintf(`insights: {provider: "off"}
connectors:
  email:
    - name: crash-mail
      workspace: %s
      server: %s
      security: none
      username: %s
      password: %s
      mailbox: %s
      processed_mailbox: %s
      poll_interval: 1s
`, ws, imapSrv.addr, imapSrv.user, imapSrv.pass, inbox, done))
		db := e.inspect(storeURL)
		trials, perTrial := crashTrials(t, 20), 60
		want, sent, duringIngest, beforeFirst, beforeMove := 0, 0, 0, 0, 0
		window := 800 * time.Millisecond
		for trial := 0; trial < trials; trial++ {
			for i := 0; i < perTrial; i++ {
				auto := i%25 == 7
				appendMessage(t, c, inbox, feedbackMail(fmt.Sprintf("%s-%d", inbox, trial), i, auto))
				sent++
				if !auto {
					want++
				}
			}
			before := db.int(t, "SELECT count(*) FROM records WHERE source = 'Email'")
			d := e.start()
			// The kill lands anywhere from logging in to after the last batch. How long ingestion takes
			// depends on the store and the machine, so the window shrinks while kills come too late.
			time.Sleep(jitter(0, window))
			d.kill()
			// Where the kill landed: before anything was stored, between batches, after the last batch was
			// stored but before every message was moved, or after all of it.
			switch n, left := db.int(t, "SELECT count(*) FROM records WHERE source = 'Email'"), countMessages(t, c, inbox); {
			case n == before:
				beforeFirst++
				window = min(window*5/4, 3*time.Second)
			case n < want:
				duringIngest++
			case left > 0:
				beforeMove++
			default:
				window = max(window*3/4, 100*time.Millisecond)
			}
			db.expireLeases(t)
		}

		e.start()
		eventually(t, 90*time.Second, "every message ingested and moved", func() bool {
			return db.int(t, "SELECT count(*) FROM records WHERE source = 'Email'") >= want && countMessages(t, c, inbox) == 0
		})
		time.Sleep(1500 * time.Millisecond) // a late duplicate would show up now
		total := db.int(t, "SELECT count(*) FROM records WHERE source = 'Email'")
		distinct := db.int(t, "SELECT count(DISTINCT title) FROM records WHERE source = 'Email'")
		if total != want || distinct != want {
			t.Errorf("%d email records with %d distinct titles, want %d of each", total, distinct, want)
		}
		if n := db.int(t, "SELECT count(*) FROM records WHERE source = 'Email' AND title NOT LIKE ?", "mail "+inbox+"-%"); n != 0 {
			t.Errorf("%d records with an unexpected title", n)
		}
		if got := countMessages(t, c, done); got != sent {
			t.Errorf("processed mailbox holds %d messages, %d were delivered", got, sent)
		}
		figures(t, "trials=%d kills=%d kills_before_first_batch=%d kills_between_batches=%d kills_after_store_before_move=%d messages=%d records=%d auto_replies_skipped=%d lost=0 duplicates=0",
			trials, trials, beforeFirst, duringIngest, beforeMove, sent, total, sent-want)
	})
}
