package core

import (
	"slices"
	"testing"
)

func TestParseStatus(t *testing.T) {
	for _, c := range []struct {
		typ          RecordType
		in, want     string
		merged, okay bool
	}{
		{RecordIdea, "in progress", "In progress", false, true},
		{RecordIdea, "InProgress", "In progress", false, true},
		{RecordIdea, " under  REVIEW ", "Under review", false, true},
		{RecordFeature, "released", "Released", false, true},
		{RecordFeedback, "merged", StatusMerged, true, true},
		{RecordObjective, "MERGED", StatusMerged, true, true},
		{RecordFeedback, "Released", "", false, false},
		{RecordIdea, "in-progress", "", false, false},
		{RecordObjective, "", "", false, false},
	} {
		t.Run(string(c.typ)+"/"+c.in, func(t *testing.T) {
			got, merged, ok := ParseStatus(c.typ, c.in)
			if got != c.want || merged != c.merged || ok != c.okay {
				t.Fatalf("ParseStatus(%s, %q) = %q %t %t, want %q %t %t", c.typ, c.in, got, merged, ok, c.want, c.merged, c.okay)
			}
		})
	}
}

func TestRankAccounts(t *testing.T) {
	for _, c := range []struct {
		name   string
		own    string
		linked []string
		want   []string
	}{
		{"none", "", nil, []string{}},
		{"own only", "Acme", nil, []string{"Acme"}},
		{"most frequent first", "Initech", []string{"Acme", "", "Acme", "Globex"}, []string{"Acme", "Globex", "Initech"}},
		{"own counts once more", "Globex", []string{"Acme", "Globex"}, []string{"Globex", "Acme"}},
		{"counts decide, then names", "", []string{"Zeta", "Beta", "Zeta", "Alpha", "Beta", "Zeta"}, []string{"Zeta", "Beta", "Alpha"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := RankAccounts(c.own, c.linked); !slices.Equal(got, c.want) || got == nil {
				t.Fatalf("RankAccounts(%q, %q) = %#v, want %q", c.own, c.linked, got, c.want)
			}
			// The same links counted by name, each name's count split over two entries where it has more
			// than one link (two companies of one name), rank alike.
			var names []string
			var counts []int64
			for _, l := range slices.Compact(slices.Sorted(slices.Values(c.linked))) {
				k := int64(0)
				for _, m := range c.linked {
					if m == l {
						k++
					}
				}
				if k > 1 {
					names, counts = append(names, l), append(counts, k-1)
					k = 1
				}
				names, counts = append(names, l), append(counts, k)
			}
			if got := RankAccountCounts(c.own, names, counts); !slices.Equal(got, c.want) || got == nil {
				t.Fatalf("RankAccountCounts(%q, %q, %v) = %#v, want %q", c.own, names, counts, got, c.want)
			}
		})
	}
}
