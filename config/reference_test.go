package config

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"go.yaml.in/yaml/v3"
)

// repoRoot is the module root seen from this package's directory, where go test runs.
const repoRoot = ".."

func TestReferenceUpToDate(t *testing.T) {
	committed, err := os.ReadFile(filepath.Join(repoRoot, ReferencePath))
	if err != nil {
		t.Fatalf("%v (generate it: go run ./config/gen)", err)
	}
	if !bytes.Equal(committed, Reference()) {
		t.Fatalf("%s is stale: run `go run ./config/gen` and commit the result", ReferencePath)
	}
}

func TestEveryKeyDocumented(t *testing.T) {
	docs := keyDocs()
	for _, l := range leaves(reflect.TypeFor[Config](), "", nil) {
		if docs[l.Path] == "" {
			t.Errorf("key %s has no description in keyDocs", l.Path)
		}
		delete(docs, l.Path)
	}
	for key := range docs {
		t.Errorf("keyDocs describes %s, which is not a key", key)
	}
}

const examplePath = "deploy/feedbridge.example.yaml"

func TestExampleConfigLoadsAndValidates(t *testing.T) {
	c, err := load(filepath.Join(repoRoot, examplePath), nil, func() []string { return nil })
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if errs := c.Validate(); len(errs) > 0 {
		t.Fatalf("validate: %v", errs)
	}
	if len(c.Connectors.Slack) == 0 || len(c.Connectors.Email) == 0 || len(c.Connectors.CSV) == 0 {
		t.Fatal("the example should show an entry of every connector kind")
	}
}

// TestExampleConfigShowsEveryKey keeps the example complete: every key of Config and every documented
// key of each connector kind appears in it.
func TestExampleConfigShowsEveryKey(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, examplePath))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := yaml.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	present := map[string]bool{}
	collect(raw, "", present)
	var missing []string
	for _, l := range leaves(reflect.TypeFor[Config](), "", nil) {
		if !present[l.Path] {
			missing = append(missing, l.Path)
		}
	}
	conns, _ := raw["connectors"].(map[string]any)
	for _, c := range connectorDocs() {
		seen := map[string]bool{}
		entries, _ := conns[c.Kind].([]any)
		for _, e := range entries {
			m, _ := e.(map[string]any)
			for k := range m {
				seen[k] = true
			}
		}
		for _, k := range c.Keys {
			if !seen[k.Key] {
				missing = append(missing, "connectors."+c.Kind+"[]."+k.Key)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("%s lacks keys: %v", examplePath, missing)
	}
}

// collect records every dotted path of m, sections and leaves alike.
func collect(m map[string]any, prefix string, into map[string]bool) {
	for k, v := range m {
		p := join(prefix, k)
		into[p] = true
		if sub, ok := v.(map[string]any); ok {
			collect(sub, p, into)
		}
	}
}
