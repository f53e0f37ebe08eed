package api

import (
	"encoding/json"
	"testing"
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
