package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// mailbox is a throwaway folder of the IMAP account, filled with generated customer mail.
type mailbox struct {
	acct imapAccount
	name string
}

func dialIMAP(a imapAccount) (*imapclient.Client, error) {
	c, err := imapclient.DialInsecure(a.Addr, nil)
	if err != nil {
		return nil, fmt.Errorf("imap dial %s: %w", a.Addr, err)
	}
	if err := c.Login(a.User, a.Pass).Wait(); err != nil {
		c.Close()
		return nil, fmt.Errorf("imap login: %w", err)
	}
	return c, nil
}

// newMailbox creates a folder with a random name and appends n distinct messages to it over one connection.
func newMailbox(a imapAccount, n int) (*mailbox, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	m := &mailbox{acct: a, name: "fbbench-" + hex.EncodeToString(b[:])}
	c, err := dialIMAP(a)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := c.Create(m.name, nil).Wait(); err != nil {
		return nil, fmt.Errorf("imap create %s: %w", m.name, err)
	}
	for i := 0; i < n; i++ {
		raw := benchMessage(i, m.name)
		cmd := c.Append(m.name, int64(len(raw)), nil)
		if _, err := cmd.Write(raw); err != nil {
			return nil, fmt.Errorf("imap append %d: %w", i, err)
		}
		if err := cmd.Close(); err != nil {
			return nil, fmt.Errorf("imap append %d: %w", i, err)
		}
		if _, err := cmd.Wait(); err != nil {
			return nil, fmt.Errorf("imap append %d: %w", i, err)
		}
	}
	return m, nil
}

// benchMessage is a plain customer e-mail of typical length, unique by Message-ID; every tenth is HTML.
func benchMessage(i int, box string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: Customer %d <customer%d@firm%d.example>\r\nTo: feedback@example.com\r\n", i, i%700, i%90)
	fmt.Fprintf(&b, "Subject: %s (%d)\r\nMessage-ID: <%d.%s@bench.example>\r\n", loadTerms[i%len(loadTerms)], i, i, box)
	fmt.Fprintf(&b, "Date: %s\r\nMIME-Version: 1.0\r\n", time.Now().Add(-time.Duration(i)*time.Minute).Format(time.RFC1123Z))
	body := loadSentences[i%len(loadSentences)] + "\r\n\r\n" + loadSentences[(i/3)%len(loadSentences)] + "\r\n\r\nThanks,\r\nCustomer\r\n"
	if i%10 == 0 {
		fmt.Fprintf(&b, "Content-Type: text/html; charset=utf-8\r\n\r\n<html><body><p>%s</p><p>%s</p></body></html>\r\n",
			loadSentences[i%len(loadSentences)], loadSentences[(i/3)%len(loadSentences)])
	} else {
		fmt.Fprintf(&b, "Content-Type: text/plain; charset=utf-8\r\n\r\n%s", body)
	}
	return b.Bytes()
}

// rawFetch reads every message of the folder with one FETCH 1:* BODY.PEEK[] and throws the bytes away:
// the floor for the connector, which fetches the same way in batches and then does the work.
func (m *mailbox) rawFetch() (int, time.Duration, error) {
	c, err := dialIMAP(m.acct)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	start := time.Now()
	if _, err := c.Select(m.name, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		return 0, 0, fmt.Errorf("imap select: %w", err)
	}
	var all imap.SeqSet
	all.AddRange(1, 0)
	cmd := c.Fetch(all, &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{{Peek: true}}})
	count := 0
	for msg := cmd.Next(); msg != nil; msg = cmd.Next() {
		for item := msg.Next(); item != nil; item = msg.Next() {
			if body, ok := item.(imapclient.FetchItemDataBodySection); ok {
				_, _ = io.Copy(io.Discard, body.Literal)
			}
		}
		count++
	}
	if err := cmd.Close(); err != nil {
		return count, 0, fmt.Errorf("imap fetch: %w", err)
	}
	return count, time.Since(start), nil
}

// remove deletes the folder, so a shared account is left as it was found.
func (m *mailbox) remove() {
	c, err := dialIMAP(m.acct)
	if err != nil {
		return
	}
	defer c.Close()
	_ = c.Delete(m.name).Wait()
}
