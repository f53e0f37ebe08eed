package slack

import (
	"context"
	"net/http"
	"strings"

	"github.com/sirupsen/logrus"
	slackgo "github.com/slack-go/slack"

	"github.com/feedbridge/feedbridge/core"
)

// callbackSaveFeedback is the message shortcut's callback id (deploy/slack/manifest.yaml).
const callbackSaveFeedback = "save_feedback"

// handleInteraction serves POST /slack/interactions: the save_feedback message shortcut and the
// submission of the /idea modal. Other interactions are acknowledged and ignored.
func (s *Set) handleInteraction(w http.ResponseWriter, r *http.Request) {
	_, signed, ok := s.verify(w, r, "interaction")
	if !ok {
		return
	}
	cb, err := slackgo.InteractionCallbackParse(r)
	if err != nil {
		http.Error(w, "malformed interaction payload", http.StatusBadRequest)
		return
	}
	team := cb.Team.ID
	if team == "" {
		team = cb.View.TeamID
	}
	a, ok := s.entry(signed, team)
	if !ok {
		s.log.WithField("team", team).Warn("slack: interaction from a team no entry serves")
		w.WriteHeader(http.StatusOK)
		if cb.ResponseURL != "" {
			s.background(func() {
				ctx, cancel := deliveryContext()
				defer cancel()
				_ = s.postResponse(ctx, cb.ResponseURL, ephemeral(notConnected))
			})
		}
		return
	}
	log := a.Log.WithFields(logrus.Fields{"team": team, "user": cb.User.ID, "interaction": cb.Type})
	if n := r.Header.Get("X-Slack-Retry-Num"); n != "" {
		log = log.WithField("retry", n)
	}
	switch {
	case cb.Type == slackgo.InteractionTypeMessageAction && cb.CallbackID == callbackSaveFeedback:
		// Acknowledge first: the author lookup and the save together may take longer than Slack waits.
		w.WriteHeader(http.StatusOK)
		s.background(func() { s.saveMessage(a, team, cb, log) })
	case cb.Type == slackgo.InteractionTypeViewSubmission && cb.View.CallbackID == callbackIdeaModal:
		s.submitIdeaModal(w, a, team, cb, log)
	default:
		w.WriteHeader(http.StatusOK)
	}
}

// saveMessage turns a message into a Feedback record: its first line is the title, its whole text the
// description, its author (where the bot may read the address) the customer.
func (s *Set) saveMessage(a *app, team string, cb slackgo.InteractionCallback, log *logrus.Entry) {
	ctx, cancel := deliveryContext()
	defer cancel()
	ts := cb.MessageTs
	if ts == "" {
		ts = cb.Message.Timestamp
	}
	text := strings.TrimSpace(Unescape(strings.ReplaceAll(cb.Message.Text, "\r\n", "\n")))
	if text == "" {
		s.confirm(ctx, a, cb, ts, "This message has no text to save as feedback.", log)
		return
	}
	first, _, _ := strings.Cut(text, "\n")
	sub := core.Submission{
		Type:        core.RecordFeedback,
		Title:       core.Truncate(strings.TrimSpace(first), core.MaxTitle, "…"),
		Description: text,
		PlainText:   true,
		Reporter:    reporter(cb.User.Name, cb.User.ID),
		DedupKey:    "slack:" + team + ":" + cb.Channel.ID + ":" + ts,
		// Who saved it hears in the saved message's thread when its idea moves.
		Origin: &core.Origin{Kind: core.OriginSlack, Entry: a.Name, User: cb.User.ID, Channel: cb.Channel.ID, Thread: thread(cb, ts)},
	}
	sub.CustomerEmail, sub.CustomerName = s.author(ctx, a, cb.Message.User, log)
	res, err := s.save(ctx, a, sub)
	s.confirm(ctx, a, cb, ts, s.settle(a, "shortcut", outcome{res, err}, log), log)
}

// author looks up the message author's address with the bot token. Slack hides it without the
// users:read.email scope and for some guests and external users; then the record simply has no customer.
func (s *Set) author(ctx context.Context, a *app, user string, log *logrus.Entry) (email, name string) {
	if a.bot == nil || user == "" {
		return "", ""
	}
	u, err := a.bot.userInfo(ctx, user)
	if err != nil {
		log.WithError(err).Warn("slack: users.info failed; saving without a customer")
		return "", ""
	}
	if u.IsBot || u.Profile.Email == "" || !bareAddress(u.Profile.Email) {
		log.WithField("author", user).Info("slack: author's email not visible; saving without a customer")
		return "", ""
	}
	name = u.Profile.RealName
	if name == "" {
		name = u.RealName
	}
	return u.Profile.Email, core.Truncate(name, core.MaxCustomerName, "…")
}

// confirm tells the user who used the shortcut what happened: ephemerally in the message's thread with
// the bot token, else (or when the bot is not in the channel) through the response_url.
func (s *Set) confirm(ctx context.Context, a *app, cb slackgo.InteractionCallback, ts, text string, log *logrus.Entry) {
	if a.bot != nil {
		err := a.bot.postEphemeral(ctx, cb.Channel.ID, cb.User.ID,
			slackgo.MsgOptionText(text, false), slackgo.MsgOptionTS(thread(cb, ts)))
		if err == nil {
			return
		}
		log.WithError(err).Warn("slack: chat.postEphemeral failed; answering through response_url")
	}
	if err := s.postResponse(ctx, cb.ResponseURL, ephemeral(text)); err != nil {
		log.WithError(err).Warn("slack: could not deliver the confirmation")
	}
}

// thread is the thread a reply about the saved message goes to: the thread the message is in, else the
// message itself (ts) starts one.
func thread(cb slackgo.InteractionCallback, ts string) string {
	if t := cb.Message.ThreadTimestamp; t != "" {
		return t
	}
	return ts
}
