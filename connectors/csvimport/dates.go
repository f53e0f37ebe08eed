package csvimport

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// dateLayouts are the created_at forms accepted besides RFC 3339, each unambiguous: the year comes first
// or the month is spelled out. A time without a zone is UTC, a date without a time is midnight UTC.
// Day/month orders written with digits only (01/02/2024, 1.2.2024) mean different days in different
// countries: they are read by DateOrder (see parseNumericDate). Besides these, a run of 9–10 digits is
// Unix seconds and one of 13 digits Unix milliseconds.
var dateLayouts = []string{
	time.RFC3339,                 // 2024-03-01T10:00:00Z, +01:00, with or without fractions
	"2006-01-02",                 // midnight UTC
	"2006-01-02T15:04Z07:00",     // no seconds
	"2006-01-02T15:04:05",        // no zone: UTC
	"2006-01-02T15:04",           // no zone, no seconds
	"2006-01-02 15:04:05Z07:00",  // SQL style with offset: 2024-03-01 10:00:00+01:00
	"2006-01-02 15:04:05Z07",     // PostgreSQL text: 2024-03-01 10:00:00+01
	"2006-01-02 15:04:05 -0700",  // 2024-03-01 10:00:00 +0100
	"2006-01-02 15:04:05 Z07:00", // 2024-03-01 10:00:00 +01:00
	"2006-01-02 15:04:05",        // no zone: UTC
	"2006-01-02 15:04",           // no zone, no seconds
	"2006/01/02",
	"2006/01/02 15:04:05",
	"2006/01/02 15:04",
	"20060102",   // ISO 8601 basic
	"2 Jan 2006", // also 02 Jan 2006
	"2 January 2006",
	"2-Jan-2006", // Excel's d-mmm-yyyy
	"2 Jan 2006 15:04",
	"2 Jan 2006 15:04:05",
	"Jan 2, 2006",
	"January 2, 2006",
	"Jan 2, 2006 15:04",
	"Jan 2, 2006 15:04:05",
	"January 2, 2006 15:04",
	"January 2, 2006 15:04:05",
	"Jan 2 2006",
	time.RFC1123Z, // Mon, 02 Jan 2006 15:04:05 -0700
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05 GMT",
	"Mon, 2 Jan 2006 15:04:05 UTC",
}

// dateParser remembers the layout that matched last: a file uses one form throughout, so most rows
// parse on the first try. order reads dates written with digits only.
type dateParser struct {
	last  int
	order DateOrder
}

func (p *dateParser) parse(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, ok := parseEpoch(s); ok {
		return t, nil
	}
	if t, err := time.Parse(dateLayouts[p.last], s); err == nil {
		return t.UTC(), nil
	}
	for i, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			p.last = i
			return t.UTC(), nil
		}
	}
	if t, ok, err := parseNumericDate(s, p.order); ok {
		return t, err
	}
	return time.Time{}, fmt.Errorf("created_at: unrecognised date %q (use YYYY-MM-DD or RFC 3339)", core.Truncate(s, 40, "…"))
}

func parseEpoch(s string) (time.Time, bool) {
	if n := len(s); n != 9 && n != 10 && n != 13 {
		return time.Time{}, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return time.Time{}, false
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	if len(s) == 13 {
		return time.UnixMilli(v).UTC(), true
	}
	return time.Unix(v, 0).UTC(), true
}
