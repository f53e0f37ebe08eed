package all

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/feedbridge/feedbridge/connectors"
)

// The lists of kinds written outside the code must name exactly the registered kinds: a kind added
// without its page, or a list that forgot one, fails here rather than going stale.

func readRepo(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", path))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOpenAPIKindEnum: the committed OpenAPI document's Connector.kind enum is the registry's, and its
// Connector.state enum the kit's state vocabulary.
func TestOpenAPIKindEnum(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal([]byte(readRepo(t, "api/openapi.json")), &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Components.Schemas["Connector"].Properties["kind"].Enum
	if want := connectors.Names(); !slices.Equal(got, want) {
		t.Errorf("api/openapi.json Connector.kind enum %v, the registry has %v", got, want)
	}
	var states []string
	for _, s := range connectors.States {
		states = append(states, string(s))
	}
	if got := doc.Components.Schemas["Connector"].Properties["state"].Enum; !slices.Equal(got, states) {
		t.Errorf("api/openapi.json Connector.state enum %v, the kit's states are %v", got, states)
	}
}

// TestConfigurationSnippetKinds: the `connectors:` block of docs/configuration.md names every kind.
func TestConfigurationSnippetKinds(t *testing.T) {
	text := readRepo(t, "docs/configuration.md")
	var got []string
	in := false
	for line := range strings.SplitSeq(text, "\n") {
		switch {
		case strings.HasPrefix(line, "connectors:"):
			in = true
		case in && (strings.HasPrefix(line, "```") || !strings.HasPrefix(line, "  ")):
			in = false
		case in:
			key, _, _ := strings.Cut(strings.TrimSpace(line), ":")
			got = append(got, key)
		}
	}
	slices.Sort(got)
	if want := connectors.Names(); !slices.Equal(got, want) {
		t.Errorf("docs/configuration.md lists kinds %v, the registry has %v", got, want)
	}
}

// TestEveryKindHasItsPage: each kind has docs/connectors/<kind>.md, linked from the README, and no page
// describes a kind that is not registered.
func TestEveryKindHasItsPage(t *testing.T) {
	readme := readRepo(t, "README.md")
	for _, k := range connectors.Names() {
		page := "docs/connectors/" + k + ".md"
		if _, err := os.Stat(filepath.Join("..", "..", page)); err != nil {
			t.Errorf("kind %s has no page %s", k, page)
		}
		if !strings.Contains(readme, "("+page+")") {
			t.Errorf("the README does not link %s", page)
		}
	}
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "connectors", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		name := strings.TrimSuffix(filepath.Base(p), ".md")
		if _, ok := connectors.Lookup(name); !ok && name != "writing" {
			t.Errorf("docs/connectors/%s.md describes no registered kind", name)
		}
	}
}

// TestExampleConfigKinds: the annotated example configuration has a section for every kind.
func TestExampleConfigKinds(t *testing.T) {
	var doc struct {
		Connectors map[string]any `yaml:"connectors"`
	}
	if err := yaml.Unmarshal([]byte(readRepo(t, "deploy/feedbridge.example.yaml")), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for k := range doc.Connectors {
		got = append(got, k)
	}
	slices.Sort(got)
	if want := connectors.Names(); !slices.Equal(got, want) {
		t.Errorf("deploy/feedbridge.example.yaml has connectors %v, the registry has %v", got, want)
	}
}
