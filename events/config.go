package events

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// Entry is one subscriber under `events:` in the configuration. Its koanf tags name the keys, its doc
// tags describe them for the generated reference, and Secret is masked by `config show`.
type Entry struct {
	Name         string            `koanf:"name" required:"yes" doc:"Unique name of the subscriber; names its queue, its status and its metrics."`
	Workspace    string            `koanf:"workspace" required:"yes" doc:"Id of the workspace whose changes it receives."`
	URL          string            `koanf:"url" required:"yes" doc:"Where each event is POSTed: an https:// address (http:// only with allow_private)."`
	Secret       connectors.Secret `koanf:"secret" required:"yes" doc:"Key of the X-Feedbridge-Signature HMAC-SHA256 the subscriber checks."`
	Events       []string          `koanf:"events" doc:"Event types sent (record.created, record.updated, record.status_changed, record.linked, record.unlinked, record.merged, record.deleted, import.finished); empty: all of them."`
	RetryFor     time.Duration     `koanf:"retry_for" doc:"How long a failing event is retried, with exponential backoff, before it is kept as failed (feedbridge events failed)."`
	AllowPrivate bool              `koanf:"allow_private" doc:"Allow http:// and loopback, private and link-local addresses (refused by default, checked at each connection)."`
	Concurrency  int               `koanf:"concurrency" doc:"Extension. Deliveries in flight at once to this subscriber (events of one record still arrive one at a time, in order); 1 to 64."`
	Timeout      time.Duration     `koanf:"timeout" doc:"Extension. Time one delivery (connect, send, answer) may take before it counts as failed; at most 5m."`
}

// Defaults of the optional keys.
const (
	DefaultConcurrency = 4
	DefaultTimeout     = 10 * time.Second
	maxConcurrency     = 64
	maxTimeout         = 5 * time.Minute
)

// NewEntry is an entry holding the defaults; the config package documents the keys from it.
func NewEntry() *Entry {
	return &Entry{Events: []string{}, RetryFor: core.DefaultRetryFor, Concurrency: DefaultConcurrency, Timeout: DefaultTimeout}
}

// Parse decodes and checks the raw `events` entries without any network call; with readSecrets it also
// reads each "file:" secret once, so that a missing file is reported before it is needed. Every problem is
// named by its key (events[1].url); entries with problems are left out of the result.
func Parse(raw []map[string]any, readSecrets bool) ([]Entry, []error) {
	var out []Entry
	var problems []error
	seen := map[string]bool{}
	for i, m := range raw {
		key := func(k string) string { return fmt.Sprintf("events[%d].%s", i, k) }
		e := NewEntry()
		// The secret is judged by check, beside the other keys, and its file read only when asked.
		secret, isString := m["secret"].(string)
		m = maps.Clone(m)
		delete(m, "secret")
		if err := connectors.Decode(m, e); err != nil {
			problems = append(problems, fmt.Errorf("events[%d]: %w", i, err))
			continue
		}
		e.Secret = connectors.Secret(secret)
		errs := e.check(key)
		switch {
		case !isString && hasKey(raw[i], "secret"):
			errs = append(errs, fmt.Errorf("%s: must be a string", key("secret")))
		case strings.HasPrefix(secret, "file:") && !readSecrets:
		default:
			if _, err := e.Secret.Required(); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", key("secret"), err))
			}
		}
		if e.Name != "" {
			if seen[e.Name] {
				errs = append(errs, fmt.Errorf("%s: %q is used by another subscriber", key("name"), e.Name))
			}
			seen[e.Name] = true
		}
		if len(errs) > 0 {
			problems = append(problems, errs...)
			continue
		}
		if len(e.Events) == 0 {
			e.Events = slices.Clone(core.EventTypes)
		}
		out = append(out, *e)
	}
	return out, problems
}

func (e *Entry) check(key func(string) string) []error {
	var errs []error
	bad := func(k, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{key(k)}, args...)...))
	}
	if strings.TrimSpace(e.Name) == "" {
		bad("name", "is required")
	} else if strings.ContainsAny(e.Name, " \t\n/:") {
		bad("name", "must not contain spaces, / or :, got %q", e.Name)
	}
	if !core.ValidID(e.Workspace) {
		bad("workspace", "must be a workspace id (24 hexadecimal characters), got %q", e.Workspace)
	}
	if err := CheckURL(e.URL, e.AllowPrivate); err != nil {
		bad("url", "%v", err)
	}
	for _, t := range e.Events {
		if !slices.Contains(core.EventTypes, t) {
			bad("events", "unknown event type %q (known: %s)", t, strings.Join(core.EventTypes, ", "))
		}
	}
	if e.RetryFor <= 0 {
		bad("retry_for", "must be a positive duration such as 24h, got %v", e.RetryFor)
	}
	if e.Concurrency < 1 || e.Concurrency > maxConcurrency {
		bad("concurrency", "must be 1 to %d, got %d", maxConcurrency, e.Concurrency)
	}
	if e.Timeout <= 0 || e.Timeout > maxTimeout {
		bad("timeout", "must be a positive duration of at most %s, got %v", maxTimeout, e.Timeout)
	}
	return errs
}

// CheckURL accepts an https:// address, or an http:// one when private addresses are allowed (a
// subscriber on the same machine or network). Errors never quote the URL: it may carry a token.
func CheckURL(raw string, allowPrivate bool) error {
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return errors.New("is required")
	case err != nil || u.Host == "" || u.Opaque != "":
		return errors.New("must be an absolute https:// address")
	case u.User != nil:
		return errors.New("must not carry a user or password (the signature authenticates the sender)")
	case u.Fragment != "":
		return errors.New("must not have a #fragment")
	case u.Scheme == "https":
	case u.Scheme == "http" && allowPrivate:
	case u.Scheme == "http":
		return errors.New("must be https:// (http:// only with allow_private: true)")
	default:
		return fmt.Errorf("scheme must be https, got %q", u.Scheme)
	}
	return nil
}

// Subscriber is the entry as the service's outbox needs it.
func (e Entry) Subscriber() core.Subscriber {
	return core.Subscriber{Name: e.Name, Workspace: core.ID(e.Workspace), Events: e.Events, RetryFor: e.RetryFor}
}

// urlLabel shows a URL without its query, which may carry a token: for status, logs and errors.
func urlLabel(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

func hasKey(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}
