package config

import (
	"strings"
	"testing"
)

// TestSourcesValidated: sources.add extends the labels a connector entry may give as its source; a label
// outside the set is a problem naming the entry. Before the fix a webhook entry with source "RSS Reader"
// passed and its records carried a label outside the published set.
func TestSourcesValidated(t *testing.T) {
	tests := []struct {
		name    string
		add     []string
		source  any
		wantErr string
	}{
		{"canonical", nil, "Zendesk", ""},
		{"synonym", nil, "e-mail", ""},
		{"unset", nil, nil, ""},
		{"unknown", nil, "RSS Reader", `connectors.webhook[0].source: "RSS Reader" is not a source label`},
		{"added", []string{"RSS Reader"}, "rss-reader", ""},
		{"blank addition", []string{" "}, nil, "sources.add: a source label must not be blank"},
		{"addition already in the set", []string{"Mail"}, nil, `sources.add: source label "Mail" is already in the set as "Email"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			c.Sources.Add = tc.add
			entry := map[string]any{"name": "crm"}
			if tc.source != nil {
				entry["source"] = tc.source
			}
			c.Connectors = Connectors{"webhook": {entry}}
			var got []string
			for _, err := range c.validateSources() {
				got = append(got, err.Error())
			}
			joined := strings.Join(got, "\n")
			if tc.wantErr == "" && len(got) > 0 || tc.wantErr != "" && !strings.Contains(joined, tc.wantErr) {
				t.Fatalf("problems %q, want %q", got, tc.wantErr)
			}
		})
	}
	c := Default()
	c.Sources.Add = []string{"Phone"}
	if got, _ := c.SourceSet().Lookup("PHONE"); got != "Phone" {
		t.Errorf("SourceSet lookup of an added label: %q", got)
	}
}
