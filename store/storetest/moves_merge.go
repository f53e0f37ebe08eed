package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

var mergeTests = map[string]func(t *testing.T, f *fixture){
	"MergeIdeas": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		tags := f.lookups(ws, core.LookupTag, "Bug", "Perf", "UI")
		a := f.submit(ws, core.Submission{Type: core.RecordIdea, Title: "a", TagIDs: []core.ID{tags[0], tags[1]}}).Record
		b := f.submit(ws, core.Submission{Type: core.RecordIdea, Title: "b", TagIDs: []core.ID{tags[2], tags[0]}}).Record
		fa, fb, both := f.feedback(ws, "fa", ""), f.feedback(ws, "fb", ""), f.feedback(ws, "both", "")
		f.link(ws, fa.ID, a.ID, nil)
		f.link(ws, both.ID, a.ID, nil)
		f.link(ws, fb.ID, b.ID, nil)
		f.link(ws, both.ID, b.ID, nil)
		faBefore := f.read(ws, fa.ID)
		got, err := f.svc.Merge(f.ctx, ws, a.ID, b.ID)
		noErr(t, "merge", err)
		equal(t, "target", [3]any{got.ID, got.FeedbackCount, got.Tags}, [3]any{b.ID, 3, []string{"UI", "Bug", "Perf"}})
		merged := f.read(ws, a.ID)
		equal(t, "merged", [3]any{merged.Status, merged.MergedInto, merged.FeedbackCount}, [3]any{core.StatusMerged, b.ID, 0})
		faAfter := f.read(ws, fa.ID)
		equal(t, "feedback moved", faAfter.Links, []core.ID{b.ID})
		if core.ETag(faAfter) == core.ETag(faBefore) {
			t.Fatal("the moved feedback's ETag did not change with its links")
		}
		sameSet(t, "linked feedback of the target", ids(f.pageAllLinked(ws, b.ID)), []core.ID{fa.ID, fb.ID, both.ID})
		equal(t, "listing leaves merged out", ids(f.list(ws, core.ListRequest{}).Records), []core.ID{b.ID})
		equal(t, "unless asked", ids(f.list(ws, core.ListRequest{Statuses: []string{"merged"}}).Records), []core.ID{a.ID})
		_, err = f.svc.Update(f.ctx, ws, a.ID, core.Patch{Title: str("x")}, "")
		wantErr(t, "edit of a merged record", err, core.ErrMerged)
		_, err = f.svc.Link(f.ctx, ws, fa.ID, a.ID, nil)
		wantErr(t, "link to a merged record", err, core.ErrMerged)
	},
	"MergeFeedback": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		idea := f.idea(ws, core.RecordIdea, "idea", "")
		x, y := f.feedback(ws, "x", ""), f.feedback(ws, "y", "")
		f.link(ws, x.ID, idea.ID, nil)
		got, err := f.svc.Merge(f.ctx, ws, x.ID, y.ID)
		noErr(t, "merge", err)
		equal(t, "links moved", got.Links, []core.ID{idea.ID})
		equal(t, "count kept", f.read(ws, idea.ID).FeedbackCount, 1)
	},
	"MergeRefusals": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		i1, i2, i3 := f.idea(a, core.RecordIdea, "1", ""), f.idea(a, core.RecordIdea, "2", ""), f.idea(a, core.RecordIdea, "3", "")
		feature := f.idea(a, core.RecordFeature, "f", "")
		theirs := f.idea(b, core.RecordIdea, "theirs", "")
		_, err := f.svc.Merge(f.ctx, a, i2.ID, i3.ID)
		noErr(t, "merge", err)
		for _, c := range []struct {
			name     string
			id, into core.ID
			want     error // nil: a validation error
		}{
			{"itself", i1.ID, i1.ID, nil},
			{"no target", i1.ID, "", nil},
			{"other type", i1.ID, feature.ID, nil},
			{"into a merged record", i1.ID, i2.ID, core.ErrMerged},
			{"a merged record", i2.ID, i1.ID, core.ErrMerged},
			{"another workspace's record", i1.ID, theirs.ID, core.ErrNotFound},
		} {
			t.Run(c.name, func(t *testing.T) {
				_, err := f.svc.Merge(f.ctx, a, c.id, c.into)
				if c.want != nil {
					wantErr(t, c.name, err, c.want)
					return
				}
				var ve *core.ValidationError
				if !errors.As(err, &ve) {
					t.Fatalf("want a validation error, got %v", err)
				}
			})
		}
		equal(t, "untouched", f.read(a, i1.ID).Status, core.StatusTriage)
	},
	"CrossedMergesOneRefused": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		for i := range 10 {
			x, y := f.idea(ws, core.RecordIdea, title(i), ""), f.idea(ws, core.RecordIdea, title(i), "")
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for j, pair := range [][2]core.ID{{x.ID, y.ID}, {y.ID, x.ID}} {
				wg.Add(1)
				go func() { defer wg.Done(); _, errs[j] = f.svc.Merge(f.ctx, ws, pair[0], pair[1]) }()
			}
			wg.Wait()
			ok := 0
			for _, err := range errs {
				if err == nil {
					ok++
				} else {
					wantErr(t, "the refused merge", err, core.ErrMerged)
				}
			}
			equal(t, "one merge succeeded", ok, 1)
			rx, ry := f.read(ws, x.ID), f.read(ws, y.ID)
			if (rx.Status == core.StatusMerged) == (ry.Status == core.StatusMerged) {
				t.Fatalf("want exactly one merged: %s %s", rx.Status, ry.Status)
			}
		}
	},
	"Delete": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		idea := f.idea(a, core.RecordIdea, "idea", "")
		sub := core.Submission{Type: core.RecordFeedback, Title: "gone soon", Description: "Unique words zebracorn here.",
			Idempotency: &core.Idempotency{Key: "k", Fingerprint: "fp"}}
		fb := f.submit(a, sub).Record
		keep := f.feedback(a, "keep", "zebracorn too")
		f.link(a, fb.ID, idea.ID, nil)
		f.update(a, fb.ID, core.Patch{Title: str("gone soon!")})
		f.flushIndex()
		wantErr(t, "delete through another workspace", f.svc.Delete(f.ctx, b, fb.ID), core.ErrNotFound)
		noErr(t, "delete", f.svc.Delete(f.ctx, a, fb.ID))
		wantErr(t, "delete again", f.svc.Delete(f.ctx, a, fb.ID), core.ErrNotFound)
		_, err := f.st.Record(f.ctx, a, fb.ID)
		wantErr(t, "read", err, core.ErrNotFound)
		_, err = f.svc.History(f.ctx, a, fb.ID)
		wantErr(t, "history", err, core.ErrNotFound)
		equal(t, "count dropped", f.read(a, idea.ID).FeedbackCount, 0)
		equal(t, "search", ids(f.list(a, core.ListRequest{RecordType: "Feedback", Search: "zebracorn"}).Records), []core.ID{keep.ID})
		jobs := f.claim("w", 10, time.Minute)
		for _, j := range jobs {
			if j.RecordID == fb.ID {
				t.Fatal("the deleted record's insight job is still queued")
			}
		}
		again := f.submit(a, sub)
		if !again.Created || again.Record.ID == fb.ID {
			t.Fatalf("a replayed key of a deleted record must create a new one: %+v", again)
		}
	},
	"DeleteTakesMergedRecords": func(t *testing.T, f *fixture) {
		// A record merged into a deleted one would keep a merged_into naming nothing: it goes with it, also
		// through a chain of merges, while records merged elsewhere and the other workspace's stay.
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		first, second, target := f.idea(a, core.RecordIdea, "first", ""), f.idea(a, core.RecordIdea, "second", ""), f.idea(a, core.RecordIdea, "target", "")
		other, elsewhere := f.idea(a, core.RecordIdea, "other", ""), f.idea(a, core.RecordIdea, "elsewhere", "")
		theirs, theirTarget := f.idea(b, core.RecordIdea, "theirs", ""), f.idea(b, core.RecordIdea, "their target", "")
		fb := f.feedback(a, "fb", "")
		f.link(a, fb.ID, first.ID, nil)
		for _, m := range []struct {
			ws, id, into core.ID
		}{{a, first.ID, second.ID}, {a, second.ID, target.ID}, {a, elsewhere.ID, other.ID}, {b, theirs.ID, theirTarget.ID}} {
			_, err := f.svc.Merge(f.ctx, m.ws, m.id, m.into)
			noErr(t, "merge", err)
		}
		equal(t, "the chain", f.read(a, first.ID).MergedInto, second.ID)
		noErr(t, "delete", f.svc.Delete(f.ctx, a, target.ID))
		for _, c := range []struct {
			name string
			ws   core.ID
			id   core.ID
			gone bool
		}{
			{"the target", a, target.ID, true},
			{"merged into it", a, second.ID, true},
			{"merged into that", a, first.ID, true},
			{"merged elsewhere", a, elsewhere.ID, false},
			{"the record merged into", a, other.ID, false},
			{"the linked feedback", a, fb.ID, false},
			{"another workspace's merged record", b, theirs.ID, false},
		} {
			t.Run(c.name, func(t *testing.T) {
				_, err := f.st.Record(f.ctx, c.ws, c.id)
				if c.gone {
					wantErr(t, c.name, err, core.ErrNotFound)
					return
				}
				noErr(t, c.name, err)
			})
		}
		equal(t, "the feedback's links", len(f.read(a, fb.ID).Links), 0)
		for _, r := range f.list(a, core.ListRequest{Statuses: []string{"merged"}}).Records {
			if _, err := f.st.Record(f.ctx, a, r.MergedInto); err != nil {
				t.Fatalf("%s is merged into %s, which is gone: %v", r.ID, r.MergedInto, err)
			}
		}
	},
	"HistoryActors": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		ctx := core.WithActor(f.ctx, core.Actor{Kind: core.ActorConnector, Name: "support-inbox"})
		res, err := f.svc.Submit(ctx, ws, core.Submission{Type: core.RecordIdea, Title: "idea"})
		noErr(t, "submit", err)
		f.clock.Advance(time.Second)
		_, err = f.svc.Update(core.WithActor(f.ctx, core.Actor{Kind: core.ActorAPIKey, Name: "zapier"}), ws, res.Record.ID,
			core.Patch{Status: str("planned")}, "")
		noErr(t, "update", err)
		_, err = f.svc.Update(f.ctx, ws, res.Record.ID, core.Patch{Title: str("better")}, "")
		noErr(t, "update", err)
		hist, err := f.svc.History(f.ctx, ws, res.Record.ID)
		noErr(t, "history", err)
		if len(hist) != 3 {
			t.Fatalf("want 3 entries, got %+v", hist)
		}
		equal(t, "created", [3]any{hist[0].Action, hist[0].Actor, hist[0].At}, [3]any{core.ActionCreated, core.Actor{Kind: core.ActorConnector, Name: "support-inbox"}, res.Record.CreatedAt})
		equal(t, "status", [3]any{hist[1].Action, hist[1].Actor, hist[1].Changes["status"]},
			[3]any{core.ActionStatus, core.Actor{Kind: core.ActorAPIKey, Name: "zapier"}, [2]any{"Triage", "Planned"}})
		equal(t, "updated", [3]any{hist[2].Action, hist[2].Actor.Kind, hist[2].Changes["title"]}, [3]any{core.ActionUpdated, core.ActorSystem, [2]any{"idea", "better"}})
		if !hist[1].At.After(hist[0].At) {
			t.Fatalf("history out of order: %+v", hist)
		}
	},
}
