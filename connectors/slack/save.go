package slack

import (
	"context"
	"errors"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// source is the label every Slack record carries.
const source = "Slack"

// outcome is what one save came to.
type outcome struct {
	res core.Result
	err error
}

// save writes one record for a. A suspended or deleted workspace takes nothing, as through the API: the
// service refuses the one as core.ErrWorkspaceNotFound and the other as not found, which the person is
// told the same way.
func (s *Set) save(ctx context.Context, a *app, sub core.Submission) (core.Result, error) {
	sub.Source = source
	res, err := s.svc.Submit(core.WithActor(ctx, core.Actor{Kind: core.ActorConnector, Name: a.Name}), a.Workspace, sub)
	if errors.Is(err, core.ErrNotFound) {
		err = core.ErrWorkspaceNotFound
	}
	return res, err
}

// saveAsync starts a save that outlives the request: Slack gets its answer within 3 s even when the store
// is slow, and the record is still written.
func (s *Set) saveAsync(a *app, sub core.Submission) <-chan outcome {
	ch := make(chan outcome, 1)
	s.background(func() {
		ctx, cancel := context.WithTimeout(context.Background(), s.opts.storeTimeout)
		defer cancel()
		res, err := s.save(ctx, a, sub)
		ch <- outcome{res, err}
	})
	return ch
}

// within waits up to the slow-path limit for an outcome.
func (s *Set) within(ch <-chan outcome) (outcome, bool) {
	t := time.NewTimer(s.opts.slowAfter)
	defer t.Stop()
	select {
	case o := <-ch:
		return o, true
	case <-t.C:
		return outcome{}, false
	}
}

// settle turns an outcome into the user's answer and notes it in metrics, status and the log.
func (s *Set) settle(a *app, endpoint string, o outcome, log *logrus.Entry) string {
	if o.err != nil {
		text, fault := failureText(o.err, log)
		if fault != "" {
			s.status.Fail(a.Name, connectors.Fault(fault, o.err))
			s.metrics.count(endpoint, "error")
		} else {
			log.WithField("reason", o.err.Error()).Info("slack: record refused")
			s.status.Refused(a.Name, refusalReason(o.err))
			s.metrics.count(endpoint, "refused")
			a.CountRefused(1)
		}
		return text
	}
	s.status.Succeeded(a.Name)
	result := "created"
	if o.res.Created {
		a.Took(1)
	}
	if !o.res.Created {
		result = "duplicate"
	}
	s.metrics.count(endpoint, result)
	log.WithFields(logrus.Fields{"record": o.res.Record.ID, "result": result}).Info("slack: record saved")
	return savedText(o.res)
}

// refusalReason is last_refused for a request the service would not store: the rule it broke, never the
// user's text.
func refusalReason(err error) string {
	var invalid *core.ValidationError
	if errors.As(err, &invalid) {
		return "a request refused (" + invalid.Field + ": " + invalid.Code + ")"
	}
	return "a request refused: the workspace's idea limit is reached"
}
