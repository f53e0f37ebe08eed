package storetest

import (
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// Cases of the insight queue's fairness, kept beside the queue's own cases.
func init() {
	insightTests["ClaimTakesTurnsAcrossWorkspaces"] = claimTakesTurns
}

// claimTakesTurns: a workspace with a backlog does not hold up a job queued later in another workspace.
// One job per claim, as a pool with one idle worker asks, must reach the small workspace within two claims;
// a claim of several shares them out; and each workspace's own jobs still come oldest first.
func claimTakesTurns(t *testing.T, f *fixture) {
	big, small, third := f.workspace("Big", 0).ID, f.workspace("Small", 0).ID, f.workspace("Third", 0).ID
	bigRecs := f.queued(big, 30)
	f.clock.Advance(time.Second)
	smallRec := f.queued(small, 1)[0]

	var order []core.InsightJob
	for range 2 {
		order = append(order, f.claim("w1", 1, time.Minute)...)
	}
	if len(order) != 2 {
		t.Fatalf("want one job per claim, got %d", len(order))
	}
	var sawSmall bool
	for _, j := range order {
		sawSmall = sawSmall || j.RecordID == smallRec.ID
	}
	if !sawSmall {
		t.Fatalf("two claims took %s and %s, both of the backlog; the other workspace's job waits behind 30", order[0].RecordID, order[1].RecordID)
	}
	if order[0].RecordID != bigRecs[0].ID && order[1].RecordID != bigRecs[0].ID {
		t.Fatalf("the backlog's oldest job was not its first claimed: %+v", order)
	}

	f.clock.Advance(time.Second)
	f.queued(small, 3)
	f.queued(third, 3)
	got := f.claim("w1", 6, time.Minute)
	per := map[core.ID]int{}
	for _, j := range got {
		per[j.Workspace]++
	}
	equal(t, "a claim of six shares them among three workspaces", [3]int{per[big], per[small], per[third]}, [3]int{2, 2, 2})
	next := f.claim("w1", 30, time.Minute)
	seen := map[core.ID]bool{}
	for _, j := range append(order, append(got, next...)...) {
		if seen[j.ID] {
			t.Fatalf("job %s claimed twice", j.ID)
		}
		seen[j.ID] = true
	}
	equal(t, "every job claimed once", len(seen), 30+1+3+3)
}
