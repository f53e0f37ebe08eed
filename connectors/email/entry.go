package email

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/sirupsen/logrus"
	"golang.org/x/oauth2"

	"github.com/feedbridge/feedbridge/connectors"
)

// statusEvery throttles status writes while everything is fine; state changes are written at once.
const statusEvery = 10 * time.Second

// entry polls one configured mailbox.
type entry struct {
	connectors.Entry
	spec      *spec
	env       connectors.Env
	parser    *Parser
	m         *mailboxMetrics
	tlsConfig *tls.Config
	tokens    oauth2.TokenSource
	wake      chan struct{} // new mail announced by the server (EXISTS)

	backoff      connectors.Backoff // between reconnects after server and network faults
	batch        int                // messages per fetch and per store transaction
	disposeEvery int                // handled messages moved or flagged together
	state        connectors.State
	lastReport   time.Time
}

func newEntry(en connectors.Entry, s *spec, env connectors.Env, m *metrics) *entry {
	en.Log = en.Log.WithField("mailbox", s.Mailbox)
	return &entry{
		Entry:        en,
		spec:         s,
		env:          env,
		parser:       NewParser(s.InternalDomains).withAuthservID(s.AuthservID),
		m:            m.forMailbox(s.Name, s.Mailbox),
		tlsConfig:    tlsDefaults(),
		wake:         make(chan struct{}, 1),
		backoff:      connectors.DefaultBackoff,
		batch:        batchSize,
		disposeEvery: disposeEvery,
	}
}

func (e *entry) notify() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// run polls until ctx ends, reconnecting after faults with exponential backoff and jitter. It is the body of
// connectors.RunExclusive, so only the replica holding the mailbox's lease runs it.
func (e *entry) run(ctx context.Context) error {
	defer func() {
		stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		e.report(stop, connectors.StateStopped, true)
	}()
	failures := 0
	for ctx.Err() == nil {
		e.report(ctx, connectors.StateStarting, true)
		progressed, err := e.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if progressed {
			failures = 0
		}
		failures++
		delay := e.backoff.Delay(failures)
		e.Fail(err)
		e.Log.WithError(err).WithField("retry_in", delay.Round(time.Millisecond).String()).Warn("email: mailbox poll failed")
		e.report(ctx, connectors.StateError, true)
		connectors.Sleep(ctx, delay)
	}
	return nil
}

// session connects, reads everything new and then waits for mail, until an error. progressed says whether
// a catch-up completed, which resets the backoff; a server that fails the same step every time keeps
// backing off.
func (e *entry) session(ctx context.Context) (progressed bool, err error) {
	c, done, err := e.dial(ctx)
	if err != nil {
		return false, err
	}
	defer done()
	for _, name := range []string{e.spec.ProcessedMailbox, e.spec.FailedMailbox} {
		if name != "" {
			if err := ensureMailbox(c, name); err != nil {
				return false, err
			}
		}
	}
	sel, err := c.Select(e.spec.Mailbox, nil).Wait()
	if err != nil {
		return false, fmt.Errorf("email: select %q: %w", e.spec.Mailbox, err)
	}
	pos, err := e.position(ctx, sel.UIDValidity)
	if err != nil {
		return false, err
	}
	e.report(ctx, connectors.StateRunning, true)
	if err := e.recoverDone(ctx, c, pos); err != nil {
		return false, err
	}
	for {
		if err := e.catchUp(ctx, c, &pos); err != nil {
			return progressed, err
		}
		progressed = true
		e.succeeded(ctx)
		if err := e.wait(ctx, c); err != nil {
			return true, err
		}
		if ctx.Err() != nil {
			return true, nil
		}
	}
}

// position reads the checkpoint. After a UIDVALIDITY change the old UIDs mean nothing, so the mailbox is
// read again from the start; the Message-ID dedup keys keep that from creating duplicates.
func (e *entry) position(ctx context.Context, uidValidity uint32) (position, error) {
	v, err := e.env.Service.Checkpoint(ctx, e.Workspace, e.spec.checkpointName())
	if err != nil {
		return position{}, fmt.Errorf("email: read checkpoint: %w", err)
	}
	pos, ok := parsePosition(v)
	if ok && pos.uidValidity != uidValidity {
		e.Log.WithFields(logrus.Fields{"old_uidvalidity": pos.uidValidity, "uidvalidity": uidValidity}).
			Warn("email: UIDVALIDITY changed; reading the mailbox again (known messages are skipped as duplicates)")
	}
	if !ok || pos.uidValidity != uidValidity {
		pos = position{uidValidity: uidValidity}
	}
	return pos, nil
}

// wait returns when the server announces mail (IDLE), after poll_interval, or when ctx ends.
func (e *entry) wait(ctx context.Context, c *imapclient.Client) error {
	timer := time.NewTimer(e.spec.PollInterval)
	defer timer.Stop()
	if !e.spec.Idle || !c.Caps().Has(imap.CapIdle) {
		select {
		case <-ctx.Done():
		case <-timer.C:
		case <-c.Closed():
			return errors.New("email: connection closed by the server")
		}
		return nil
	}
	idle, err := c.Idle()
	if err != nil {
		return fmt.Errorf("email: idle: %w", err)
	}
	select {
	case <-ctx.Done():
	case <-timer.C: // a periodic look even under IDLE, in case a notification was lost
	case <-e.wake:
	case <-c.Closed():
	}
	if err := idle.Close(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("email: stop idle: %w", err)
	}
	if err := idle.Wait(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("email: idle: %w", err)
	}
	return nil
}

// succeeded records a completed poll in the metrics and, throttled, in the connector status.
func (e *entry) succeeded(ctx context.Context) {
	first := e.LastSuccess().IsZero()
	e.Succeeded(e.env.Now())
	e.m.lastSuccess.Set(float64(e.LastSuccess().UnixNano()) / 1e9)
	e.report(ctx, connectors.StateRunning, first)
}

// report writes the connector status (connectors.Entry.Report) when the state changed (or force), or when the last write is older
// than statusEvery.
func (e *entry) report(ctx context.Context, state connectors.State, force bool) {
	now := e.env.Now()
	if !force && state == e.state && now.Sub(e.lastReport) < statusEvery {
		return
	}
	e.state, e.lastReport = state, now
	e.Report(ctx, state)
}
