package csvimport

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// DateOrder says how to read a date written with digits only, like 03.11.2026: day first (dmy, as
// European spreadsheets write it), month first (mdy, as American ones do) or year first (ymd). Without it
// such a date is read only when one order makes sense of it (13.11.2026 can only be the 13th of November,
// 05.05.2026 is the same either way); otherwise the row is refused, since guessing would put records on
// the wrong day without a word.
type DateOrder string

// The date orders date_order and --date-order accept.
const (
	DateOrderNone DateOrder = ""
	DateOrderDMY  DateOrder = "dmy"
	DateOrderMDY  DateOrder = "mdy"
	DateOrderYMD  DateOrder = "ymd"
)

// ParseDateOrder reads a date_order value ("" for none).
func ParseDateOrder(s string) (DateOrder, error) {
	switch o := DateOrder(s); o {
	case DateOrderNone, DateOrderDMY, DateOrderMDY, DateOrderYMD:
		return o, nil
	}
	return "", fmt.Errorf("must be dmy, mdy or ymd, not %q", core.Truncate(s, 20, "…"))
}

// numericDate is a date of three runs of digits with one separator (/ . -), and an optional time.
var numericDate = regexp.MustCompile(`^(\d{1,4})([./-])(\d{1,2})([./-])(\d{1,4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$`)

// parseNumericDate reads s when it is a numeric date; ok is false when it is not one at all.
func parseNumericDate(s string, order DateOrder) (t time.Time, ok bool, err error) {
	m := numericDate.FindStringSubmatch(s)
	if m == nil || m[2] != m[4] {
		return time.Time{}, false, nil
	}
	a, b, c := m[1], m[3], m[5]
	var clock [3]int
	for i, v := range m[6:9] {
		clock[i], _ = strconv.Atoi(v)
	}
	if clock[0] > 23 || clock[1] > 59 || clock[2] > 59 {
		return time.Time{}, true, fmt.Errorf("created_at: invalid time in %q", core.Truncate(s, 40, "…"))
	}
	at := func(y, mo, d string) (time.Time, bool) {
		if len(y) != 2 && len(y) != 4 || len(mo) > 2 || len(d) > 2 {
			return time.Time{}, false
		}
		yy, _ := strconv.Atoi(y)
		if len(y) == 2 {
			yy += 2000 // a two-digit year in feedback is of this century
		}
		mm, _ := strconv.Atoi(mo)
		dd, _ := strconv.Atoi(d)
		t := time.Date(yy, time.Month(mm), dd, clock[0], clock[1], clock[2], 0, time.UTC)
		// time.Date normalises 31.02 into March; a date that moved was not a date.
		return t, t.Year() == yy && int(t.Month()) == mm && t.Day() == dd
	}
	readings := map[DateOrder]time.Time{}
	if len(a) == 4 {
		// The year first in four digits: there is only one way to read it.
		if t, ok := at(a, b, c); ok {
			return t, true, nil
		}
		return time.Time{}, true, fmt.Errorf("created_at: invalid date %q", core.Truncate(s, 40, "…"))
	}
	if t, ok := at(c, b, a); ok {
		readings[DateOrderDMY] = t
	}
	if t, ok := at(c, a, b); ok {
		readings[DateOrderMDY] = t
	}
	if order == DateOrderYMD {
		if t, ok := at(a, b, c); ok {
			readings[DateOrderYMD] = t
		}
	}
	if t, ok := readings[order]; ok && order != DateOrderNone {
		return t, true, nil
	}
	var only time.Time
	for _, t := range readings {
		if !only.IsZero() && !t.Equal(only) {
			return time.Time{}, true, fmt.Errorf("created_at: ambiguous date %q: day and month order unknown "+
				"(set date_order: dmy or mdy on the entry, or --date-order with import csv, or write YYYY-MM-DD)", core.Truncate(s, 40, "…"))
		}
		only = t
	}
	if only.IsZero() {
		return time.Time{}, true, fmt.Errorf("created_at: invalid date %q", core.Truncate(s, 40, "…"))
	}
	return only, true, nil
}
