package storetest

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// notices claims and finishes every claimable message of queue q and returns their bodies, sorted by
// recipient (user or address).
func (f *fixture) notices(q string) []core.Notice {
	f.t.Helper()
	var out []core.Notice
	for _, it := range f.claimItems(q, "w", 50, time.Minute) {
		var n core.Notice
		noErr(f.t, "decode notice", json.Unmarshal(it.Body, &n))
		equal(f.t, "notice kind", it.Kind, core.NotifyKind)
		out = append(out, n)
		noErr(f.t, "finish", f.st.FinishItem(f.ctx, it, "w"))
	}
	slices.SortFunc(out, func(a, b core.Notice) int {
		if a.User+a.To < b.User+b.To {
			return -1
		}
		return 1
	})
	return out
}

// notifyWorld is an Idea filed with /idea in Slack, a Slack message saved as feedback, a forwarded mail
// and a feedback from the API, the last three linked to the Idea.
func (f *fixture) notifyWorld(ws core.ID) (idea core.Record) {
	f.t.Helper()
	slackOrigin := func(user, channel, thread string) *core.Origin {
		return &core.Origin{Kind: core.OriginSlack, Entry: "acme", User: user, Channel: channel, Thread: thread}
	}
	idea = f.submit(ws, core.Submission{Type: core.RecordIdea, Title: "Dark mode", Reporter: "@ann",
		Origin: slackOrigin("U1", "", "")}).Record
	saved := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "Too bright at night", Reporter: "@bob",
		Origin: slackOrigin("U2", "C9", "1700000000.000100")}).Record
	// U1 also saved a message: U1 hears once.
	again := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "Eyes hurt", Reporter: "@ann",
		Origin: slackOrigin("U1", "C9", "1700000000.000200")}).Record
	mail := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "Please add a dark theme",
		CustomerEmail: "jane@customer.example", Reporter: "agent@example.com",
		Origin: &core.Origin{Kind: core.OriginEmail, Entry: "support"}}).Record
	api := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "dark", CustomerEmail: "joe@other.example"}).Record
	for _, fb := range []core.Record{saved, again, mail, api} {
		f.link(ws, fb.ID, idea.ID, nil)
	}
	return idea
}

func notifyPolicy() *core.NotifyPolicy {
	return &core.NotifyPolicy{Statuses: []string{"Planned", "Done"}, Email: true,
		SlackEntries: map[string]bool{"acme": true}, PublicURL: "https://fb.example/"}
}

var notifyTests = map[string]func(t *testing.T, f *fixture){
	"OnePerPersonIdeaAndStatus": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		f.svc.SetNotify(notifyPolicy())
		idea := f.notifyWorld(ws)
		f.update(ws, idea.ID, core.Patch{Status: str("Under review")})
		equal(t, "a status not named sends nothing", f.stats(core.NotifyQueueSlack), core.QueueStats{})

		f.update(ws, idea.ID, core.Patch{Status: str("planned")})
		base := core.Notice{Record: idea.ID, RecordType: core.RecordIdea, Title: "Dark mode", Status: "Planned",
			Link: "https://fb.example/records/" + string(idea.ID)}
		with := func(n core.Notice) core.Notice {
			n.Record, n.RecordType, n.Title, n.Status, n.Link = base.Record, base.RecordType, base.Title, base.Status, base.Link
			return n
		}
		equal(t, "slack: the idea's author by DM, the saver in the message's thread, each once",
			f.notices(core.NotifyQueueSlack), []core.Notice{
				with(core.Notice{Channel: core.OriginSlack, Entry: "acme", User: "U1"}),
				with(core.Notice{Channel: core.OriginSlack, Entry: "acme", User: "U2", Chat: "C9", Thread: "1700000000.000100"}),
			})
		equal(t, "email: the forwarder only, never the customer", f.notices(core.NotifyQueueEmail), []core.Notice{
			with(core.Notice{Channel: core.OriginEmail, Entry: "support", To: "agent@example.com"}),
		})

		f.update(ws, idea.ID, core.Patch{Status: str("Under review")})
		f.update(ws, idea.ID, core.Patch{Status: str("Planned")})
		equal(t, "a second move to the same status sends nothing new",
			[]core.QueueStats{f.stats(core.NotifyQueueSlack), f.stats(core.NotifyQueueEmail)}, []core.QueueStats{{}, {}})

		f.update(ws, idea.ID, core.Patch{Status: str("Done")})
		equal(t, "another status is another message to each", len(f.notices(core.NotifyQueueSlack))+len(f.notices(core.NotifyQueueEmail)), 3)
	},
	"CustomersWhenTurnedOn": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		p := notifyPolicy()
		p.Customers, p.SlackEntries, p.PublicURL = true, nil, ""
		f.svc.SetNotify(p)
		idea := f.notifyWorld(ws)
		f.update(ws, idea.ID, core.Patch{Status: str("Planned")})
		got := f.notices(core.NotifyQueueEmail)
		var to []string
		for _, n := range got {
			to = append(to, n.To)
			equal(t, "no link without a public URL", n.Link, "")
		}
		equal(t, "the forwarder and the email's customer, not the API's customer", to,
			[]string{"agent@example.com", "jane@customer.example"})
		equal(t, "a Slack entry that cannot post gets nothing", f.stats(core.NotifyQueueSlack), core.QueueStats{})
	},
	"OffAndRolledBack": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		idea := f.notifyWorld(ws)
		f.update(ws, idea.ID, core.Patch{Status: str("Planned")})
		equal(t, "without a policy nothing is queued", f.stats(core.NotifyQueueSlack), core.QueueStats{})

		f.svc.SetNotify(notifyPolicy())
		_, err := f.svc.Update(f.ctx, ws, idea.ID, core.Patch{Status: str("Done")}, `"stale"`)
		wantErr(t, "an edit refused", err, core.ErrPrecondition)
		equal(t, "a refused move sends nothing", f.stats(core.NotifyQueueSlack), core.QueueStats{})

		fb := f.feedback(ws, "plain", "")
		f.svc.SetNotify(&core.NotifyPolicy{Statuses: []string{"Archived"}, SlackEntries: map[string]bool{"acme": true}})
		f.update(ws, fb.ID, core.Patch{Status: str("Archived")})
		equal(t, "feedback moves tell nobody", f.stats(core.NotifyQueueSlack), core.QueueStats{})
	},
}
