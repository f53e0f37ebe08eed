package core

import (
	"reflect"
	"testing"
)

// A tally sums a theme's companies by name, leaves out blank ids and ids without a name, and counts the
// distinct names, as the join by name did.
func TestCompanyTally(t *testing.T) {
	tl := NewCompanyTally(2)
	for _, r := range []struct {
		theme int
		id    string
		n     int
	}{
		{0, "c1", 2}, {0, "c2", 3}, {0, "c1", 1}, {0, "c3", 1}, {0, "", 9}, {0, "gone", 9},
		{0, "c4", 1}, {0, "c5", 1}, {0, "c6", 1}, {1, "c2", 1},
	} {
		tl.Add(r.theme, []byte(r.id), r.n)
	}
	names := map[string]string{"c1": "Acme", "c2": "Beta", "c3": "Acme", "c4": "Delta", "c5": "Echo", "c6": "Foxtrot"}
	got := tl.CompanyParts([]string{"sync", "login"}, names)
	want := []ThemePart{
		{Part: "C", Theme: "sync", Value: "Acme", N: 4}, {Part: "C", Theme: "sync", Value: "Beta", N: 3},
		{Part: "C", Theme: "sync", Value: "Delta", N: 1}, {Part: "C", Theme: "sync", Value: "Echo", N: 1},
		{Part: "C", Theme: "sync", Value: "Foxtrot", N: 1}, {Part: "K", Theme: "sync", N: 5},
		{Part: "C", Theme: "login", Value: "Beta", N: 1}, {Part: "K", Theme: "login", N: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}
