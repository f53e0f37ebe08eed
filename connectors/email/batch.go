package email

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/core"
)

// batchSize is how many messages one UID FETCH asks for and one store transaction writes.
const batchSize = 100

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

// catchUp reads every message above the checkpoint, oldest first, one batch at a time. Each batch's records
// and the advanced checkpoint are written in one transaction. Fetching runs a batch ahead of storing, so the
// IMAP server and the store work at the same time; messages are moved (or flagged) in groups of
// disposeEvery, since each MOVE costs the server a sync, and a group's move runs while the next batches are
// stored. A crash before a group is moved leaves its messages for recoverDone.
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
	if len(uids) == 0 {
		return nil
	}
	slices.Sort(uids)
	fctx, cancel := context.WithCancel(ctx)
	batches := e.prefetch(fctx, c, uids)
	defer func() {
		cancel()
		for range batches { // let the fetcher finish before the connection is reused or closed
		}
	}()
	var (
		pend     pending
		inflight = func() error { return nil } // the previous group's move
	)
	for b := range batches {
		if b.err != nil {
			return b.err
		}
		next := position{uidValidity: pos.uidValidity, last: b.uids[len(b.uids)-1]}
		done, bad, err := e.store(ctx, b.msgs, &next)
		if err != nil {
			return err
		}
		*pos = next
		pend.done, pend.bad = append(pend.done, done...), append(pend.bad, bad...)
		if pend.size() >= e.disposeEvery {
			if err := inflight(); err != nil {
				return err
			}
			inflight = e.flushAsync(c, &pend)
		}
	}
	if err := inflight(); err != nil {
		return err
	}
	if err := e.flush(c, &pend); err != nil {
		return err
	}
	return ctx.Err()
}

// fetchedBatch is one batch from the fetcher.
type fetchedBatch struct {
	uids []imap.UID
	msgs []fetched
	err  error
}

// prefetch fetches and parses the batches in a goroutine, one batch ahead of the caller. The channel closes
// after the last batch, after an error, or when ctx ends.
func (e *entry) prefetch(ctx context.Context, c *imapclient.Client, uids []imap.UID) <-chan fetchedBatch {
	out := make(chan fetchedBatch, 1)
	go func() {
		defer close(out)
		for len(uids) > 0 && ctx.Err() == nil {
			n := min(e.batch, len(uids))
			msgs, err := e.fetch(c, uids[:n])
			select {
			case out <- fetchedBatch{uids: uids[:n], msgs: msgs, err: err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
			uids = uids[n:]
		}
	}()
	return out
}

// recoverDone finishes messages at or below the checkpoint that are still waiting in the mailbox: their
// records were written but the daemon stopped before moving (or flagging) them. They go through the same
// path again; their dedup keys make that create nothing.
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
	slices.Sort(uids)
	if len(uids) > 0 {
		e.log.WithField("messages", len(uids)).Info("email: finishing messages read before a restart")
	}
	for len(uids) > 0 && ctx.Err() == nil {
		n := min(e.batch, len(uids))
		if err := e.processBatch(ctx, c, uids[:n]); err != nil {
			return err
		}
		uids = uids[n:]
	}
	return ctx.Err()
}

// processBatch fetches, stores and then moves or flags one batch, without advancing the checkpoint.
func (e *entry) processBatch(ctx context.Context, c *imapclient.Client, uids []imap.UID) error {
	msgs, err := e.fetch(c, uids)
	if err != nil {
		return err
	}
	done, bad, err := e.store(ctx, msgs, nil)
	if err != nil {
		return err
	}
	return e.flush(c, &pending{done: done, bad: bad})
}

// store writes the records of a batch and sorts its messages into done (recorded, duplicate or skipped) and
// bad (unparseable or refused). With advance set, the checkpoint moves to it in the records' transaction.
func (e *entry) store(ctx context.Context, msgs []fetched, advance *position) (done, bad []imap.UID, err error) {
	var (
		subs   []core.Submission
		owners []int // msgs index of each submission
	)
	for i, f := range msgs {
		log := e.log.WithFields(logrus.Fields{"uid": uint32(f.uid), "message_id": f.msg.MessageID})
		switch {
		case f.err != nil:
			e.m.failed.Inc()
			log.WithError(f.err).Warn("email: message cannot be parsed; setting it aside")
			bad = append(bad, f.uid)
		case f.msg.SkipReason != "":
			e.m.skip(f.msg.SkipReason)
			log.WithField("reason", f.msg.SkipReason).Info("email: automatic message skipped")
			done = append(done, f.uid)
		default:
			subs = append(subs, submission(f.msg, f.received))
			owners = append(owners, i)
		}
	}
	carried := false
	if advance != nil && len(subs) > 0 {
		subs[len(subs)-1].Checkpoint = &core.Checkpoint{Name: e.spec.checkpointName(), Value: advance.String()}
		carried = true
	}
	results, err := e.env.Service.SubmitBatch(ctx, e.spec.ws, subs)
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
				e.log.WithFields(logrus.Fields{"uid": uint32(f.uid), "message_id": f.msg.MessageID}).WithError(r.Err).Warn("email: message refused by the service; setting it aside")
				bad = append(bad, f.uid)
				continue
			}
		}
		e.counted(f, r)
		done = append(done, f.uid)
	}
	if advance != nil && !carried {
		if err := e.env.Service.SetCheckpoint(ctx, e.spec.ws, e.spec.checkpointName(), advance.String()); err != nil {
			return nil, nil, fmt.Errorf("email: write checkpoint: %w", err)
		}
	}
	return done, bad, nil
}

// retryInvalid stores a message the service refused once more without its customer address, the only field
// a mail header can make unacceptable (titles and lengths are fitted by the parser).
func (e *entry) retryInvalid(ctx context.Context, sub core.Submission, cause error) core.BatchResult {
	var ve *core.ValidationError
	if !errors.As(cause, &ve) || sub.CustomerEmail == "" {
		return core.BatchResult{Err: cause}
	}
	sub.CustomerEmail, sub.Checkpoint = "", nil
	res, err := e.env.Service.Submit(ctx, e.spec.ws, sub)
	if err != nil {
		return core.BatchResult{Err: err}
	}
	return core.BatchResult{ID: res.Record.ID, Created: res.Created}
}

func (e *entry) counted(f fetched, r core.BatchResult) {
	log := e.log.WithFields(logrus.Fields{"uid": uint32(f.uid), "message_id": f.msg.MessageID, "record": r.ID})
	if r.Created {
		e.m.created.Inc()
		log.Debug("email: record created")
		return
	}
	e.m.skip(SkipDuplicate)
	log.Info("email: message already recorded; skipped as duplicate")
}
