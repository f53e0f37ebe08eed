package config

import (
	"fmt"
	"net"
	"net/mail"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// NotifyStatus is the canonical name of a status that notify.statuses may name: one of an Idea's or a
// Feature's, matched as the API matches status input.
func NotifyStatus(s string) (string, bool) {
	for _, t := range []core.RecordType{core.RecordIdea, core.RecordFeature} {
		if st, merged, ok := core.ParseStatus(t, s); ok && !merged {
			return st, true
		}
	}
	return "", false
}

// validateNotify checks the notify section without any network call; problems name the key, never the
// password.
func (c *Config) validateNotify() []error {
	var errs []error
	add := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("notify.%s: "+format, append([]any{key}, args...)...))
	}
	for _, st := range c.Notify.Statuses {
		if _, ok := NotifyStatus(st); !ok {
			add("statuses", "%q is not a status of an Idea or a Feature", st)
		}
	}
	if c.Notify.RetryFor <= 0 {
		add("retry_for", "must be a positive duration such as 24h, got %v", c.Notify.RetryFor)
	}
	m := c.Notify.SMTP
	if m.Server == "" {
		return errs
	}
	host, port, err := net.SplitHostPort(m.Server)
	if err != nil || host == "" || port == "" {
		add("smtp.server", "must be host:port such as smtp.example.com:587, got %q", m.Server)
	}
	switch m.Security {
	case "starttls", "tls":
	case "none":
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			add("smtp.security", "none is allowed only to a loopback address; use starttls or tls")
		}
	default:
		add("smtp.security", "must be starttls or tls, got %q", m.Security)
	}
	if a, err := mail.ParseAddress(m.From); err != nil || a.Name != "" || strings.ContainsAny(m.From, "\r\n") {
		add("smtp.from", "must be one bare address such as feedback@example.com when a server is set, got %q", m.From)
	}
	if m.Username != "" && m.Password == "" {
		add("smtp.password", "is required with a username")
	}
	return errs
}
