package slack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/sirupsen/logrus"
	slackgo "github.com/slack-go/slack"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// verify checks the signature before anything else and answers the failures itself: 401 for a bad or
// missing signature and a stale timestamp, 413 for an oversized body, 415 for a body that is not a form,
// 429 for an address that failed too often and 503 when too many unsigned bodies are being read (see
// connectors.Guard).
func (s *Set) verify(w http.ResponseWriter, r *http.Request, endpoint string) ([]byte, []int, bool) {
	addr := connectors.ClientAddr(r)
	if limited, retry := s.guard.Limited(addr); limited {
		s.metrics.count(endpoint, "limited")
		s.guard.LogRefusal(s.log, endpoint, logrus.Fields{"endpoint": endpoint, "remote": addr}, errTooManyFailures)
		connectors.TooManyFailures(w, retry)
		return nil, nil, false
	}
	body, signed, err := verifyBody(w, r, s.secrets, s.guard, func(i int, err error) {
		s.apps[i].Log.WithField("endpoint", endpoint).WithError(err).Error("slack: entry cannot verify requests")
	})
	if err != nil {
		// The body may be unread: without a hangup the server would wait for it before answering.
		connectors.Hangup(w)
		switch {
		case errors.Is(err, connectors.ErrBusy):
			s.metrics.count(endpoint, "busy")
			connectors.Busy(w)
		case errors.Is(err, errTooLarge):
			s.metrics.count(endpoint, "rejected")
			http.Error(w, http.StatusText(http.StatusRequestEntityTooLarge), http.StatusRequestEntityTooLarge)
		default:
			s.metrics.count(endpoint, "rejected")
			s.guard.Failed(addr)
			s.guard.LogRefusal(s.log, endpoint, logrus.Fields{"endpoint": endpoint, "remote": addr}, err)
			http.Error(w, http.StatusText(http.StatusUnauthorized), http.StatusUnauthorized)
		}
		return nil, nil, false
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		http.Error(w, http.StatusText(http.StatusUnsupportedMediaType), http.StatusUnsupportedMediaType)
		return nil, nil, false
	}
	return body, signed, true
}

// handleCommand serves POST /slack/commands: /feedback and /idea (or the names an entry maps).
func (s *Set) handleCommand(w http.ResponseWriter, r *http.Request) {
	body, signed, ok := s.verify(w, r, "command")
	if !ok {
		return
	}
	cmd, err := slackgo.SlashCommandParse(r)
	if err != nil {
		http.Error(w, "malformed slash command", http.StatusBadRequest)
		return
	}
	a, ok := s.entry(signed, cmd.TeamID)
	if !ok {
		s.log.WithField("team", cmd.TeamID).Warn("slack: command from a team no entry serves")
		writeJSON(w, ephemeral(notConnected))
		return
	}
	log := a.Log.WithFields(logrus.Fields{"team": cmd.TeamID, "user": cmd.UserID, "command": cmd.Command})
	if n := r.Header.Get("X-Slack-Retry-Num"); n != "" {
		log = log.WithField("retry", n)
	}
	kind, ok := a.cfg.Commands[cmd.Command]
	if !ok {
		writeJSON(w, ephemeral("feedbridge does not know the command `"+outgoing.Replace(cmd.Command)+"`."))
		return
	}
	parsed, err := ParseText(cmd.Text)
	modal := kind == kindIdea && a.bot != nil
	switch {
	case err != nil:
		writeJSON(w, ephemeral("Add a title after the customer address.\n"+usage(cmd.Command, kind, modal)))
		return
	case parsed.Help && modal && strings.TrimSpace(cmd.Text) == "":
		s.openIdeaModal(w, r, a, cmd, log)
		return
	case parsed.Help:
		writeJSON(w, ephemeral(usage(cmd.Command, kind, modal)))
		return
	}
	sub := core.Submission{
		Type:          core.RecordFeedback,
		Title:         parsed.Title,
		Description:   parsed.Description,
		PlainText:     true,
		CustomerEmail: parsed.CustomerEmail,
		Reporter:      reporter(cmd.UserName, cmd.UserID),
		DedupKey:      commandKey(cmd, body),
		// Who ran the command hears of the record by DM when its idea moves.
		Origin: &core.Origin{Kind: core.OriginSlack, Entry: a.Name, User: cmd.UserID},
	}
	if kind == kindIdea {
		sub.Type, sub.CountsAgainstLimit = core.RecordIdea, true
	}
	s.answer(w, a, "command", sub, cmd.ResponseURL, log)
}

// answer saves sub and replies in the request when the store is quick, else acknowledges at once and
// posts the outcome to responseURL.
func (s *Set) answer(w http.ResponseWriter, a *app, endpoint string, sub core.Submission, responseURL string, log *logrus.Entry) {
	ch := s.saveAsync(a, sub)
	if o, ok := s.within(ch); ok {
		writeJSON(w, ephemeral(s.settle(a, endpoint, o, log)))
		return
	}
	writeJSON(w, ephemeral("Saving… the result follows here in a moment."))
	s.background(func() {
		text := s.settle(a, endpoint, <-ch, log)
		ctx, cancel := deliveryContext()
		defer cancel()
		if err := s.postResponse(ctx, responseURL, ephemeral(text)); err != nil {
			log.WithError(err).Warn("slack: could not deliver the outcome to response_url")
		}
	})
}

// commandKey makes retries of one invocation one record. trigger_id is unique per invocation and the
// same in Slack's retries; a body without one (never seen from Slack) falls back to the body's hash.
func commandKey(cmd slackgo.SlashCommand, body []byte) string {
	id := cmd.TriggerID
	if id == "" {
		sum := sha256.Sum256(body)
		id = hex.EncodeToString(sum[:12])
	}
	return "slack:" + cmd.TeamID + ":command:" + id
}

func reporter(name, id string) string {
	if name != "" {
		return "@" + name
	}
	return id
}

// deliveryContext bounds a late delivery, retries included.
func deliveryContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 2*time.Minute)
}

const notConnected = "This Slack workspace is not connected to feedbridge. Ask your feedbridge admin to add its team id to the Slack connector."
