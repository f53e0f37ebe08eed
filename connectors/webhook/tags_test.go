package webhook

import (
	"slices"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

// TestUnknownTagsAreNamed: a tag label that matches no tag of the workspace is left off the record, which
// is still created, and both the answer and the log name it. Before the fix it was dropped without a word.
func TestUnknownTagsAreNamed(t *testing.T) {
	h := newHarness(t)
	if _, err := h.svc.AddLookups(h.ctx, h.ws, core.LookupTag, []string{"Billing"}); err != nil {
		t.Fatal(err)
	}
	e := plainEntry("crm")
	e["mapping"].(map[string]any)["tags"] = "labels"
	h.start(e)
	tests := []struct {
		name, body  string
		wantUnknown []string
	}{
		{"all known", `{"id": "t1", "title": "a", "labels": ["billing"]}`, nil},
		{"one unknown", `{"id": "t2", "title": "b", "labels": ["Billing", "Urgent"]}`, []string{"Urgent"}},
		{"in a batch", `[{"id": "t3", "title": "c", "labels": "vip; billing"}, {"id": "t4", "title": "d"}]`, []string{"vip"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := strings.Count(h.logs.String(), "match no tag")
			seen := h.post("crm", []byte(tc.body), hexSig("s3cret", []byte(tc.body))).want(t, 201).ids(t)
			if !seen[0].Created || !slices.Equal(seen[0].UnknownTags, tc.wantUnknown) {
				t.Fatalf("answer %+v, want unknown tags %v", seen, tc.wantUnknown)
			}
			logged := strings.Count(h.logs.String(), "match no tag") > before
			if logged != (tc.wantUnknown != nil) {
				t.Fatalf("logged %v for unknown tags %v:\n%s", logged, tc.wantUnknown, h.logs.String())
			}
		})
	}
	for _, r := range h.records() {
		if r.Title == "b" && (len(r.Tags) != 1 || r.Tags[0] != "Billing") {
			t.Errorf("record b tags %v, want only Billing", r.Tags)
		}
	}
}
