package config

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/feedbridge/feedbridge/connectors"
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
	if len(c.Connectors["slack"]) == 0 || len(c.Connectors["email"]) == 0 || len(c.Connectors["csv"]) == 0 ||
		len(c.Connectors["webhook"]) == 0 {
		t.Fatal("the example should show an entry of the slack, email, csv and webhook kinds")
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
	// Every key of each kind the example shows an entry of appears in one of its entries, so the example
	// teaches every key of the kinds it covers.
	conns, _ := raw["connectors"].(map[string]any)
	for kindName, v := range conns {
		kind, ok := connectors.Lookup(kindName)
		if !ok {
			missing = append(missing, "(unknown kind) connectors."+kindName)
			continue
		}
		seen := map[string]bool{}
		entries, _ := v.([]any)
		for _, e := range entries {
			m, _ := e.(map[string]any)
			for k := range m {
				seen[k] = true
			}
		}
		for _, f := range kind.Spec() {
			if !seen[f.Key] {
				missing = append(missing, "connectors."+kindName+"[]."+f.Key)
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
