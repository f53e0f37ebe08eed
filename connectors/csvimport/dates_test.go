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
		{"2023-02-29", "", "invalid date"},
		{"123456789", "1973-11-29T21:33:09Z", ""},
		{"+123456789", "", "unrecognised"},
		{"12345678901", "", "unrecognised"},
		{"03/01/2024", "", "ambiguous"},
		{"1.2.24", "", "ambiguous"},
		// One order only makes a date of these: they are read that way without date_order.
		{"31/12/2024", "2024-12-31T00:00:00Z", ""},
		{"12-31-2024 10:00", "2024-12-31T10:00:00Z", ""},
		{"05.05.2026", "2026-05-05T00:00:00Z", ""},
		{"2026.11.03", "2026-11-03T00:00:00Z", ""},
		{"31.02.2026", "", "invalid date"},
		{"03.11.2026 25:00", "", "invalid time"},
		{"03/11-2026", "", "unrecognised"},
		{"2024-13-01", "", "invalid date"},
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

// TestDateOrder: with date_order a date of digits only is read in that order on every row; a date that
// the order cannot make sense of but another order can is still read, and what is unambiguous (ISO, a
// month spelled out) is read as written. Before date_order, 03.11.2026 could not be imported at all.
func TestDateOrder(t *testing.T) {
	tests := []struct {
		order     DateOrder
		in, want  string
		wantError string
	}{
		{DateOrderDMY, "03.11.2026", "2026-11-03T00:00:00Z", ""},
		{DateOrderDMY, "03.11.2026 14:30", "2026-11-03T14:30:00Z", ""},
		{DateOrderDMY, "3/11/26", "2026-11-03T00:00:00Z", ""},
		{DateOrderMDY, "03.11.2026", "2026-03-11T00:00:00Z", ""},
		{DateOrderMDY, "11/03/2026 09:05:07", "2026-11-03T09:05:07Z", ""},
		{DateOrderYMD, "26.11.03", "2026-11-03T00:00:00Z", ""},
		{DateOrderDMY, "13.11.2026", "2026-11-13T00:00:00Z", ""},
		{DateOrderMDY, "13.11.2026", "2026-11-13T00:00:00Z", ""},
		{DateOrderDMY, "2026-03-11", "2026-03-11T00:00:00Z", ""},
		{DateOrderDMY, "Mar 11, 2026", "2026-03-11T00:00:00Z", ""},
		{DateOrderDMY, "31.02.2026", "", "invalid date"},
		{DateOrderNone, "03.11.2026", "", "date_order"},
	}
	for _, tt := range tests {
		t.Run(string(tt.order)+" "+tt.in, func(t *testing.T) {
			p := dateParser{order: tt.order}
			got, err := p.parse(tt.in)
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("parse(%q) = %v, %v; want an error with %q", tt.in, got, err, tt.wantError)
				}
				return
			}
			if err != nil || got.Format(time.RFC3339) != tt.want {
				t.Fatalf("parse(%q) = %v, %v; want %s", tt.in, got, err, tt.want)
			}
		})
	}
	for _, s := range []string{"dmy", "mdy", "ymd", ""} {
		if _, err := ParseDateOrder(s); err != nil {
			t.Errorf("ParseDateOrder(%q): %v", s, err)
		}
	}
	if _, err := ParseDateOrder("DMY"); err == nil {
		t.Error("ParseDateOrder accepts DMY")
	}
}
