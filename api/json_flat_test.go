package api

import (
	"encoding/json"
	"testing"

	"github.com/feedbridge/feedbridge/internal/jsonkeys"
)

// TestFlatUnique checks the shortcut past the duplicate-name walk against the decoded member count: it
// may answer true only for a body with no name given twice.
func TestFlatUnique(t *testing.T) {
	tests := []struct {
		body string
		want bool
	}{
		{`{}`, true},
		{`{"status":"Planned"}`, true},
		{` { "title" : "a,b" , "tags" : ["x,", "y"] , "importance" : null } `, true},
		{`{"title":"say \"hi\", then {go}","status":"Done"}`, true},
		{`{"title":"a","title":"b"}`, false},
		{`{"title":"a","description":"x","description":"y"}`, false},
		{`{"tags":[{"a":1,"a":2}]}`, false},
		{`{"n":{"a":1}}`, false},
		{`{"a\\":1,"b":"\\"}`, true},
	}
	for _, tc := range tests {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tc.body), &obj); err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		if got := flatUnique([]byte(tc.body), len(obj)); got != tc.want {
			t.Errorf("flatUnique(%s) = %v, want %v", tc.body, got, tc.want)
		}
	}
}

// FuzzFlatUnique holds the shortcut to the full walk on any input: whenever it answers true for a body that
// decodes as an object, the walk must find no name given twice.
func FuzzFlatUnique(f *testing.F) {
	for _, s := range bodySeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Add([]byte(`{"a\u0062":1,"ab":2}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var obj map[string]json.RawMessage
		if json.Unmarshal(body, &obj) != nil || obj == nil {
			return
		}
		if flatUnique(body, len(obj)) {
			if err := jsonkeys.Check(body); err != nil {
				t.Fatalf("flatUnique said %q has no name twice; the walk says %v", body, err)
			}
		}
	})
}
