package connectors

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/testkit"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

type kitConfig struct {
	Name      string `koanf:"name"`
	Workspace string `koanf:"workspace"`
	Token     Secret `koanf:"token"`
	Every     int    `koanf:"every"`
}

type kitEntry struct {
	Entry
	every int
}

// parseKit refuses a negative every with two problems at once, as a kind's own checks may.
func parseKit(en Entry, c *kitConfig) (*kitEntry, error) {
	if c.Every < 0 {
		return nil, errors.Join(errors.New("every: must not be negative"), errors.New("every: try 1"))
	}
	return &kitEntry{Entry: en, every: c.Every}, nil
}

const kitWS = "65f1a2b3c4d5e6f708192a3b"

func TestEntriesChecksEveryEntryTheSameWay(t *testing.T) {
	raw := []map[string]any{
		{"name": "a", "workspace": kitWS, "every": 2},
		{"name": "a", "workspace": kitWS},
		{"workspace": "Acme", "colour": "red", "every": -1},
		{"name": "d", "workspace": kitWS, "every": "often"},
		{"name": "e", "workspace": kitWS, "token": "file:" + filepath.Join(t.TempDir(), "missing")},
		{"name": "f", "workspace": kitWS, "every": 3},
	}
	parsed := 0
	out, err := Entries("probe_kit", raw, Env{}, func(en Entry, c *kitConfig) (*kitEntry, error) {
		parsed++
		return parseKit(en, c)
	})
	if err == nil {
		t.Fatal("no error")
	}
	var lines []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		lines = append(lines, e.Error())
	}
	want := []string{
		"a: name: is used by another entry",
		"#3: unknown keys: colour",
		"#3: name: is required",
		"#3: workspace: must be a workspace id (24 lowercase hex characters)",
		"#3: every: must not be negative",
		"#3: every: try 1",
		"d: ",
		"e: token: secret: ",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d problems, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("problem %d = %q, want it to start with %q", i, lines[i], w)
		}
	}
	// An entry that cannot be decoded is not checked further; the others all are.
	if parsed != len(raw)-1 {
		t.Errorf("parse ran %d times, want %d", parsed, len(raw)-1)
	}
	// The entries without a problem come back for checks across entries.
	if len(out) != 2 || out[0].Name != "a" || out[0].every != 2 || out[1].Name != "f" {
		t.Fatalf("entries %+v", out)
	}
}

func TestEntryIdentity(t *testing.T) {
	logs := &testkit.Buffer{}
	l := logrus.New()
	l.SetOutput(logs)
	out, err := Entries("probe_kit", []map[string]any{{"name": "inbox", "workspace": kitWS}}, Env{Log: logrus.NewEntry(l)}, parseKit)
	if err != nil || len(out) != 1 {
		t.Fatalf("%d entries, %v", len(out), err)
	}
	en := out[0]
	if en.Kind != "probe_kit" || en.Name != "inbox" || en.Workspace != core.ID(kitWS) || en.Lease() != "probe_kit:inbox" {
		t.Errorf("entry %+v, lease %q", en.Entry, en.Lease())
	}
	en.Log.Info("hello")
	for _, field := range []string{"connector_kind=probe_kit", "connector=inbox", "workspace=" + kitWS} {
		if !strings.Contains(logs.String(), field) {
			t.Errorf("log line %q lacks %s", logs.String(), field)
		}
	}
}

func TestEntryReport(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "kit.db"))
	if err != nil {
		t.Fatal(err)
	}
	svc := core.NewService(st, core.Options{})
	defer st.Close()
	ws, err := svc.CreateWorkspace(ctx, "Acme", core.PlanPro, -1)
	en, err2 := NewEntry("probe_kit", &kitConfig{Name: "inbox", Workspace: string(ws.ID)}, Env{Service: svc})
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	status := func() core.ConnectorStatus {
		t.Helper()
		sts, err := svc.Connectors(ctx, ws.ID)
		if err != nil || len(sts) != 1 {
			t.Fatalf("statuses %+v, %v", sts, err)
		}
		return sts[0]
	}
	en.Fail(errors.New("mailbox unreachable"))
	en.Report(ctx, StateError)
	if s := status(); s.Kind != "probe_kit" || s.Name != "inbox" || s.State != "error" || s.LastError != "mailbox unreachable" || !s.LastSuccessAt.IsZero() {
		t.Errorf("after a failure: %+v", s)
	}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	en.Succeeded(at)
	en.Report(ctx, StateRunning)
	if s := status(); s.State != "running" || s.LastError != "" || !s.LastSuccessAt.Equal(at) || !en.LastSuccess().Equal(at) {
		t.Errorf("after a success: %+v", s)
	}
	// Without a service (config check) there is nothing to write to, and nothing fails.
	offline, _ := NewEntry("probe_kit", &kitConfig{Name: "inbox", Workspace: string(ws.ID)}, Env{})
	offline.Report(ctx, StateRunning)
}

func TestBackoff(t *testing.T) {
	b := Backoff{Min: time.Second, Max: 5 * time.Minute}
	for failures, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 5: 16 * time.Second, 20: 5 * time.Minute} {
		for range 20 {
			if d := b.Delay(failures); d < want/2 || d > want {
				t.Fatalf("Delay(%d) = %v, want within [%v, %v]", failures, d, want/2, want)
			}
		}
	}
}
