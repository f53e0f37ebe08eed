// Package connectortest is the conformance suite every connector kind passes, as store/storetest is for
// the stores: its config struct is a complete spec (each key described, its defaults those of its tags,
// unknown keys refused by config loading, secrets masked by `config show` and reported when their file
// is missing), it builds twice against one real metrics registry as the daemon does, and the kind runs
// against a real SQLite store, shows its entries in GET /api/connectors in the kit's state vocabulary and
// stops promptly when asked.
// Fed from outside as its senders would (see Feed), it stores each item once with its source label and
// company, shows an error for bad input and loses nothing, refuses a suspended workspace (a kind that
// fetches reports it as core.ErrWorkspaceNotFound, checked with errors.Is), and stores each
// item exactly once when its process is killed with SIGKILL part-way. Each kind's package calls Run from a
// top-level test with a valid entry of its own.
package connectortest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"
	"go.yaml.in/yaml/v3"

	"github.com/feedbridge/feedbridge/config"
	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/testkit"
)

// Case describes one kind to the suite.
type Case struct {
	Kind string
	// Entry returns a valid entry of the kind for workspace ws; dir is a scratch directory for its files.
	// It must be runnable without any outside service, or fail only in a way the kind reports and retries.
	Entry func(t testing.TB, ws core.ID, dir string) map[string]any
	// StopWithin bounds how long Run may take to return once its context ends; 0 means 10 seconds.
	StopWithin time.Duration
	// Feed returns an entry for workspace ws whose input the suite can send as an outsider would; dir is
	// a scratch directory for its files. Every kind that takes input from outside has one; without it the
	// suite checks only the config and the run.
	Feed func(t testing.TB, ws core.ID, dir string) Feed
}

// Run runs the whole suite for c. It must be called from a top-level test: the kill -9 trial runs that
// test again in child processes, where Run runs the entry instead of the suite.
func Run(t *testing.T, c Case) {
	if spec, child := testkit.ChildSpec(killChildEnv); child {
		runChild(t, spec)
		return
	}
	kind, ok := connectors.Lookup(c.Kind)
	if !ok {
		t.Fatalf("kind %q is not registered", c.Kind)
	}
	t.Run("spec", func(t *testing.T) { testSpec(t, kind) })
	t.Run("config round trip", func(t *testing.T) { testConfig(t, c) })
	t.Run("secrets", func(t *testing.T) { testSecrets(t, c, kind) })
	t.Run("runs, reports and stops", func(t *testing.T) { testRun(t, c) })
	if c.Feed == nil {
		return
	}
	// Each of these runs its own store and entry, and mostly waits for the kind: in parallel they take
	// as long as the slowest.
	test := t.Name()
	for _, sub := range []struct {
		name string
		fn   func(*testing.T, Case)
	}{
		{"stores once with source and company", testDelivery},
		{"bad input shows an error and loses nothing", testBad},
		{"suspended workspace refused", testSuspended},
		{"exactly once under kill -9", func(t *testing.T, c Case) { testKill(t, c, test) }},
	} {
		t.Run(sub.name, func(t *testing.T) {
			t.Parallel()
			sub.fn(t, c)
		})
	}
}

func testSpec(t *testing.T, k connectors.Kind) {
	var walk func(prefix string, fs []connectors.Field)
	walk = func(prefix string, fs []connectors.Field) {
		for _, f := range fs {
			if strings.TrimSpace(f.Description) == "" && f.Fields == nil {
				t.Errorf("%s: key %s%s has no doc tag", k.Name, prefix, f.Key)
			}
			walk(prefix+f.Key+".", f.Fields)
		}
	}
	walk("", k.Spec())
	if err := CheckDefaults(k); err != nil {
		t.Error(err)
	}
	// The generated configuration reference documents the kind from the same spec.
	if ref := string(config.Reference()); !strings.Contains(ref, "## connectors."+k.Name+" entries") {
		t.Errorf("the configuration reference has no section for %s", k.Name)
	}
	if strings.TrimSpace(k.Summary) == "" {
		t.Errorf("%s: no Summary", k.Name)
	}
}

const testWorkspace = "65f1a2b3c4d5e6f708192a3b"

// load writes a config file holding the entry and loads it as `feedbridge serve` would.
func load(t *testing.T, kind string, entry map[string]any) (*config.Config, error) {
	t.Helper()
	dir := t.TempDir()
	doc := map[string]any{"store": map[string]any{"url": "sqlite://" + filepath.Join(dir, "fb.db")},
		"connectors": map[string]any{kind: []any{entry}}}
	b, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return config.Load(p, nil)
}

func testConfig(t *testing.T, c Case) {
	entry := c.Entry(t, testWorkspace, t.TempDir())
	cfg, err := load(t, c.Kind, entry)
	if err != nil {
		t.Fatalf("a valid entry does not load: %v", err)
	}
	if errs := cfg.Validate(); len(errs) > 0 {
		t.Fatalf("validate: %v", errs)
	}
	if errs := connectors.ValidateAll(cfg.Connectors); len(errs) > 0 {
		t.Fatalf("the kind refuses its valid entry: %v", errs)
	}
	entry["no_such_key"] = "x"
	_, err = load(t, c.Kind, entry)
	want := fmt.Sprintf(`"connectors.%s[0].no_such_key"`, c.Kind)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("an unknown key is not refused by name (want %s): %v", want, err)
	}
}

// testSecrets fills every top-level secret key with a marker: `config show` must mask each, and each must
// be readable from a file: path, reported by name (never by content) when that file is missing or blank.
func testSecrets(t *testing.T, c Case, k connectors.Kind) {
	var keys []string
	for _, f := range k.Spec() {
		if f.Secret && f.Type == "secret" {
			keys = append(keys, f.Key)
		}
	}
	if len(keys) == 0 {
		t.Skipf("%s has no secret keys", c.Kind)
	}
	dir := t.TempDir()
	entry := c.Entry(t, testWorkspace, dir)
	for _, key := range keys {
		entry[key] = "MARKER-" + key
	}
	cfg, err := load(t, c.Kind, entry)
	if err != nil {
		t.Fatal(err)
	}
	shown, _ := json.Marshal(cfg.Redacted())
	for _, key := range keys {
		if strings.Contains(string(shown), "MARKER-"+key) {
			t.Errorf("config show prints %s: %s", key, shown)
		}
	}
	for _, key := range keys {
		p := filepath.Join(dir, key)
		if err := os.WriteFile(p, []byte("FILECONTENT-"+key+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		entry[key] = "file:" + p
	}
	cfg, err = load(t, c.Kind, entry)
	if err != nil {
		t.Fatal(err)
	}
	if errs := connectors.ValidateAll(cfg.Connectors); len(errs) > 0 {
		t.Fatalf("file: secrets refused: %v", errs)
	}
	for _, key := range keys {
		missing := c.Entry(t, testWorkspace, dir)
		for _, k2 := range keys {
			missing[k2] = entry[k2]
		}
		missing[key] = "file:" + filepath.Join(dir, "missing-"+key)
		cfg, err := load(t, c.Kind, missing)
		if err != nil {
			t.Fatal(err)
		}
		errs := connectors.ValidateAll(cfg.Connectors)
		if len(errs) == 0 || !strings.Contains(fmt.Sprint(errs), key) || strings.Contains(fmt.Sprint(errs), "FILECONTENT") {
			t.Errorf("a missing secret file for %s is not reported by its key: %v", key, errs)
		}
		// A secret given but blank (an empty file) would let anyone sign with an empty key: refused too.
		blank := filepath.Join(dir, "blank-"+key)
		if err := os.WriteFile(blank, []byte(" \n"), 0o600); err != nil {
			t.Fatal(err)
		}
		missing[key] = "file:" + blank
		if cfg, err = load(t, c.Kind, missing); err != nil {
			t.Fatal(err)
		}
		errs = connectors.ValidateAll(cfg.Connectors)
		if len(errs) == 0 || !strings.Contains(fmt.Sprint(errs), key) || !strings.Contains(fmt.Sprint(errs), "empty") {
			t.Errorf("a blank secret file for %s is not refused by its key: %v", key, errs)
		}
	}
}

func testRun(t *testing.T, c Case) {
	ctx := context.Background()
	live := openWorkspace(t, filepath.Join(t.TempDir(), "fb.db"), core.Options{})
	svc, ws := live.Service, live.Workspace
	entry := c.Entry(t, ws, t.TempDir())
	logs := &testkit.Buffer{}
	l := logrus.New()
	l.SetOutput(io.MultiWriter(logs))
	env := connectors.Env{Service: svc, Log: logrus.NewEntry(l), Holder: "conformance", Now: time.Now}
	if err := CheckBuildsTwice(c.Kind, entry, env); err != nil {
		t.Fatal(err)
	}
	// As the daemon does: one build checks the configuration, the next runs, both on one registry.
	env.Metrics = prometheus.NewRegistry()
	if _, err := connectors.BuildAll(map[string][]map[string]any{c.Kind: {entry}}, env); err != nil {
		t.Fatalf("first build: %v", err)
	}
	sets, err := connectors.BuildAll(map[string][]map[string]any{c.Kind: {entry}}, env)
	if err != nil || len(sets) != 1 {
		t.Fatalf("build: %d sets, %v", len(sets), err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- sets[0].Run(runCtx) }()

	name, _ := entry["name"].(string)
	deadline := time.Now().Add(15 * time.Second)
	for {
		sts, err := svc.Connectors(ctx, ws)
		if err != nil {
			t.Fatal(err)
		}
		var found *core.ConnectorStatus
		for i := range sts {
			if sts[i].Name == name {
				found = &sts[i]
			}
		}
		if found != nil {
			if found.Kind != c.Kind {
				t.Errorf("status %+v: want kind %s", *found, c.Kind)
			}
			if err := CheckState(*found); err != nil {
				t.Error(err)
			}
			break
		}
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("entry %q never appeared in GET /api/connectors", name)
		}
		time.Sleep(50 * time.Millisecond)
	}

	within := c.StopWithin
	if within == 0 {
		within = 10 * time.Second
	}
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run returned %v after a clean stop", err)
		}
	case <-time.After(within):
		t.Fatalf("Run did not return within %s of its context ending", within)
	}
	// One log vocabulary: every line a connector writes names its kind.
	for line := range strings.SplitSeq(strings.TrimSpace(logs.String()), "\n") {
		if line != "" && !strings.Contains(line, "connector_kind="+c.Kind) {
			t.Errorf("a log line does not name connector_kind=%s: %s", c.Kind, line)
		}
	}
}
