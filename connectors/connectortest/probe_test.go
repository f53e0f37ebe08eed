package connectortest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// probeConfig and probeSet are a whole connector kind defined in this test file alone: registering it is
// all it takes for the config package to load, validate, mask and document its entries and for the
// daemon's BuildAll to run it. No other package names it.
type probeConfig struct {
	Name      string            `koanf:"name" doc:"Entry name."`
	Workspace string            `koanf:"workspace" doc:"Workspace id."`
	Token     connectors.Secret `koanf:"token" doc:"A credential for the outside service."`
	Every     time.Duration     `koanf:"every" default:"1m" doc:"How often to look."`
}

type probeSet struct {
	svc     *core.Service
	env     connectors.Env
	entries []probeConfig
}

func buildProbe(raw []map[string]any, env connectors.Env) (connectors.Set, error) {
	s := &probeSet{svc: env.Service, env: env}
	var errs []error
	for i, r := range raw {
		var c probeConfig
		if err := connectors.Decode(r, &c); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", connectors.EntryName(r, i), err))
			continue
		}
		if !core.ValidID(c.Workspace) {
			errs = append(errs, fmt.Errorf("%s: workspace: must be a workspace id", c.Name))
		}
		s.entries = append(s.entries, c)
	}
	return s, errors.Join(errs...)
}

func (s *probeSet) Run(ctx context.Context) error {
	for _, e := range s.entries {
		if _, err := e.Token.Value(); err != nil {
			return err
		}
		s.env.Log.WithField("connector", e.Name).Info("probe: running")
		if err := s.svc.ReportConnector(ctx, core.ConnectorStatus{Workspace: core.ID(e.Workspace), Name: e.Name,
			Kind: "probe", State: "running"}); err != nil {
			return err
		}
	}
	<-ctx.Done()
	return nil
}

func init() {
	connectors.Register(connectors.Kind{Name: "probe", Summary: "A kind that lives in a test file.",
		Config: func() any { return &probeConfig{} }, Build: buildProbe})
}

// TestKindDefinedInATestFile runs the whole suite on the probe kind, and the log line check needs the
// logger the daemon gives (BuildAll adds connector_kind).
func TestKindDefinedInATestFile(t *testing.T) {
	Run(t, Case{Kind: "probe", Entry: func(t testing.TB, ws core.ID, dir string) map[string]any {
		return map[string]any{"name": "probe-1", "workspace": string(ws), "token": "t0ken", "every": "30s"}
	}})
}
