package csvimport

import (
	"strings"
	"testing"
	"time"
)

// The golden file dates.csv covers every layout; these are the edges around them.
func TestDateParser(t *testing.T) {
	tests := []struct {
		in   string
		want string // RFC 3339 in UTC; "" for no time
		err  string
	}{
		{"", "", ""},
		{"  2024-02-29  ", "2024-02-29T00:00:00Z", ""},
		{"2023-02-29", "", "unrecognised"},
		{"123456789", "1973-11-29T21:33:09Z", ""},
		{"+123456789", "", "unrecognised"},
		{"12345678901", "", "unrecognised"},
		{"31/12/2024", "", "ambiguous"},
		{"12-31-2024 10:00", "", "ambiguous"},
		{"1.2.24", "", "ambiguous"},
		{"2024-13-01", "", "unrecognised"},
		{strings.Repeat("9", 100), "", "…"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var p dateParser
			got, err := p.parse(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("parse(%q) err = %v, want one containing %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := ""
			if !got.IsZero() {
				s = got.Format(time.RFC3339Nano)
			}
			if s != tt.want {
				t.Errorf("parse(%q) = %s, want %s", tt.in, s, tt.want)
			}
		})
	}
}

// A remembered layout must not make a later row in another layout fail.
func TestDateParserSwitchesLayouts(t *testing.T) {
	var p dateParser
	for _, s := range []string{"2024-03-01", "Mar 2, 2024", "2024-03-03", "2024-03-04T05:06:07Z"} {
		if _, err := p.parse(s); err != nil {
			t.Fatalf("parse(%q): %v", s, err)
		}
	}
}
