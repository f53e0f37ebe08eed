package storetest

import (
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// insightsOfTests check the many-records read a page of the inbox uses: the same insights, in the same
// order, as one Insights call per record, and nothing of another workspace.
var insightsOfTests = map[string]func(t *testing.T, f *fixture){
	"SameAsOneByOne": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		recs := f.queued(a, 3)
		theirs := f.queued(b, 1)[0]
		jobs := f.claim("w1", 10, time.Minute)
		equal(t, "jobs claimed", len(jobs), 4)
		for i, j := range jobs {
			ins := sampleInsights()
			if j.RecordID == recs[1].ID {
				continue // one record of a keeps no insight
			}
			if i%2 == 0 {
				ins = ins[:1]
			}
			noErr(t, "complete", f.st.CompleteInsightJob(f.ctx, j, "w1", ins))
		}
		ids := []core.ID{recs[0].ID, recs[1].ID, recs[2].ID, theirs.ID, core.NewID()}
		got, err := f.st.InsightsOf(f.ctx, a, ids)
		noErr(t, "insights of", err)
		want := map[core.ID][]core.Insight{}
		for _, r := range recs {
			one, err := f.st.Insights(f.ctx, a, r.ID)
			noErr(t, "insights", err)
			if len(one) > 0 {
				want[r.ID] = one
			}
		}
		equal(t, "one query for many records", got, want)
		if _, ok := got[recs[1].ID]; ok {
			t.Fatal("a record without insights has an entry")
		}
		if _, ok := got[theirs.ID]; ok {
			t.Fatal("another workspace's record's insights were read")
		}
		none, err := f.st.InsightsOf(f.ctx, a, nil)
		noErr(t, "insights of nothing", err)
		equal(t, "insights of nothing", len(none), 0)
	},
}
