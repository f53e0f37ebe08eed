// Package connectors is the contract between the daemon and the integrations that turn outside input into
// records. Each kind lives in its own package, joins the registry from its own init (Register) with its
// config struct and builder, and connectors/all imports every such package. The config package validates,
// masks and documents entries from the registered structs without naming a kind; the daemon builds every
// kind that has entries, runs the Sets and mounts the routes of those that serve HTTP. A kind's Build
// goes through Entries, which decodes every entry and checks what all entries share (name, workspace) the
// same way for every kind, and its entries embed Entry (logger, lease, status). Everything a kind may ask
// of the rest of feedbridge, leases included, is the Service interface it gets as Env.Service.
//
// The kit's rules, each checked for every kind by connectortest:
//   - Defaults: an entry decodes onto the value Kind.Config returns, and each key it leaves out takes its
//     field's `default` tag (Decode). A kind never re-applies a default; Entry.Given says which keys an
//     entry gave, for a kind that fills the others from elsewhere (the webhook presets).
//   - Metrics: a kind makes and registers its collectors in one function passed to Metrics, which runs it
//     once per registry however many times the kind is built (the daemon builds each kind 1+N times).
//   - Source labels: records go through core.Service, which stores only labels of the source set; a
//     configured `source` key outside the set is refused when the configuration is checked.
//   - HTTP: a kind that fetches uses HTTPClient (no proxy, same-host https redirects, private addresses
//     refused unless allowed).
//   - Refused items: Entry.Refused (Board.Refused for requests) counts an item the entry will not store
//     and shows the count and the last reason in GET /api/connectors (refused, last_refused,
//     last_refused_at), never in last_error: a refused item is not a fault, and /readyz stays ready.
//   - States: Report and Flush take a State of the kit's vocabulary (States).
//   - Faults: Entry.Fail (Board.Fail) keeps the error value; a suspended workspace is core.ErrWorkspaceNotFound,
//     checked with errors.Is, never by a word of the message.
package connectors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"
)

// Env is what a connector gets from the daemon.
type Env struct {
	// Service is the connector's one door to the rest of feedbridge, leases included (see Service); nil
	// when the configuration is only checked.
	Service Service
	Log     *logrus.Entry
	Metrics prometheus.Registerer
	Holder  string      // this replica's identity for leases
	Lease   LeaseTiming // how exclusive entries hold their lease; zero: ShortLeases
	Now     func() time.Time
	// Faults, when set, is told every fault an entry reports (Entry.Fail) with its error value; the
	// daemon leaves it nil, the conformance suite checks with it how faults are reported.
	Faults func(kind, name string, err error)

	kind string // the kind being built (WithKind): keys its metrics
}

// Builder makes the Set of one kind from its raw config entries. It validates without network calls.
type Builder func(entries []map[string]any, env Env) (Set, error)

// Set runs every entry of one kind until ctx ends, then returns after a clean stop.
type Set interface {
	Run(ctx context.Context) error
}

// Router is the optional ability of a Set that serves HTTP (Slack's endpoints).
type Router interface {
	Routes(mux *http.ServeMux)
}

// Updater is the optional ability of a Router whose entries run apart although they share routes (the
// webhooks): a running Set takes over next, the kind's Set built from a new configuration, in place, so
// that only the entries that were added, changed or removed start or stop, and the others keep running.
// It returns the names of the entries it started and stopped (a changed entry is in both). next is never
// run; Update may be called before Run, and must be safe while the Set serves requests.
type Updater interface {
	Update(ctx context.Context, next Set) (started, stopped []string, err error)
}

// Decode fills out, a pointer to a kind's config struct, from one raw entry: the keys the entry gives are
// decoded, the others keep the value out held, or else the default of their `default` tag (see
// tagDefaults). Unknown keys are an error
// naming them; durations accept Go syntax ("60s"). Secret fields keep their raw value ("file:/path" stays
// as written, read at use by Secret.Value), but each one is read once here so that a missing or unreadable
// secret file is reported when the config is checked, not at the first use.
func Decode(entry map[string]any, out any) error {
	problems, err := decode(entry, out)
	if err != nil {
		return err
	}
	return errors.Join(problems...)
}

// decode is Decode that tells apart an entry it could not decode (err: a value of the wrong type) from
// one it decoded whole but with problems (unknown keys, an unreadable secret file), whose other keys can
// still be checked.
func decode(entry map[string]any, out any) (problems []error, err error) {
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("connectors: decode into %T, want a pointer to a struct", out)
	}
	rv = rv.Elem()
	def := reflect.New(rv.Type()).Elem()
	def.Set(rv)
	if err := tagDefaults(def.Addr()); err != nil {
		return nil, err
	}
	rv.SetZero()
	defer keepDefaults(rv, def, givenKeys(entry, "", nil), "")
	var md mapstructure.Metadata
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		Result:           out,
		TagName:          "koanf",
		Metadata:         &md,
		WeaklyTypedInput: true,
		DecodeHook:       mapstructure.ComposeDecodeHookFunc(mapstructure.StringToTimeDurationHookFunc(), mapstructure.StringToSliceHookFunc(",")),
	})
	if err != nil {
		return nil, err
	}
	if err := dec.Decode(entry); err != nil {
		return nil, err
	}
	if len(md.Unused) > 0 {
		sort.Strings(md.Unused)
		problems = append(problems, fmt.Errorf("unknown keys: %s", strings.Join(md.Unused, ", ")))
	}
	if err := checkSecrets(reflect.ValueOf(out), ""); err != nil {
		problems = append(problems, err)
	}
	return problems, nil
}

// checkSecrets reads every Secret of a decoded entry once, naming the key of the first that fails.
func checkSecrets(v reflect.Value, prefix string) error {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	switch {
	case v.Type() == secretType:
		if _, err := v.Interface().(Secret).Value(); err != nil {
			return fmt.Errorf("%s: %w", prefix, err)
		}
	case v.Kind() == reflect.Map && v.Type().Elem() == secretType:
		for _, k := range v.MapKeys() {
			if _, err := v.MapIndex(k).Interface().(Secret).Value(); err != nil {
				return fmt.Errorf("%s: %w", joinKey(prefix, fmt.Sprint(k.Interface())), err)
			}
		}
	case isSection(v.Type()):
		t := v.Type()
		for i := range t.NumField() {
			key := t.Field(i).Tag.Get("koanf")
			if key == "" || !t.Field(i).IsExported() {
				continue
			}
			if err := checkSecrets(v.Field(i), joinKey(prefix, key)); err != nil {
				return err
			}
		}
	}
	return nil
}

// EntryName reads the "name" of a raw entry for error messages before it is decoded.
func EntryName(entry map[string]any, i int) string {
	if n, ok := entry["name"].(string); ok && n != "" {
		return n
	}
	return fmt.Sprintf("#%d", i+1)
}

// WithDefaults fills what a test or `config check` may leave out: the clock, a silent logger and this
// process as the lease holder. Every kind's Build calls it, so the entries
// of all kinds start from the same environment.
func (e Env) WithDefaults() Env {
	if e.Now == nil {
		e.Now = time.Now
	}
	if e.Log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		e.Log = logrus.NewEntry(l)
	}
	if e.Holder == "" {
		host, _ := os.Hostname()
		e.Holder = host + "-" + strconv.Itoa(os.Getpid())
	}
	return e
}

// WithKind returns a copy of env whose logger names the connector kind.
func (e Env) WithKind(kind string) Env {
	e.kind = kind
	if e.Log != nil {
		e.Log = e.Log.WithField("connector_kind", kind)
	}
	return e
}
