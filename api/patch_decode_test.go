package api

import (
	"strings"
	"testing"
)

// TestDecodePatch checks what a PATCH body means: null as absent except importance, where it clears.
func TestDecodePatch(t *testing.T) {
	tests := []struct {
		name, body, want, err string
	}{
		{"status only", `{"status":"Planned"}`, "status=Planned", ""},
		{"null string is absent", `{"title":null,"status":"Done"}`, "status=Done", ""},
		{"importance null clears", `{"importance":null}`, "clear", ""},
		{"importance set", `{"importance":2}`, "importance=2", ""},
		{"tags null is absent", `{"tags":null,"user":"u"}`, "user=u", ""},
		{"empty tags", `{"tags":[]}`, "tags=0", ""},
		{"every string", `{"title":"t","description":"d","product":"p","release":"r","timeframe":"f","customer_email":"e","customer_name":"n"}`,
			"title=t description=d product=p release=r timeframe=f customer_email=e customer_name=n", ""},
		{"duplicate", `{"status":"Done","status":"Planned"}`, "", `duplicate field "status"`},
		{"nested duplicate", `{"tags":[{"a":1,"a":2}]}`, "", `duplicate field "a"`},
		{"unknown", `{"stat":"Done"}`, "", `unknown field "stat"`},
		{"wrong type", `{"status":3}`, "", `invalid type for field "status"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := decodePatch([]byte(tc.body))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range []struct {
				name string
				v    *string
			}{{"title", p.Title}, {"description", p.Description}, {"status", p.Status}, {"product", p.Product},
				{"user", p.User}, {"release", p.Release}, {"timeframe", p.Timeframe},
				{"customer_email", p.CustomerEmail}, {"customer_name", p.CustomerName}} {
				if f.v != nil {
					got = append(got, f.name+"="+*f.v)
				}
			}
			if p.Tags != nil {
				got = append(got, "tags="+string(rune('0'+len(*p.Tags))))
			}
			if p.Importance != nil {
				got = append(got, "importance="+string(rune('0'+*p.Importance)))
			}
			if p.ClearImportance {
				got = append(got, "clear")
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("got %q, want %q", s, tc.want)
			}
		})
	}
}
