package storetest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

var textTests = map[string]func(t *testing.T, f *fixture){
	// Whatever bytes reach the store either come back exactly or are refused as a validation error (a
	// 400), never an internal error: SQLite keeps NUL and invalid UTF-8, PostgreSQL refuses them.
	"AwkwardTextRoundTripsOrIsRefused": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		cases := []struct{ name, title, desc string }{
			{"emoji and scripts", "🚀 日本語 עברית", "Ünïcode ß Σ 👍🏽"},
			{"long description", "long", strings.Repeat("lorem ipsum ", core.MaxDescription/12)},
			{"nul byte", "nul\x00byte", "a\x00b"},
			{"invalid utf-8", "bad \xff\xfe bytes", "\xc3\x28"},
			{"quotes and backslashes", `O'Brien "x" \n \\`, `'; DROP TABLE records; --`},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				res, err := f.svc.Submit(f.ctx, ws, core.Submission{Type: core.RecordFeedback, Title: c.title, Description: c.desc})
				var ve *core.ValidationError
				if errors.As(err, &ve) {
					return
				}
				noErr(t, "submit", err)
				got, err := f.st.Record(f.ctx, ws, res.Record.ID)
				noErr(t, "read", err)
				equal(t, "read back", got, res.Record)
			})
		}
	},
	// Every stored time comes back in UTC at millisecond precision, whatever zone and precision went in.
	"TimesAreUTCMilliseconds": func(t *testing.T, f *fixture) {
		ws := f.workspace("A", 0).ID
		zone := time.FixedZone("UTC+5:45", 5*3600+45*60)
		in := time.Date(2024, 3, 1, 10, 20, 30, 123456789, zone)
		want := in.UTC().Truncate(time.Millisecond)
		rec := f.submit(ws, core.Submission{Type: core.RecordFeedback, Title: "dated", CreatedAt: in}).Record
		got, err := f.st.Record(f.ctx, ws, rec.ID)
		noErr(t, "read", err)
		equal(t, "created at", got.CreatedAt, want)
		run := core.ImportRun{ID: core.NewID(), Workspace: ws, Connector: "cli", File: "x.csv", Status: core.ImportSucceeded,
			StartedAt: in, FinishedAt: in.Add(time.Second)}
		noErr(t, "put run", f.st.PutImportRun(f.ctx, run))
		r, err := f.st.ImportRun(f.ctx, ws, run.ID)
		noErr(t, "read run", err)
		equal(t, "run times", [2]time.Time{r.StartedAt, r.FinishedAt}, [2]time.Time{want, want.Add(time.Second)})
		noErr(t, "status", f.st.PutConnectorStatus(f.ctx, core.ConnectorStatus{Workspace: ws, Name: "n", Kind: "csv",
			State: "ok", LastSuccessAt: in, UpdatedAt: in}))
		sts, err := f.st.ConnectorStatuses(f.ctx, ws)
		noErr(t, "statuses", err)
		equal(t, "status times", [2]time.Time{sts[0].LastSuccessAt, sts[0].UpdatedAt}, [2]time.Time{want, want})
	},
}
