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
	Holder  string // this replica's identity for leases
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
	resolved := make(map[string]any, len(entry))
	for k, v := range entry {
		if s, ok := v.(string); ok && config.IsSecretKey(k) {
			secret, err := config.ResolveSecret(s)
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			v = secret
		}
		resolved[k] = v
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

// EntryName reads the "name" of a raw entry for error messages before it is decoded.
func EntryName(entry map[string]any, i int) string {
	if n, ok := entry["name"].(string); ok && n != "" {
		return n
	}
	return fmt.Sprintf("#%d", i+1)
}
