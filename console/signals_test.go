package console_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// extract completes every queued insight job with one insight naming the themes given for its record
// (none for a record not in themes).
func (e *env) extract(themes map[core.ID][]string) {
	e.t.Helper()
	st := e.svc.Store()
	jobs, err := st.ClaimInsightJobs(e.ctx, "test", 1000, time.Minute)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, j := range jobs {
		var ins []core.Insight
		if ts, ok := themes[j.RecordID]; ok {
			ins = []core.Insight{{ID: core.NewID(), Workspace: j.Workspace, RecordID: j.RecordID, Kind: "request",
				Summary: "s", Quote: "q", Sentiment: "negative", SentimentScore: -0.5, Themes: ts, Tags: []string{},
				Extractor: "builtin", CreatedAt: e.svc.Now()}}
		}
		if err := st.CompleteInsightJob(e.ctx, j, "test", ins); err != nil {
			e.t.Fatal(err)
		}
	}
}

var chartLabel = regexp.MustCompile(`role="img" aria-label="([^"]*)"`)

func TestSignalsPage(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		other := e.workspace("Other")
		theirs := e.feedback(other.ID, "Theirs", "text")
		ws := e.ws.ID
		a, b, c := e.feedback(ws, "Export A", "text"), e.feedback(ws, "Export B", "text"), e.feedback(ws, "Slow UI", "text")
		e.extract(map[core.ID][]string{a.ID: {"export", hostile}, b.ID: {"export"}, c.ID: {"ui"}, theirs.ID: {"secret plan"}})
		_, viewer := e.member(ws, "vi@acme.com", core.RoleViewer)

		res := viewer.get("/signals")
		wantStatus(t, "signals", res, http.StatusOK)
		for _, want := range []string{`<a href="/inbox?theme=export">export</a>`, "2 insights", `<a href="/inbox?theme=ui">ui</a>`,
			"&lt;img src=x onerror=alert(1)&gt;", `aria-current="page">30 days`, "/records/" + string(a.ID)} {
			if !strings.Contains(res.body, want) {
				t.Errorf("the signals page lacks %q", want)
			}
		}
		if strings.Contains(res.body, "secret plan") || strings.Contains(res.body, "<img") {
			t.Errorf("the page shows another workspace's theme or markup:\n%s", res.body)
		}
		labels := chartLabel.FindAllStringSubmatch(res.body, -1)
		if len(labels) != 3 {
			t.Fatalf("want a chart per theme, got %d", len(labels))
		}
		// Every record is from now: the last of 15 bars holds the count, the others nothing.
		want := `Insights naming &#34;export&#34; per 2 days over the last 30 days, oldest first: ` + strings.Repeat("0, ", 14) + "2."
		if labels[0][1] != want {
			t.Errorf("the first chart's text is %q, want %q", labels[0][1], want)
		}

		res = viewer.get("/signals?window=7")
		wantStatus(t, "a week", res, http.StatusOK)
		if !strings.Contains(res.body, "per day over the last 7 days, oldest first: 0, 0, 0, 0, 0, 0, 2.") {
			t.Errorf("the week's chart is wrong:\n%s", res.body)
		}
		wantStatus(t, "a window not offered", viewer.get("/signals?window=5"), http.StatusBadRequest)

		// A theme opens the inbox filtered to the feedback that names it.
		res = viewer.get("/inbox?theme=export")
		wantStatus(t, "inbox by theme", res, http.StatusOK)
		if !strings.Contains(res.body, "Export A") || !strings.Contains(res.body, "Export B") || strings.Contains(res.body, "Slow UI") {
			t.Errorf("the inbox by theme shows the wrong rows:\n%s", res.body)
		}
		res = viewer.get("/inbox?theme=ui")
		if strings.Contains(res.body, "Export A") || !strings.Contains(res.body, "Slow UI") {
			t.Errorf("the inbox by theme ui shows the wrong rows")
		}
	})
}

func TestSignalsEmptyAndSignedOut(t *testing.T) {
	e := newEnv(t, backends()["sqlite"](t))
	res := e.browser().get("/signals")
	if res.status != http.StatusSeeOther || !strings.HasPrefix(res.header.Get("Location"), "/signin") {
		t.Errorf("signed out: %d %s", res.status, res.header.Get("Location"))
	}
	_, viewer := e.member(e.ws.ID, "vi@acme.com", core.RoleViewer)
	if res = viewer.get("/signals"); res.status != http.StatusOK || !strings.Contains(res.body, "No insight names a theme") {
		t.Errorf("an empty workspace's signals say nothing useful: %d\n%s", res.status, res.body)
	}
}
