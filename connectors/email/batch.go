package email

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/core"
)

// batchSize is how many messages one UID FETCH asks for and one store transaction writes at most. Fewer,
// larger transactions cost the store less per record (its full-text index is flushed once per commit);
// BenchmarkIngest chose this size.
const batchSize = 500

// batchBytes cuts a batch early once its messages hold this many raw bytes, so that a batch of large
// messages keeps little in memory while it waits for the store.
const batchBytes = 4 << 20

// rawBudget bounds the raw bytes of messages read from the server but not yet parsed.
const rawBudget = 16 << 20

// maxMessageBytes bounds what is read of one message; the text parts come first in practice, and what is
// cut is attachments.
const maxMessageBytes = 32 << 20

// fetched is one message of a batch after parsing.
type fetched struct {
	uid      imap.UID
	received time.Time
	msg      Message
	err      error // unparseable: goes to failed_mailbox or is flagged
}

// batch is a run of fetched messages in UID order. Its messages are parsed by the parse workers after the
// batch is sent; parsing says when they are done.
type batch struct {
	msgs    []fetched
	bytes   int      // raw bytes of msgs
	last    imap.UID // every UID up to last has been fetched once this batch is stored
	err     error    // the fetch failed; nothing follows
	parsing sync.WaitGroup
}

// catchUp reads every message above the checkpoint, oldest first, advancing the checkpoint in each batch's
// transaction.
func (e *entry) catchUp(ctx context.Context, c *imapclient.Client, pos *position) error {
	criteria := &imap.SearchCriteria{
		UID:     []imap.UIDSet{{imap.UIDRange{Start: pos.last + 1, Stop: 0}}},
		NotFlag: []imap.Flag{imap.FlagDeleted},
	}
	data, err := c.UIDSearch(criteria, nil).Wait()
	if err != nil {
		return fmt.Errorf("email: search new messages: %w", err)
	}
	// "n:*" always matches the highest UID, even below n.
	uids := slices.DeleteFunc(data.AllUIDs(), func(u imap.UID) bool { return u <= pos.last })
	return e.drain(ctx, c, uids, pos, true)
}

// recoverDone finishes messages at or below the checkpoint that are still waiting in the mailbox: their
// records were written but the daemon stopped before moving (or flagging) them. They go through the same
// path again, without moving the checkpoint; their dedup keys make that create nothing.
func (e *entry) recoverDone(ctx context.Context, c *imapclient.Client, pos position) error {
	if pos.last == 0 {
		return nil
	}
	criteria := &imap.SearchCriteria{
		UID:     []imap.UIDSet{{imap.UIDRange{Start: 1, Stop: pos.last}}},
		NotFlag: []imap.Flag{imap.FlagDeleted, imap.FlagFlagged},
	}
	if e.spec.ProcessedMailbox == "" {
		criteria.NotFlag = append(criteria.NotFlag, imap.FlagSeen)
	}
	data, err := c.UIDSearch(criteria, nil).Wait()
	if err != nil {
		return fmt.Errorf("email: search unfinished messages: %w", err)
	}
	uids := slices.DeleteFunc(data.AllUIDs(), func(u imap.UID) bool { return u > pos.last })
	if len(uids) > 0 {
		e.Log.WithField("messages", len(uids)).Info("email: finishing messages read before a restart")
	}
	return e.drain(ctx, c, uids, &pos, false)
}

// drain fetches, parses and stores uids, oldest first, one batch per transaction; with advance, the
// checkpoint pos moves on in each batch's transaction. Three stages overlap: the fetcher reads batches ahead,
// parse workers parse each message as it arrives, and this goroutine stores. Handled messages are moved (or
// flagged) in groups of disposeEvery, since each MOVE costs the server a sync. A group's move runs while the
// next batches are stored, over a second connection: the server runs one connection's commands in turn,
// and a MOVE costs it about as much as fetching the messages, so on the first connection it would hold up
// the FETCHes behind it. A crash before a group is moved leaves its messages for recoverDone.
func (e *entry) drain(ctx context.Context, c *imapclient.Client, uids []imap.UID, pos *position, advance bool) error {
	if len(uids) == 0 {
		return nil
	}
	slices.Sort(uids)
	var mover *moverConn
	if len(uids) >= e.disposeEvery {
		mover = e.openMover(ctx, pos.uidValidity)
		defer mover.close()
	}
	fctx, cancel := context.WithCancel(ctx)
	batches := e.stream(fctx, c, uids)
	defer func() {
		cancel()
		for range batches { // let the fetcher finish before the connection is reused or closed
		}
	}()
	var (
		pend   pending
		moving <-chan error // the group being moved on the second connection, if any
	)
	for b := range batches {
		if b.err != nil {
			return b.err
		}
		b.parsing.Wait()
		var next *position
		if advance {
			next = &position{uidValidity: pos.uidValidity, last: max(pos.last, b.last)}
		}
		done, bad, err := e.store(ctx, b.msgs, next)
		if err != nil {
			return err
		}
		if advance {
			*pos = *next
		}
		pend.done, pend.bad = append(pend.done, done...), append(pend.bad, bad...)
		if pend.size() < e.disposeEvery || mover == nil {
			continue
		}
		if moving != nil {
			select {
			case err := <-moving:
				if err != nil {
					return err
				}
				moving = nil
			default: // still moving: this group grows until that move is done
			}
		}
		if moving == nil {
			moving = e.flushAsync(mover.conn(c, e.Log), &pend)
		}
	}
	if moving != nil {
		if err := <-moving; err != nil {
			return err
		}
	}
	if err := e.flush(c, &pend); err != nil {
		return err
	}
	return ctx.Err()
}

// moverConn is the second connection of a long drain, dialled in the background when the drain starts.
type moverConn struct {
	ready  chan struct{}
	c      *imapclient.Client
	done   func()
	err    error
	warned bool
}

// openMover logs in a second time and selects the mailbox. The UIDs to move belong to the first
// connection's UIDVALIDITY, so a different one on the second (the mailbox was recreated in between) is an
// error rather than a move of other messages.
func (e *entry) openMover(ctx context.Context, uidValidity uint32) *moverConn {
	m := &moverConn{ready: make(chan struct{})}
	go func() {
		defer close(m.ready)
		c, done, err := e.dial(ctx)
		if err != nil {
			m.err = err
			return
		}
		sel, err := c.Select(e.spec.Mailbox, nil).Wait()
		switch {
		case err != nil:
			err = fmt.Errorf("email: select %q on the second connection: %w", e.spec.Mailbox, err)
		case sel.UIDValidity != uidValidity:
			err = fmt.Errorf("email: UIDVALIDITY of %q changed during the poll", e.spec.Mailbox)
		}
		if err != nil {
			done()
			m.err = err
			return
		}
		m.c, m.done = c, done
	}()
	return m
}

// conn returns the second connection, or first when it could not be opened (a server that allows one
// connection per user, say): the moves then queue behind the fetches on the first, as they would anyway.
func (m *moverConn) conn(first *imapclient.Client, log *logrus.Entry) *imapclient.Client {
	<-m.ready
	if m.err == nil {
		return m.c
	}
	if !m.warned {
		m.warned = true
		log.WithError(m.err).Warn("email: no second connection for moves; moving over the first")
	}
	return first
}

// close logs the second connection out, after the dial has finished.
func (m *moverConn) close() {
	<-m.ready
	if m.done != nil {
		m.done()
	}
}

// stream fetches uids in commands of e.batch and sends the batches in order, at most one ahead of the
// caller; each message is handed to a parse worker as soon as it is read, so the connection never waits for
// the parser. The channel closes after the last batch, after an error, or when ctx ends, once every parse
// worker has finished.
func (e *entry) stream(ctx context.Context, c *imapclient.Client, uids []imap.UID) <-chan *batch {
	out := make(chan *batch, 1)
	p := newParsePool(e.parser, runtime.GOMAXPROCS(0), e.Log)
	go func() {
		defer func() {
			p.close()
			close(out)
		}()
		send := func(b *batch) bool {
			select {
			case out <- b:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for len(uids) > 0 && ctx.Err() == nil {
			n := min(e.batch, len(uids))
			if err := e.fetch(c, uids[:n], p, send); err != nil {
				send(&batch{err: err})
				return
			}
			uids = uids[n:]
		}
	}()
	return out
}

// store writes the records of a batch and sorts its messages into done (recorded, duplicate or skipped) and
// bad (unparseable or refused). With advance set, the checkpoint moves to it in the records' transaction.
func (e *entry) store(ctx context.Context, msgs []fetched, advance *position) (done, bad []imap.UID, err error) {
	var (
		subs   []core.Submission
		owners []int // msgs index of each submission
	)
	for i, f := range msgs {
		switch {
		case f.err != nil:
			e.m.failed.Inc()
			e.msgLog(f).WithError(f.err).Warn("email: message cannot be parsed; setting it aside")
			e.Refused(fmt.Sprintf("message uid %d could not be read as mail; set aside", uint32(f.uid)))
			bad = append(bad, f.uid)
		case f.msg.SkipReason != "":
			e.m.skip(f.msg.SkipReason)
			e.CountRefused(1) // an auto-reply or bounce: read, and turned away
			e.msgLog(f).WithField("reason", f.msg.SkipReason).Info("email: automatic message skipped")
			done = append(done, f.uid)
		default:
			e.logDistrust(f)
			subs = append(subs, submission(f.msg, f.received, e.Name))
			owners = append(owners, i)
		}
	}
	carried := false
	if advance != nil && len(subs) > 0 {
		subs[len(subs)-1].Checkpoint = &core.Checkpoint{Name: e.spec.checkpointName(), Value: advance.String()}
		carried = true
	}
	results, err := e.env.Service.SubmitBatch(e.actor(ctx), e.Workspace, subs)
	if err != nil {
		return nil, nil, fmt.Errorf("email: store batch: %w", err)
	}
	for j, r := range results {
		f := msgs[owners[j]]
		if r.Err != nil {
			if j == len(results)-1 {
				carried = false // the checkpoint rode on this submission and was not written
			}
			r = e.retryInvalid(ctx, subs[j], r.Err)
			if r.Err != nil {
				e.m.failed.Inc()
				e.msgLog(f).WithError(r.Err).Warn("email: message refused by the service; setting it aside")
				e.Refused(refusedReason(f.uid, r.Err))
				bad = append(bad, f.uid)
				continue
			}
		}
		e.counted(f, r)
		done = append(done, f.uid)
	}
	if advance != nil && !carried {
		if err := e.env.Service.SetCheckpoint(ctx, e.Workspace, e.spec.checkpointName(), advance.String()); err != nil {
			return nil, nil, fmt.Errorf("email: write checkpoint: %w", err)
		}
	}
	return done, bad, nil
}

// refusedReason is last_refused for a message the service would not store: the validation's own words,
// which name a field and never quote the message, or else only that it was set aside (the cause, which may
// hold store details, stays in the log).
func refusedReason(uid imap.UID, err error) string {
	var ve *core.ValidationError
	if errors.As(err, &ve) {
		return fmt.Sprintf("message uid %d refused (%s: %s); set aside", uint32(uid), ve.Field, ve.Code)
	}
	return fmt.Sprintf("message uid %d could not be stored; set aside", uint32(uid))
}

// retryInvalid stores a message the service refused once more without its customer address, the only field
// a mail header can make unacceptable (titles and lengths are fitted by the parser).
func (e *entry) retryInvalid(ctx context.Context, sub core.Submission, cause error) core.BatchResult {
	var ve *core.ValidationError
	if !errors.As(cause, &ve) || sub.CustomerEmail == "" {
		return core.BatchResult{Err: cause}
	}
	sub.CustomerEmail, sub.Checkpoint = "", nil
	res, err := e.env.Service.Submit(e.actor(ctx), e.Workspace, sub)
	if err != nil {
		return core.BatchResult{Err: err}
	}
	return core.BatchResult{ID: res.Record.ID, Created: res.Created}
}

func (e *entry) counted(f fetched, r core.BatchResult) {
	if r.Created {
		e.m.created.Inc()
		e.Took(1)
		if e.Log.Logger.IsLevelEnabled(logrus.DebugLevel) { // one line per message: skip its fields unless shown
			e.msgLog(f).WithField("record", r.ID).Debug("email: record created")
		}
		return
	}
	e.m.skip(SkipDuplicate)
	e.msgLog(f).WithField("record", r.ID).Info("email: message already recorded; skipped as duplicate")
}

// msgLog is the logger for one message.
func (e *entry) msgLog(f fetched) *logrus.Entry {
	return e.Log.WithFields(logrus.Fields{"uid": uint32(f.uid), "message_id": f.msg.MessageID})
}

// actor credits the records this mailbox writes to its entry.
func (e *entry) actor(ctx context.Context) context.Context {
	return core.WithActor(ctx, core.Actor{Kind: core.ActorConnector, Name: e.Name})
}
