package storetest

import (
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

var recordTests = map[string]func(t *testing.T, f *fixture){
	"CreateAndRead": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		tags := f.lookups(ws, core.LookupTag, "Bug", "Perf")
		prod := f.lookups(ws, core.LookupProduct, "Web App")[0]
		user := f.user(ws, "Ada Lovelace")
		res := f.submit(ws, core.Submission{
			Type: core.RecordIdea, Title: "  Dark mode ", Description: "<p>Please <b>add</b> it</p><script>x()</script>",
			CustomerEmail: "Jane@Acme-Corp.co.uk", CustomerName: "Jane", Source: "e-mail", ProductID: prod,
			AssigneeID: user, TagIDs: []core.ID{tags[1], tags[0], tags[1]}, Reporter: "bot",
		})
		rec := res.Record
		if !res.Created {
			t.Fatal("a new record came back with created=false")
		}
		want := core.Record{
			ID: rec.ID, Workspace: ws, Type: core.RecordIdea, Title: "Dark mode", DescriptionHTML: "<p>Please <b>add</b> it</p>",
			Description: "Please add it", Status: core.StatusTriage, AssigneeID: user, Assignee: "Ada Lovelace",
			ProductID: prod, Product: "Web App", TagIDs: []core.ID{tags[1], tags[0]}, Tags: []string{"Perf", "Bug"},
			Source: "Email", CustomerEmail: "Jane@Acme-Corp.co.uk", Customer: "Acme Corp", CompanyID: rec.CompanyID,
			ContactID: rec.ContactID, Reporter: "bot", CreatedAt: f.clock.Now(), UpdatedAt: f.clock.Now(),
			CustomerName: "Jane", Links: []core.ID{}, Accounts: []string{"Acme Corp"}, CreatedBy: core.Actor{Kind: core.ActorSystem},
		}
		if rec.CompanyID == "" || rec.ContactID == "" {
			t.Fatalf("contact and company ids missing: %+v", rec)
		}
		equal(t, "created record", rec, want)
		got, err := f.st.Record(f.ctx, ws, rec.ID)
		noErr(t, "read", err)
		equal(t, "read record", got, want)
		listed := f.records(ws, core.RecordIdea)
		equal(t, "listed record", listed, []core.Record{want})
	},
	"EmptyRecordHasEmptySlices": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		rec := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "bare"}).Record
		got, err := f.st.Record(f.ctx, ws, rec.ID)
		noErr(t, "read", err)
		equal(t, "created", rec, got)
		if got.TagIDs == nil || got.Tags == nil || len(got.Tags) != 0 {
			t.Fatalf("want empty, non-nil tag slices: %#v %#v", got.TagIDs, got.Tags)
		}
		equal(t, "no customer", [4]string{got.Customer, got.CustomerEmail, string(got.CompanyID), string(got.ContactID)}, [4]string{})
	},
	"ReadScoped": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		rec := f.feedback(a, "mine", "")
		_, err := f.st.Record(f.ctx, b, rec.ID)
		wantErr(t, "record of another workspace", err, core.ErrNotFound)
		_, err = f.st.Record(f.ctx, a, core.NewID())
		wantErr(t, "unknown record", err, core.ErrNotFound)
		equal(t, "b lists nothing", len(f.records(b, core.RecordFeedback)), 0)
	},
	"ReferencedIDsOfAnotherWorkspace": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 5), f.workspace("B", 0)
		okTag := f.lookups(a.ID, core.LookupTag, "ok")[0]
		tag := f.lookups(b.ID, core.LookupTag, "theirs")[0]
		prod := f.lookups(b.ID, core.LookupProduct, "theirs")[0]
		aTagAsProduct := f.lookups(a.ID, core.LookupTag, "not a product")[0]
		user := f.user(b.ID, "Them")
		cases := []struct {
			name  string
			sub   core.Submission
			field string
			id    core.ID
		}{
			{"tag", core.Submission{TagIDs: []core.ID{okTag, tag}}, "tag", tag},
			{"product", core.Submission{ProductID: prod}, "product", prod},
			{"tag used as product", core.Submission{ProductID: aTagAsProduct}, "product", aTagAsProduct},
			{"user", core.Submission{AssigneeID: user}, "user", user},
			{"never existed", core.Submission{TagIDs: []core.ID{"0123456789abcdef01234567"}}, "tag", "0123456789abcdef01234567"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				c.sub.Type, c.sub.Title, c.sub.CountsAgainstLimit = core.RecordIdea, "refs", true
				c.sub.CustomerEmail = "new@newco.com"
				c.sub.Checkpoint = &core.Checkpoint{Name: "refs", Value: c.name}
				_, err := f.svc.Submit(f.ctx, a.ID, c.sub)
				wantUnknownID(t, err, c.field, c.id)
			})
		}
		equal(t, "nothing written", len(f.records(a.ID, core.RecordIdea)), 0)
		w, err := f.st.Workspace(f.ctx, a.ID)
		noErr(t, "workspace", err)
		equal(t, "no idea counted", w.IdeasUsed, 0)
		cs, err := f.st.Companies(f.ctx, a.ID)
		noErr(t, "companies", err)
		equal(t, "no company created", len(cs), 0)
		cp, err := f.st.Checkpoint(f.ctx, a.ID, "refs")
		noErr(t, "checkpoint", err)
		equal(t, "no checkpoint", cp, "")
	},
	"UnknownWorkspace": func(t *testing.T, f *fixture) {
		_, err := f.svc.Submit(f.ctx, core.NewID(), core.Submission{Type: core.RecordIdea, Title: "x"})
		wantErr(t, "record of unknown workspace", err, core.ErrNotFound)
	},
	"ContactAndCompany": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		_, err := f.st.PutCompany(f.ctx, a, core.Company{ID: core.NewID(), Name: "ACME Inc.", Domain: "acme.com"})
		noErr(t, "put company", err)
		sub := func(email, name string) core.Submission {
			return core.Submission{Type: core.RecordFeedback, Title: "hi", CustomerEmail: email, CustomerName: name}
		}
		first := f.submit(a, sub("jane@eu.mail.acme.com", "")).Record
		equal(t, "existing company keeps its name", first.Customer, "ACME Inc.")
		second := f.submit(a, sub("JANE@EU.MAIL.ACME.COM", "Jane Doe")).Record
		equal(t, "same contact, matched case-insensitively", second.ContactID, first.ContactID)
		equal(t, "email echoed as given", second.CustomerEmail, "JANE@EU.MAIL.ACME.COM")
		equal(t, "same company", second.CompanyID, first.CompanyID)
		colleague := f.submit(a, sub("bob@acme.com", "Bob")).Record
		equal(t, "one company per domain", colleague.CompanyID, first.CompanyID)
		if colleague.ContactID == first.ContactID {
			t.Fatal("two addresses share a contact")
		}
		newco := f.submit(a, sub("x@blue-sky.co.uk", "")).Record
		equal(t, "new company named from the domain", newco.Customer, "Blue Sky")
		personal := f.submit(a, sub("someone@gmail.com", "Someone")).Record
		equal(t, "personal mailbox: contact without company", [2]string{personal.Customer, string(personal.CompanyID)}, [2]string{})
		if personal.ContactID == "" {
			t.Fatal("personal mailbox got no contact")
		}
		cs, err := f.st.Companies(f.ctx, a)
		noErr(t, "companies", err)
		equal(t, "companies", len(cs), 2)
		other := f.submit(b, sub("jane@eu.mail.acme.com", "")).Record
		if other.ContactID == first.ContactID || other.CompanyID == first.CompanyID {
			t.Fatal("another workspace reused a contact or company")
		}
		equal(t, "another workspace names its own company", other.Customer, "Acme")
		renamed, err := f.svc.RenameCompany(f.ctx, a, "acme.com", "Acme Worldwide")
		noErr(t, "rename", err)
		got, err := f.st.Record(f.ctx, a, first.ID)
		noErr(t, "read", err)
		equal(t, "records show the company's current name", got.Customer, renamed.Name)
	},
	"DedupKey": func(t *testing.T, f *fixture) {
		a, b := f.workspace("A", 0).ID, f.workspace("B", 0).ID
		sub := core.Submission{Type: core.RecordFeedback, Title: "from slack", DedupKey: "slack:C1:123.456"}
		first := f.submit(a, sub)
		sub.Title = "edited"
		sub.Checkpoint = &core.Checkpoint{Name: "slack", Value: "after-duplicate"}
		again := f.submit(a, sub)
		if again.Created {
			t.Fatal("a repeated dedup key created a record")
		}
		equal(t, "the first record comes back", again.Record, first.Record)
		cp, err := f.st.Checkpoint(f.ctx, a, "slack")
		noErr(t, "checkpoint", err)
		equal(t, "a duplicate still advances the checkpoint", cp, "after-duplicate")
		theirs := f.submit(b, sub)
		if !theirs.Created || theirs.Record.ID == first.Record.ID {
			t.Fatal("dedup keys leak across workspaces")
		}
		equal(t, "one record in A", len(f.records(a, core.RecordFeedback)), 1)
	},
	"CheckpointWithRecord": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 1).ID
		f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "m1", Checkpoint: &core.Checkpoint{Name: "imap:inbox", Value: "uid:1"}})
		cp, err := f.st.Checkpoint(f.ctx, ws, "imap:inbox")
		noErr(t, "checkpoint", err)
		equal(t, "checkpoint written with the record", cp, "uid:1")
		f.submit(ws, core.Submission{Type: core.RecordIdea, Title: "first idea", CountsAgainstLimit: true})
		failing := []core.Submission{
			{Type: core.RecordIdea, Title: "over the limit", CountsAgainstLimit: true},
			{Type: core.RecordFeedback, Title: "bad tag", TagIDs: []core.ID{core.NewID()}},
		}
		for _, sub := range failing {
			sub.Checkpoint = &core.Checkpoint{Name: "imap:inbox", Value: "uid:2"}
			if _, err := f.svc.Submit(f.ctx, ws, sub); err == nil {
				t.Fatalf("%s: want an error", sub.Title)
			}
			cp, err := f.st.Checkpoint(f.ctx, ws, "imap:inbox")
			noErr(t, "checkpoint", err)
			equal(t, sub.Title+": a failing record writes no checkpoint", cp, "uid:1")
		}
	},
	"InsightJobEnqueued": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		cases := []struct {
			sub  core.Submission
			jobs int
		}{
			{core.Submission{Type: core.RecordFeedback, Title: "with text", Description: "The export is slow."}, 1},
			{core.Submission{Type: core.RecordFeedback, Title: "no text"}, 0},
			{core.Submission{Type: core.RecordFeedback, Title: "markup only", Description: "<p></p>"}, 0},
			{core.Submission{Type: core.RecordIdea, Title: "idea", Description: "Add dark mode."}, 0},
		}
		for _, c := range cases {
			t.Run(c.sub.Title, func(t *testing.T) {
				before, err := f.st.InsightQueueDepth(f.ctx)
				noErr(t, "depth", err)
				rec := f.submit(ws, c.sub).Record
				after, err := f.st.InsightQueueDepth(f.ctx)
				noErr(t, "depth", err)
				equal(t, "jobs queued", after-before, c.jobs)
				if c.jobs == 0 {
					return
				}
				jobs, err := f.st.ClaimInsightJobs(f.ctx, "w", 10, time.Minute)
				noErr(t, "claim", err)
				if len(jobs) != 1 || jobs[0].RecordID != rec.ID || jobs[0].Workspace != ws {
					t.Fatalf("want the record's job, got %+v", jobs)
				}
				noErr(t, "complete", f.st.CompleteInsightJob(f.ctx, jobs[0], "w", nil))
			})
		}
	},
}
