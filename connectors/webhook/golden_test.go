package webhook

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const testWS = "65f1a2b3c4d5e6f708192a3b"

// goldenEntries are the entries each payload of testdata/presets is read with: the three presets as they
// are, and a generic mapping over a batch such as a Zapier step sends.
var goldenEntries = map[string]map[string]any{
	"zendesk":  {"preset": "zendesk"},
	"intercom": {"preset": "intercom"},
	"typeform": {"preset": "typeform"},
	"generic-batch": {"mapping": map[string]any{"each": "items", "title": "summary", "description": "body",
		"customer_email": "contact.email", "customer_name": "contact.name", "source": "channel",
		"created_at": "$.sent_at", "external_id": "ref", "tags": "labels"}},
}

// goldenRecord is what the golden files show of a record read from a payload.
type goldenRecord struct {
	Title         string   `json:"title"`
	Description   string   `json:"description"`
	PlainText     bool     `json:"plain_text"`
	CustomerEmail string   `json:"customer_email"`
	CustomerName  string   `json:"customer_name"`
	Source        string   `json:"source"`
	DefaultSource string   `json:"default_source"`
	CreatedAt     string   `json:"created_at"`
	DedupKey      string   `json:"dedup_key"`
	Tags          []string `json:"tags"`
}

func testEntry(t testing.TB, name string, extra map[string]any) *entrySpec {
	t.Helper()
	raw := map[string]any{"name": name, "workspace": testWS, "secret": "s3cret"}
	for k, v := range extra {
		raw[k] = v
	}
	var c Config
	given, err := decodeEntry(raw, &c)
	if err != nil {
		t.Fatal(err)
	}
	e, err := parseConfig(c, given)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestPresetGolden(t *testing.T) {
	for name, extra := range goldenEntries {
		t.Run(name, func(t *testing.T) {
			payload, err := os.ReadFile(filepath.Join("testdata", "presets", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			recs, err := testEntry(t, name, extra).extract(payload)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]goldenRecord, len(recs))
			for i, r := range recs {
				s := r.sub
				g := goldenRecord{Title: s.Title, Description: s.Description, PlainText: s.PlainText,
					CustomerEmail: s.CustomerEmail, CustomerName: s.CustomerName, Source: s.Source,
					DefaultSource: s.DefaultSource, DedupKey: s.DedupKey, Tags: r.tags}
				if !s.CreatedAt.IsZero() {
					g.CreatedAt = s.CreatedAt.Format(time.RFC3339)
				}
				if g.Tags == nil {
					g.Tags = []string{}
				}
				got[i] = g
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(got); err != nil {
				t.Fatal(err)
			}
			b := buf.Bytes()
			golden := filepath.Join("testdata", "presets", name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestPresetGolden -update)", err)
			}
			if !bytes.Equal(b, want) {
				t.Fatalf("records differ from %s:\n%s", golden, b)
			}
			if strings.Contains(string(b), "s3cret") {
				t.Fatal("a secret reached a record")
			}
		})
	}
}
