package email

import (
	"fmt"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// disposeEvery is how many handled messages are moved (or flagged) together.
const disposeEvery = 1000

// pending are handled messages not yet moved or flagged.
type pending struct{ done, bad []imap.UID }

func (p *pending) size() int { return len(p.done) + len(p.bad) }

// flush moves or flags the pending messages and waits for the server.
func (e *entry) flush(c *imapclient.Client, p *pending) error {
	return <-e.flushAsync(c, p)
}

// flushAsync starts moving or flagging the pending messages; the outcome arrives on the channel.
func (e *entry) flushAsync(c *imapclient.Client, p *pending) <-chan error {
	done, bad := p.done, p.bad
	*p = pending{}
	errc := make(chan error, 1)
	go func() {
		err := e.dispose(c, done, e.spec.ProcessedMailbox, imap.FlagSeen)
		if err == nil {
			err = e.dispose(c, bad, e.spec.FailedMailbox, imap.FlagFlagged)
		}
		errc <- err
	}()
	return errc
}

// fetch reads uids with one UID FETCH of BODY.PEEK[] (so nothing is marked \Seen by reading), hands each
// message to the parse pool as it arrives, and sends the messages as batches: one per command, cut early
// when a batch holds batchBytes. send returns false when the reader is gone.
func (e *entry) fetch(c *imapclient.Client, uids []imap.UID, p *parsePool, send func(*batch) bool) error {
	cmd := c.Fetch(imap.UIDSetNum(uids...), &imap.FetchOptions{
		UID:          true,
		InternalDate: true,
		BodySection:  []*imap.FetchItemBodySection{{Peek: true}},
	})
	abandon := false
	defer func() {
		if !abandon {
			cmd.Close()
		}
	}()
	wanted := make(map[imap.UID]bool, len(uids))
	for _, u := range uids {
		wanted[u] = true
	}
	// msgs never grows past its capacity: parse workers write into its elements while it fills.
	b := &batch{msgs: make([]fetched, 0, len(uids))}
	for msg := cmd.Next(); msg != nil; msg = cmd.Next() {
		var (
			f   fetched
			raw []byte
		)
		for item := msg.Next(); item != nil; item = msg.Next() {
			switch it := item.(type) {
			case imapclient.FetchItemDataUID:
				f.uid = it.UID
			case imapclient.FetchItemDataInternalDate:
				f.received = it.Time
			case imapclient.FetchItemDataBodySection:
				p.release(raw) // a repeated body section
				var err error
				if raw, err = p.read(it.Literal); err != nil {
					// The connection broke mid-message. go-imap's reader goroutine has gone on to the
					// next response, so Close, which would discard the rest of this literal from the same
					// buffer, must not run; the session closes the connection.
					abandon = true
					return fmt.Errorf("email: fetch uid %d: %w", f.uid, err)
				}
			}
		}
		if raw == nil || !wanted[f.uid] {
			p.release(raw)
			continue // a FETCH response the server sent on its own (a flag change), or a repeat
		}
		delete(wanted, f.uid)
		e.m.fetched.Inc()
		b.msgs = append(b.msgs, f)
		b.bytes += len(raw)
		b.last = max(b.last, f.uid)
		p.parse(&b.msgs[len(b.msgs)-1], raw, &b.parsing)
		if b.bytes >= batchBytes && len(wanted) > 0 {
			if !send(b) {
				return nil
			}
			b = &batch{msgs: make([]fetched, 0, len(wanted))}
		}
	}
	if err := cmd.Close(); err != nil {
		return fmt.Errorf("email: fetch: %w", err)
	}
	b.last = max(b.last, uids[len(uids)-1]) // requested UIDs the server did not return are gone
	send(b)
	return nil
}

// dispose moves uids to mailbox, or adds flag when no mailbox is configured. Without MOVE it copies, marks
// the originals \Deleted and expunges exactly those (UID EXPUNGE); a server with neither MOVE nor UIDPLUS
// keeps the \Deleted originals for its own expunge, since a plain EXPUNGE could remove others' messages.
func (e *entry) dispose(c *imapclient.Client, uids []imap.UID, mailbox string, flag imap.Flag) error {
	if len(uids) == 0 {
		return nil
	}
	set := imap.UIDSetNum(uids...)
	if mailbox == "" {
		err := c.Store(set, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{flag}}, nil).Close()
		if err != nil {
			return fmt.Errorf("email: flag %s: %w", flag, err)
		}
		return nil
	}
	caps := c.Caps()
	if caps.Has(imap.CapMove) || caps.Has(imap.CapIMAP4rev2) {
		if _, err := c.Move(set, mailbox).Wait(); err != nil {
			return fmt.Errorf("email: move to %q: %w", mailbox, err)
		}
		return nil
	}
	if _, err := c.Copy(set, mailbox).Wait(); err != nil {
		return fmt.Errorf("email: copy to %q: %w", mailbox, err)
	}
	deleted := &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}
	if err := c.Store(set, deleted, nil).Close(); err != nil {
		return fmt.Errorf("email: mark moved messages deleted: %w", err)
	}
	if caps.Has(imap.CapUIDPlus) {
		if err := c.UIDExpunge(set).Close(); err != nil {
			return fmt.Errorf("email: expunge moved messages: %w", err)
		}
	}
	return nil
}
