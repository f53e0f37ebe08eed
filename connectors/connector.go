// Package connectors is the contract between the daemon and the integrations that turn outside input into
// records. Each kind (slack, email, csv) lives in its own package, owns its config section and builds a Set
// from its entries; the daemon runs every Set and mounts the routes of those that serve HTTP.
package connectors

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/config"
	"github.com/feedbridge/feedbridge/core"
)

// Env is what a connector gets from the daemon.
type Env struct {
	Service *core.Service
	Log     *logrus.Entry
	Metrics prometheus.Registerer
	Leases  core.Leases
	Holder  string      // this replica's identity for leases
	Lease   LeaseTiming // how exclusive entries hold their lease; zero: ShortLeases
	Now     func() time.Time
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

// Decode fills out from one config entry. Unknown keys are an error naming them; "file:" values of secret
// keys are read from their files; durations accept Go syntax ("60s").
func Decode(entry map[string]any, out any) error {
	resolved, err := resolveSecrets(entry, "")
	if err != nil {
		return err
	}
	var md mapstructure.Metadata
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		Result:           out,
		TagName:          "koanf",
		Metadata:         &md,
		WeaklyTypedInput: true,
		DecodeHook:       mapstructure.ComposeDecodeHookFunc(mapstructure.StringToTimeDurationHookFunc(), mapstructure.StringToSliceHookFunc(",")),
	})
	if err != nil {
		return err
	}
	if err := dec.Decode(resolved); err != nil {
		return err
	}
	if len(md.Unused) > 0 {
		sort.Strings(md.Unused)
		return fmt.Errorf("unknown keys: %s", strings.Join(md.Unused, ", "))
	}
	return nil
}

// resolveSecrets copies an entry, reading "file:" values of secret keys at any depth (oauth2.client_secret,
// headers.Authorization).
func resolveSecrets(m map[string]any, prefix string) (map[string]any, error) {
	out := make(map[string]any, len(m))
	for k, v := range m {
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		switch x := v.(type) {
		case string:
			if config.IsSecretKey(path) {
				secret, err := config.ResolveSecret(x)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", path, err)
				}
				v = secret
			}
		case map[string]any:
			inner, err := resolveSecrets(x, path)
			if err != nil {
				return nil, err
			}
			v = inner
		}
		out[k] = v
	}
	return out, nil
}

// EntryName reads the "name" of a raw entry for error messages before it is decoded.
func EntryName(entry map[string]any, i int) string {
	if n, ok := entry["name"].(string); ok && n != "" {
		return n
	}
	return fmt.Sprintf("#%d", i+1)
}

// WithKind returns a copy of env whose logger names the connector kind.
func (e Env) WithKind(kind string) Env {
	if e.Log != nil {
		e.Log = e.Log.WithField("connector_kind", kind)
	}
	return e
}
