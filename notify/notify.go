// Package notify closes the loop with the people who brought feedback: core queues one message per person
// when an Idea or Feature moves to a status that `notify.statuses` names (in the move's transaction), and
// this package sends them — a Slack thread reply or DM through the entry's bot token, or an email through
// the configured SMTP server. Its Handle runs under queueworker, so a message that cannot be sent is
// retried with backoff and then kept as failed, as events are.
package notify

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/feedbridge/feedbridge/config"
	"github.com/feedbridge/feedbridge/connectors/slack"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/queueworker"
)

// Settings are the parts of the configuration that notifications use; replaced whole on reload.
type Settings struct {
	Notify    config.Notify
	PublicURL string                  // console.public_url
	Slack     map[string]slack.Poster // the Slack entries that can post, by name
}

// FromConfig takes the settings from a loaded configuration.
func FromConfig(cfg *config.Config) Settings {
	return Settings{Notify: cfg.Notify, PublicURL: cfg.Console.PublicURL, Slack: slack.Posters(cfg.Connectors[slack.Kind])}
}

// Policy is what the service needs to queue messages: which statuses, which people can be reached.
func (s Settings) Policy() *core.NotifyPolicy {
	p := &core.NotifyPolicy{Customers: s.Notify.Customers, Email: s.Notify.SMTP.Server != "",
		SlackEntries: map[string]bool{}, PublicURL: s.PublicURL, RetryFor: s.Notify.RetryFor}
	for _, st := range s.Notify.Statuses {
		if c, ok := config.NotifyStatus(st); ok && !slices.Contains(p.Statuses, c) {
			p.Statuses = append(p.Statuses, c)
		}
	}
	for name := range maps.Keys(s.Slack) {
		p.SlackEntries[name] = true
	}
	return p
}

// Options are the seams of a Notifier; zero values take the defaults.
type Options struct {
	HTTPClient *http.Client // Slack Web API calls; default: 10 s timeout, no redirects
	TLS        *tls.Config  // base TLS settings of SMTP connections (tests add their root CA)
	Now        func() time.Time
}

// Notifier sends the queued messages with the current settings.
type Notifier struct {
	cur  atomic.Pointer[Settings]
	opts Options
}

// New returns a Notifier with s.
func New(s Settings, o Options) *Notifier {
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 10 * time.Second,
			// The token goes with the request: never follow it anywhere else.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	n := &Notifier{opts: o}
	n.Apply(s)
	return n
}

// Apply replaces the settings (reload); messages already queued are sent with the new ones.
func (n *Notifier) Apply(s Settings) { n.cur.Store(&s) }

// Handle sends one queued message: nil when it was sent, an error to retry it, queueworker.Permanent for
// one that can never be sent as configured. Error texts are kept on the item: they name no secret.
func (n *Notifier) Handle(ctx context.Context, it core.QueueItem) error {
	var no core.Notice
	if err := json.Unmarshal(it.Body, &no); err != nil {
		return queueworker.Permanent(fmt.Errorf("notify: unreadable message: %w", err))
	}
	s := n.cur.Load()
	switch no.Channel {
	case core.OriginSlack:
		p, ok := s.Slack[no.Entry]
		if !ok {
			return queueworker.Permanent(fmt.Errorf("notify: slack entry %q is not configured or has no bot_token", no.Entry))
		}
		return n.postSlack(ctx, p, no)
	case core.OriginEmail:
		if s.Notify.SMTP.Server == "" {
			return queueworker.Permanent(errors.New("notify: notify.smtp.server is not set"))
		}
		return n.sendMail(ctx, s.Notify.SMTP, string(it.ID), no)
	}
	return queueworker.Permanent(fmt.Errorf("notify: unknown channel %q", no.Channel))
}
