package jsonkeys

import (
	"errors"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name, body, wantPath, wantName string
	}{
		{"no duplicates", `{"title":"a","tags":["x","x"],"n":{"title":"b"}}`, "", ""},
		{"top level", `{"title":"a","description":"d","title":"b"}`, "", "title"},
		{"exact names only", `{"title":"a","Title":"b"}`, "", ""},
		{"nested object", `{"customer":{"email":"a","email":"b"}}`, "customer", "email"},
		{"in an array element", `{"items":[{"t":1},{"t":1,"t":2}]}`, "items[1]", "t"},
		{"same name in sibling objects", `[{"a":1},{"a":2}]`, "", ""},
		{"after a nested value", `{"a":{"b":[1,{"c":2}]},"a":3}`, "", "a"},
		{"escaped spelling of the same name", `{"title":"a","\u0074itle":"b"}`, "", "title"},
		{"invalid json left to the decoder", `{"a":1,,"a":2}`, "", ""},
		{"scalar", `"x"`, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Check([]byte(tc.body))
			var d *Duplicate
			if tc.wantName == "" {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			if !errors.As(err, &d) || d.Name != tc.wantName || d.Path != tc.wantPath {
				t.Fatalf("Check = %v, want %q at %q", err, tc.wantName, tc.wantPath)
			}
		})
	}
}
