package connectors

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/core"
)

// Entry is what every entry of every kind has, built and checked here so that all kinds agree: its kind
// and its name (unique within the kind), the workspace its records go to, a logger with the one field
// vocabulary (connector_kind, connector, workspace), and its last success and error for GET
// /api/connectors. A kind's own entry type embeds it.
type Entry struct {
	Kind      string
	Name      string
	Workspace core.ID
	Log       *logrus.Entry

	svc     Service // nil when the config is only checked
	given   map[string]bool
	faults  func(kind, name string, err error)
	counted prometheus.Counter // feedbridge_connector_refused_total of the entry
	now     func() time.Time
	note
}

// NewEntry checks the name and workspace of c, a pointer to a decoded config struct whose string fields
// tagged koanf:"name" and koanf:"workspace" hold them, and returns the Entry they describe.
func NewEntry(kind string, c any, env Env) (Entry, error) {
	env = env.WithDefaults()
	name, ws := identity(c)
	var errs []error
	if strings.TrimSpace(name) == "" {
		errs = append(errs, errors.New("name: is required"))
	}
	id, err := core.ParseID(ws)
	if err != nil {
		errs = append(errs, errors.New("workspace: must be a workspace id (24 lowercase hex characters)"))
	}
	log := env.Log.WithFields(logrus.Fields{"connector_kind": kind, "connector": name, "workspace": ws})
	en := Entry{Kind: kind, Name: name, Workspace: id, Log: log, svc: env.Service, faults: env.Faults, now: env.Now}
	if km, err := kitMetricsOf(env); err != nil {
		errs = append(errs, err)
	} else {
		en.counted = km.refused.WithLabelValues(kind, name)
	}
	return en, errors.Join(errs...)
}

// identity reads the name and workspace keys of a decoded config struct.
func identity(c any) (name, workspace string) {
	v := reflect.Indirect(reflect.ValueOf(c))
	if v.Kind() != reflect.Struct {
		return "", ""
	}
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() != reflect.String {
			continue
		}
		switch v.Type().Field(i).Tag.Get("koanf") {
		case "name":
			name = f.String()
		case "workspace":
			workspace = f.String()
		}
	}
	return name, workspace
}

// Entries builds the entries of one kind from its raw config, the same way for every kind: each raw entry
// is decoded into a new C (see Decode), its name and workspace are checked (NewEntry) and its name must
// not repeat another entry's, then parse checks the rest of it and returns what the kind runs. Every
// problem of every entry is returned at once, one error each, prefixed by the entry's name ("#2" when it
// has none). The entries that had no problem are returned along with the error, so that a kind can still
// check them against each other (Slack's routing) and list that too.
func Entries[C, E any](kind string, raw []map[string]any, env Env, parse func(en Entry, c *C) (E, error)) ([]E, error) {
	env = env.WithDefaults()
	var (
		out  []E
		errs []error
	)
	seen := make(map[string]bool, len(raw))
	for i, r := range raw {
		var problems []error
		c := newConfig[C](kind)
		unknown, err := decode(r, c)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", EntryName(r, i), err))
			continue
		}
		problems = append(problems, unknown...)
		en, err := NewEntry(kind, c, env)
		en.given = givenKeys(r, "", nil)
		problems = append(problems, err)
		if seen[en.Name] {
			problems = append(problems, errors.New("name: is used by another entry"))
		}
		seen[en.Name] = en.Name != ""
		e, err := parse(en, c)
		problems = append(problems, err)
		if n := len(errs); appendNamed(&errs, EntryName(r, i), problems) == n {
			out = append(out, e)
		}
	}
	return out, errors.Join(errs...)
}

// newConfig is the value an entry of kind decodes onto: what the registered Kind.Config returns when it is
// a *C, else a zero C (a kind being tested before it registers).
func newConfig[C any](kind string) *C {
	if k, ok := Lookup(kind); ok {
		if c, ok := k.Config().(*C); ok {
			return c
		}
	}
	return new(C)
}

// Given reports whether the entry's configuration gives key ("signature_prefix", "mapping.title"), even
// blank: a kind that fills keys from elsewhere (a preset) fills only those the entry left out.
func (e *Entry) Given(key string) bool { return e.given[key] }

// Given says which keys a raw entry gives, as Entry.Given does, for a kind's tests that decode an entry
// themselves.
func Given(entry map[string]any) func(key string) bool {
	g := givenKeys(entry, "", nil)
	return func(key string) bool { return g[key] }
}

// appendNamed appends each problem, prefixed by the entry's name, to errs and returns the new length.
// Joined errors are taken apart, so that each problem stands on its own line.
func appendNamed(errs *[]error, name string, problems []error) int {
	for _, p := range problems {
		if p == nil {
			continue
		}
		if j, ok := p.(interface{ Unwrap() []error }); ok {
			appendNamed(errs, name, j.Unwrap())
			continue
		}
		*errs = append(*errs, fmt.Errorf("%s: %w", name, p))
	}
	return len(*errs)
}

// Lease is the name of the lease the entry holds while it runs on one replica: "<kind>:<name>".
func (e *Entry) Lease() string { return e.Kind + ":" + e.Name }

// RunExclusive runs fn under the entry's lease (see the function RunExclusive), logging with the entry's
// fields.
func (e *Entry) RunExclusive(ctx context.Context, env Env, fn func(ctx context.Context) error) {
	env.Log = e.Log
	RunExclusive(ctx, env, e.Lease(), fn)
}

// Succeeded notes a success at t; the last error no longer describes the entry.
func (e *Entry) Succeeded(t time.Time) { e.lastSuccess, e.lastError = t, "" }

// Fail notes a fault of feedbridge or of the outside source, kept until the next success. Its message is
// shown by GET /api/connectors: it must hold no secret. err keeps its chain for whoever checks it (with
// errors.Is): a suspended or deleted workspace is core.ErrWorkspaceNotFound, and the conformance suite
// checks that a kind reports it as that error, not as a word in a message.
func (e *Entry) Fail(err error) {
	if err == nil {
		return
	}
	e.lastError = err.Error()
	if e.faults != nil {
		e.faults(e.Kind, e.Name, err)
	}
}

// Refused notes an item the entry read but will not store as it is (a message it cannot parse, a file of
// the wrong type): it is counted (feedbridge_connector_refused_total) and GET /api/connectors shows the
// count (refused) with the last reason (last_refused, last_refused_at). A refusal is not a fault of the
// entry: last_error and /readyz do not show it, and a success does not clear it. reason must hold no
// secret and should say what the sender can fix; it is put on one line and cut short, but a kind should
// quote outside text (a subject, a file name) only as a short excerpt.
func (e *Entry) Refused(reason string) {
	now := time.Now
	if e.now != nil {
		now = e.now
	}
	e.refuse(reason, now())
	if e.counted != nil {
		e.counted.Inc()
	}
	e.CountRefused(1)
}

// Took counts n items the entry turned into records today, and Refused n items it turned away (for the
// console's connectors page); both are in memory until the daemon's next flush.
func (e *Entry) Took(n int) {
	if e.svc != nil {
		e.svc.CountConnector(e.Workspace, e.Name, n, 0)
	}
}

// CountRefused counts n items the entry turned away today without a reason to show (Refused also counts
// its item); see Took.
func (e *Entry) CountRefused(n int) {
	if e.svc != nil {
		e.svc.CountConnector(e.Workspace, e.Name, 0, n)
	}
}

// LastSuccess is when the entry last succeeded; zero before its first success.
func (e *Entry) LastSuccess() time.Time { return e.lastSuccess }

// Report writes the entry's state with its last success and error for GET /api/connectors. A store that is
// down costs a log line; without a service (config check) nothing is written.
func (e *Entry) Report(ctx context.Context, state State) {
	if e.svc == nil {
		return
	}
	st := e.status(e.Workspace, e.Kind, e.Name, state)
	if err := e.svc.ReportConnector(ctx, st); err != nil {
		if ctx.Err() == nil {
			e.Log.WithError(err).Warn(e.Kind + ": report connector status")
		}
		return
	}
	e.written(st)
}

// Backoff is how long an entry waits before it tries again after failures in a row: exponential from Min,
// capped at Max, with jitter over the upper half so that replicas and entries do not retry in step.
type Backoff struct {
	Min, Max time.Duration
}

// DefaultBackoff is for reconnecting to an outside service after its faults.
var DefaultBackoff = Backoff{Min: time.Second, Max: 5 * time.Minute}

// Delay is the pause after the given number of failures in a row (1 for the first).
func (b Backoff) Delay(failures int) time.Duration {
	d := b.Min
	for i := 1; i < failures && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}
