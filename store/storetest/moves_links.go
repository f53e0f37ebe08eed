package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

var linkTests = map[string]func(t *testing.T, f *fixture){
	"LinkUnlink": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		idea := f.idea(ws, core.RecordIdea, "idea", "ann@initech.com")
		fb := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "fb", CustomerEmail: "jane@acme.com"}).Record
		fb2 := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "fb2", CustomerEmail: "joe@acme.com"}).Record
		f.clock.Advance(time.Second)
		got := f.link(ws, fb.ID, idea.ID, nil)
		equal(t, "feedback after link", [3]any{got.Status, got.Links, got.Importance}, [3]any{core.StatusProcessed, []core.ID{idea.ID}, 0})
		equal(t, "updatedAt moved", got.UpdatedAt, f.clock.Now())
		again := f.link(ws, fb.ID, idea.ID, nil)
		equal(t, "linking again changes nothing", again, got)
		got = f.link(ws, fb.ID, idea.ID, num(3))
		equal(t, "importance set", got.Importance, 3)
		f.link(ws, fb2.ID, idea.ID, num(1))
		ir := f.read(ws, idea.ID)
		equal(t, "count", ir.FeedbackCount, 2)
		equal(t, "accounts, most frequent first", ir.Accounts, []string{"Acme", "Initech"})
		if ir.Version == idea.Version {
			t.Fatal("the idea's version did not move with its count")
		}
		linked := f.pageAllLinked(ws, idea.ID)
		sameSet(t, "linked feedback", ids(linked), []core.ID{fb.ID, fb2.ID})

		noErr(t, "unlink", f.svc.Unlink(f.ctx, ws, fb.ID, idea.ID))
		wantErr(t, "unlink again", f.svc.Unlink(f.ctx, ws, fb.ID, idea.ID), core.ErrNotFound)
		equal(t, "count after unlink", f.read(ws, idea.ID).FeedbackCount, 1)
		equal(t, "links after unlink", f.read(ws, fb.ID).Links, []core.ID{})
		hist, err := f.svc.History(f.ctx, ws, fb.ID)
		noErr(t, "history", err)
		actions := make([]string, len(hist))
		for i, h := range hist {
			actions[i] = h.Action
		}
		equal(t, "history", actions, []string{core.ActionCreated, core.ActionLinked, core.ActionLinked, core.ActionUnlinked})
	},
	"AccountsFollowCustomer": func(t *testing.T, f *fixture) {
		// An Idea's accounts come from its feedback's companies as they are now, read one by one and by
		// the page, also after the feedback changes company or loses its customer.
		ws := f.workspace("A", 0).ID
		idea := f.idea(ws, core.RecordIdea, "idea", "")
		lone := f.idea(ws, core.RecordIdea, "lone", "ann@initech.com")
		fb := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "fb", CustomerEmail: "jane@acme.com"}).Record
		f.link(ws, fb.ID, idea.ID, nil)
		f.link(ws, f.feedback(ws, "anonymous", "").ID, idea.ID, nil)
		steps := []struct {
			name  string
			email string
			want  []string
		}{
			{"linked", "", []string{"Acme"}},
			{"moved to another company", "bob@globex.com", []string{"Globex"}},
			{"customer removed", "-", []string{}},
		}
		for _, c := range steps {
			t.Run(c.name, func(t *testing.T) {
				switch c.email {
				case "":
				case "-":
					f.update(ws, fb.ID, core.Patch{CustomerEmail: str("")})
				default:
					f.update(ws, fb.ID, core.Patch{CustomerEmail: str(c.email)})
				}
				equal(t, "read", f.read(ws, idea.ID).Accounts, c.want)
				page, err := f.svc.List(f.ctx, ws, core.ListRequest{RecordType: "Idea", Order: "demand"})
				noErr(t, "list", err)
				got := map[core.ID][]string{}
				for _, r := range page.Records {
					got[r.ID] = r.Accounts
				}
				equal(t, "page", got, map[core.ID][]string{idea.ID: c.want, lone.ID: {"Initech"}})
			})
		}
	},
	"LinkRefusals": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		idea := f.idea(a, core.RecordIdea, "idea", "")
		feature := f.idea(a, core.RecordFeature, "feature", "")
		fb, fb2 := f.feedback(a, "fb", ""), f.feedback(a, "fb2", "")
		other := f.idea(b, core.RecordIdea, "theirs", "")
		f.link(a, fb.ID, feature.ID, nil)
		for _, c := range []struct {
			name       string
			fb, target core.ID
			imp        *int
			want       error // nil: a validation error
		}{
			{"idea to feedback", idea.ID, fb.ID, nil, nil},
			{"feedback to feedback", fb.ID, fb2.ID, nil, nil},
			{"idea to feature", idea.ID, feature.ID, nil, nil},
			{"importance out of range", fb.ID, idea.ID, num(0), nil},
			{"another workspace's idea", fb.ID, other.ID, nil, core.ErrNotFound},
			{"unknown feedback", core.NewID(), idea.ID, nil, core.ErrNotFound},
		} {
			t.Run(c.name, func(t *testing.T) {
				_, err := f.svc.Link(f.ctx, a, c.fb, c.target, c.imp)
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
		wantErr(t, "unlink through another workspace", f.svc.Unlink(f.ctx, b, fb.ID, feature.ID), core.ErrNotFound)
		equal(t, "nothing linked to the idea", f.read(a, idea.ID).FeedbackCount, 0)
	},
	"LinkRacesDelete": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		for i := range 10 {
			idea := f.idea(ws, core.RecordIdea, title(i), "")
			fb := f.feedback(ws, title(i), "")
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); _, _ = f.svc.Link(f.ctx, ws, fb.ID, idea.ID, nil) }()
			go func() { defer wg.Done(); noErr(t, "delete", f.svc.Delete(f.ctx, ws, idea.ID)) }()
			wg.Wait()
			equal(t, "no dangling link", f.read(ws, fb.ID).Links, []core.ID{})
		}
	},
}

// pageAllLinked follows the pages of an Idea's or Feature's linked feedback.
func (f *fixture) pageAllLinked(ws, id core.ID) []core.Record {
	f.t.Helper()
	var out []core.Record
	req := core.ListRequest{Limit: "1"}
	for range 1000 {
		p, err := f.svc.LinkedFeedback(f.ctx, ws, id, req)
		noErr(f.t, "linked feedback", err)
		out = append(out, p.Records...)
		if p.Next == "" {
			return out
		}
		req.Cursor = p.Next
	}
	f.t.Fatal("paging does not terminate")
	return nil
}
