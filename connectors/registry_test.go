package connectors

import (
	"context"
	"strings"
	"testing"
)

type nopSet struct{}

func (nopSet) Run(ctx context.Context) error { <-ctx.Done(); return nil }

type probeConfig struct {
	Name    string            `koanf:"name" doc:"The name."`
	Token   Secret            `koanf:"token" doc:"A token."`
	Every   int               `koanf:"every" doc:"How often."`
	Headers map[string]Secret `koanf:"headers"`
	Inner   struct {
		Key Secret `koanf:"key"`
		ID  string `koanf:"id"`
	} `koanf:"inner"`
}

func probeKind(name string) Kind {
	return Kind{Name: name, Config: func() any { return &probeConfig{Every: 5} },
		Build: func([]map[string]any, Env) (Set, error) { return nopSet{}, nil }}
}

func TestRegisterPanicsOnWiringMistakes(t *testing.T) {
	Register(probeKind("probe_registry"))
	if _, ok := Lookup("probe_registry"); !ok {
		t.Fatal("registered kind not found")
	}
	tests := []struct {
		name string
		kind Kind
		want string
	}{
		{"empty name", probeKind(""), "bad kind name"},
		{"capitals", probeKind("Probe"), "bad kind name"},
		{"duplicate", probeKind("probe_registry"), "registered twice"},
		{"no build", Kind{Name: "probe_nobuild", Config: func() any { return &probeConfig{} }}, "needs Config and Build"},
		{"config not a struct pointer", Kind{Name: "probe_bad", Config: func() any { return probeConfig{} },
			Build: probeKind("x").Build}, "pointer to a struct"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(r.(string), tc.want) {
					t.Fatalf("recovered %v, want a panic with %q", r, tc.want)
				}
			}()
			Register(tc.kind)
		})
	}
}

func TestSpecFromConfigStruct(t *testing.T) {
	fields := probeKind("probe_spec").Spec()
	byKey := map[string]Field{}
	for _, f := range fields {
		byKey[f.Key] = f
	}
	if f := byKey["token"]; !f.Secret || f.Type != "secret" || f.Description != "A token." {
		t.Errorf("token: %+v", f)
	}
	if f := byKey["every"]; f.Secret || f.Type != "integer" || f.Default != "5" {
		t.Errorf("every: %+v", f)
	}
	if f := byKey["headers"]; !f.Secret || f.Type != "map of secrets" {
		t.Errorf("headers: %+v", f)
	}
	if f := byKey["inner"]; len(f.Fields) != 2 || !f.Fields[0].Secret || f.Fields[1].Secret {
		t.Errorf("inner: %+v", f)
	}

	entry := map[string]any{"name": "n", "token": "T0K", "tokn": "typo",
		"headers": map[string]any{"X-A": "HDR"}, "inner": map[string]any{"key": "K3Y", "id": "i", "extra": 1}}
	unknown := UnknownKeys(fields, entry, "connectors.probe[0]")
	if strings.Join(unknown, " ") != "connectors.probe[0].inner.extra connectors.probe[0].tokn" {
		t.Errorf("unknown keys = %v", unknown)
	}
	masked := Mask(fields, entry, "***", strings.ToUpper)
	if masked["token"] != "***" || masked["tokn"] != "***" || masked["name"] != "N" ||
		masked["headers"].(map[string]any)["X-A"] != "***" || masked["inner"].(map[string]any)["key"] != "***" ||
		masked["inner"].(map[string]any)["id"] != "I" {
		t.Errorf("masked = %v", masked)
	}
	if entry["token"] != "T0K" {
		t.Error("Mask changed the entry")
	}
}

func TestBuildAllNamesUnknownKinds(t *testing.T) {
	Register(probeKind("probe_build"))
	sets, err := BuildAll(map[string][]map[string]any{"probe_build": {{"name": "a"}}, "nosuch": {{"name": "b"}}, "empty": nil}, Env{})
	if len(sets) != 1 || err == nil || !strings.Contains(err.Error(), "connectors.nosuch: unknown connector kind") {
		t.Fatalf("sets %d, err %v", len(sets), err)
	}
}
