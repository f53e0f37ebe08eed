package storetest

import (
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// Cases of the calls that settle many insight jobs at once, kept beside the queue's own cases.
func init() {
	insightTests["CompleteManyInOneCall"] = completeMany
	insightTests["ReleaseAllButKept"] = releaseAllButKept
	recordTests["RecordsByID"] = recordsByID
}

// recordsByID: many records of a workspace read at once come back as Record reads them, and ids of another
// workspace's records or of none are left out.
func recordsByID(t *testing.T, f *fixture) {
	a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
	tags := f.lookups(a, core.LookupTag, "Billing", "Mobile")
	one := f.submit(a, core.Submission{Type: core.RecordFeedback, Title: "one", Description: "First.", TagIDs: tags,
		CustomerEmail: "ann@acme.com"}).Record
	two := f.feedback(a, "two", "Second.")
	f.feedback(a, "three", "Not asked for.")
	theirs := f.feedback(b, "theirs", "Another workspace's.")
	got, err := f.st.RecordsByID(f.ctx, a, []core.ID{two.ID, one.ID, theirs.ID, core.NewID()})
	noErr(t, "records by id", err)
	byID := map[core.ID]core.Record{}
	for _, r := range got {
		byID[r.ID] = r
	}
	equal(t, "records read", len(got), 2)
	for _, id := range []core.ID{one.ID, two.ID} {
		want, err := f.st.Record(f.ctx, a, id)
		noErr(t, "record", err)
		equal(t, "record "+string(id)+" read with others", byID[id], want)
	}
	equal(t, "tags read with the record", len(byID[one.ID].Tags), 2)
	got, err = f.st.RecordsByID(f.ctx, a, nil)
	noErr(t, "records by no id", err)
	equal(t, "records by no id", len(got), 0)
}

// completeMany: one call completes every job the worker holds and leaves, untouched and named, those it
// does not hold: another worker's, and one given with the wrong workspace.
func completeMany(t *testing.T, f *fixture) {
	a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
	f.queued(a, 2)
	f.queued(b, 1)
	mine := f.claim("w1", 3, time.Minute)
	if len(mine) != 3 {
		t.Fatalf("want 3 jobs claimed, got %+v", mine)
	}
	f.queued(a, 1)
	theirs := f.claim("w2", 1, time.Minute)[0]
	misplaced := mine[2]
	if misplaced.Workspace == a {
		misplaced.Workspace = b
	} else {
		misplaced.Workspace = a
	}
	ins := sampleInsights()
	notHeld, err := f.st.CompleteInsightJobs(f.ctx, "w1", []core.JobResult{
		{Job: mine[0], Insights: ins}, {Job: theirs, Insights: ins}, {Job: mine[1], Insights: ins[:1]}, {Job: misplaced, Insights: ins},
	})
	noErr(t, "complete many", err)
	sameSet(t, "jobs not held", notHeld, []core.ID{theirs.ID, mine[2].ID})
	for _, c := range []struct {
		job  core.InsightJob
		want int
	}{{mine[0], 2}, {mine[1], 1}, {theirs, 0}, {mine[2], 0}} {
		got, err := f.st.Insights(f.ctx, c.job.Workspace, c.job.RecordID)
		noErr(t, "insights", err)
		equal(t, "insights of "+string(c.job.RecordID), len(got), c.want)
		for _, in := range got {
			if in.Workspace != c.job.Workspace || in.RecordID != c.job.RecordID || in.ID == "" || in.CreatedAt.IsZero() {
				t.Fatalf("insight stored for the wrong record or without id or time: %+v", in)
			}
		}
	}
	depth, err := f.st.InsightQueueDepth(f.ctx)
	noErr(t, "depth", err)
	equal(t, "jobs left running (another's, and the one named with the wrong workspace)", depth, 2)
	noErr(t, "the other worker completes its own job", f.st.CompleteInsightJob(f.ctx, theirs, "w2", ins[:1]))
	noErr(t, "the misplaced job is still the worker's", f.st.CompleteInsightJob(f.ctx, mine[2], "w1", nil))

	notHeld, err = f.st.CompleteInsightJobs(f.ctx, "w1", []core.JobResult{{Job: mine[0], Insights: ins[:1]}})
	noErr(t, "complete a done job", err)
	sameSet(t, "a done job is not held", notHeld, []core.ID{mine[0].ID})
	got, err := f.st.Insights(f.ctx, a, mine[0].RecordID)
	noErr(t, "insights", err)
	equal(t, "a write of a job not held changes nothing", len(got), len(ins))
	notHeld, err = f.st.CompleteInsightJobs(f.ctx, "w1", nil)
	noErr(t, "complete nothing", err)
	equal(t, "nothing not held", len(notHeld), 0)
}

// releaseAllButKept: a worker gives back every job it holds except those it names, each as before its
// claim, and never touches another worker's.
func releaseAllButKept(t *testing.T, f *fixture) {
	ws := f.workspace("A", 0).ID
	f.queued(ws, 4)
	mine := f.claim("w1", 3, time.Minute)
	theirs := f.claim("w2", 1, time.Minute)
	if len(mine) != 3 || len(theirs) != 1 {
		t.Fatalf("claims took %d and %d jobs, want 3 and 1", len(mine), len(theirs))
	}
	n, err := f.st.ReleaseInsightJobs(f.ctx, "w1", []core.ID{mine[0].ID})
	noErr(t, "release all but one", err)
	equal(t, "released", n, 2)
	again := f.claim("w3", 5, time.Minute)
	got := []core.ID{}
	for _, j := range again {
		got = append(got, j.ID)
		equal(t, "attempts of a released job claimed again", j.Attempts, 1)
	}
	sameSet(t, "jobs claimable after the release", got, []core.ID{mine[1].ID, mine[2].ID})
	noErr(t, "the kept job is still the worker's", f.st.CompleteInsightJob(f.ctx, mine[0], "w1", nil))
	noErr(t, "another worker's job is untouched", f.st.CompleteInsightJob(f.ctx, theirs[0], "w2", nil))
	n, err = f.st.ReleaseInsightJobs(f.ctx, "w1", nil)
	noErr(t, "release with nothing held", err)
	equal(t, "released with nothing held", n, 0)
	n, err = f.st.ReleaseInsightJobs(f.ctx, "w3", []core.ID{})
	noErr(t, "release all", err)
	equal(t, "released all", n, 2)
	depth, err := f.st.InsightQueueDepth(f.ctx)
	noErr(t, "depth", err)
	equal(t, "released jobs are queued", depth, 2)
}
