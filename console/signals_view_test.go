package console

import (
	"testing"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/insights"
)

// The store lists only a signal's first companies; the page counts the rest from CompaniesTotal.
func TestThemeViewCountsEveryCompany(t *testing.T) {
	q := core.SeriesQuery{FromDay: 100, Days: 1, Buckets: 7}
	sig := insights.Signal{Theme: "export", Companies: []string{"A", "B", "C", "D", "E"}, CompaniesTotal: 42}
	v := newThemeView(sig, make([]int, 7), q, signalWindows[0])
	if len(v.TopCompanies) != 5 || v.MoreCompanies != 37 {
		t.Errorf("shown %v and %d more, want 5 and 37 more", v.TopCompanies, v.MoreCompanies)
	}
	sig = insights.Signal{Theme: "ui", Companies: []string{"A", "B"}, CompaniesTotal: 2}
	if v := newThemeView(sig, make([]int, 7), q, signalWindows[0]); len(v.TopCompanies) != 2 || v.MoreCompanies != 0 {
		t.Errorf("shown %v and %d more, want 2 and none more", v.TopCompanies, v.MoreCompanies)
	}
}
