package slack

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

func TestCommandCreatesRecords(t *testing.T) {
	h := newHarness(t)
	ws := h.workspace("Acme", -1)
	h.start([]map[string]any{entry("acme-slack", ws, "s3cret-one")}, nil)
	tests := []struct {
		name, command, text   string
		typ                   core.RecordType
		title, desc, email    string
		customer, answerParts string
	}{
		{"feedback pipe", "/feedback", "Dark mode | night owls need it", core.RecordFeedback,
			"Dark mode", "night owls need it", "", "", "Saved Feedback “Dark mode” with no customer"},
		{"feedback lines and mailto customer", "/feedback", "<mailto:jane@acme-corp.co.uk|jane@acme-corp.co.uk> Export is slow\nTakes 5 minutes\nfor 10k rows",
			core.RecordFeedback, "Export is slow", "Takes 5 minutes\nfor 10k rows", "jane@acme-corp.co.uk", "Acme Corp",
			"for Acme Corp (jane@acme-corp.co.uk)"},
		{"idea with personal address", "/idea", "jane@gmail.com Offline mode", core.RecordIdea,
			"Offline mode", "", "jane@gmail.com", "", "Saved Idea “Offline mode” for jane@gmail.com"},
		{"escaped forms become text", "/feedback", "<@U024BE7LH|jane> says Q&amp;A is broken | see <https://acme.com/qa|the page> in <#C024BE7LR|support> <!here>",
			core.RecordFeedback, "@jane says Q&A is broken", "see the page (https://acme.com/qa) in #support @here", "", "", "@jane says Q&amp;A is broken"},
		// Descriptions are plain text that never carries a tag into a response (core.StripTags); the
		// ampersand and other text survive.
		{"typed tags never reach a response", "/feedback", "Layout | the &lt;div&gt; is misaligned &amp; &lt;script&gt; too", core.RecordFeedback,
			"Layout", "the  is misaligned &  too", "", "", "Saved Feedback “Layout”"},
		{"title shown escaped", "/idea", "a &lt;b&gt; c", core.RecordIdea, "a <b> c", "", "", "", "“a &lt;b&gt; c”"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answer := h.command("s3cret-one", "T0ACME", tt.command, tt.text)
			if !strings.Contains(answer, tt.answerParts) {
				t.Errorf("answer %q does not contain %q", answer, tt.answerParts)
			}
			rec := h.recordIn(ws, answer)
			got := []string{string(rec.Type), rec.Title, rec.Description, rec.CustomerEmail, rec.Customer, rec.Source, rec.Reporter}
			want := []string{string(tt.typ), tt.title, tt.desc, tt.email, tt.customer, "Slack", "@pat"}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("record field %d = %q, want %q (record %+v)", i, got[i], want[i], rec)
				}
			}
			if !strings.Contains(answer, string(rec.ID)) {
				t.Errorf("answer does not name id %s: %q", rec.ID, answer)
			}
			if rec.CreatedBy != (core.Actor{Kind: core.ActorConnector, Name: "acme-slack"}) {
				t.Errorf("the record's history credits %+v, want the Slack entry", rec.CreatedBy)
			}
		})
	}
}

func TestCommandAnswersWithoutSaving(t *testing.T) {
	h := newHarness(t)
	ws := h.workspace("Acme", -1)
	h.start([]map[string]any{
		entry("acme-slack", ws, "s3cret-one", "commands", map[string]any{"/fb": "feedback", "/idea": "idea"}),
	}, nil)
	tests := []struct{ name, command, text, want string }{
		{"empty feedback", "/fb", "", "`/fb` files customer feedback in feedbridge."},
		{"help", "/fb", "help", "`/fb jane@acme.com Title | description`"},
		{"empty idea without bot token gives usage", "/idea", "  ", "`/idea` files an idea in feedbridge."},
		{"help idea", "/idea", "HELP", "Without ` | `, the first line is the title"},
		{"address without title", "/fb", "jane@acme.com", "Add a title after the customer address."},
		{"unmapped command", "/feedback", "Dark mode", "feedbridge does not know the command `/feedback`."},
		{"title too long", "/fb", strings.Repeat("x", 501), "Nothing was saved: The title has 501 characters; the limit is 500."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := h.command("s3cret-one", "T0ACME", tt.command, tt.text); !strings.Contains(got, tt.want) {
				t.Errorf("answer %q does not contain %q", got, tt.want)
			}
		})
	}
	if n := h.count(ws, core.RecordFeedback) + h.count(ws, core.RecordIdea); n != 0 {
		t.Errorf("%d records created, want none", n)
	}
	if strings.Contains(h.command("s3cret-one", "T0ACME", "/idea", ""), "opens a form") {
		t.Error("usage offers a form although there is no bot token")
	}
}

func TestCommandSignatureChecks(t *testing.T) {
	h := newHarness(t)
	ws := h.workspace("Acme", -1)
	h.start([]map[string]any{entry("acme-slack", ws, "s3cret-one")}, nil)
	form := h.commandForm("T0ACME", "/feedback", "Dark mode")
	body := form.Encode()
	now := time.Now()
	tests := []struct {
		name   string
		body   string
		sign   func(http.Header)
		status int
	}{
		{"tampered body", strings.Replace(body, "Dark", "Evil", 1), func(h http.Header) { signHeaders(h, "s3cret-one", now, body) }, 401},
		{"wrong secret", body, func(h http.Header) { signHeaders(h, "guess", now, body) }, 401},
		{"stale timestamp", body, func(h http.Header) { signHeaders(h, "s3cret-one", now.Add(-5*time.Minute-time.Second), body) }, 401},
		{"replayed timestamp far ahead", body, func(h http.Header) { signHeaders(h, "s3cret-one", now.Add(10*time.Minute), body) }, 401},
		{"missing headers", body, func(http.Header) {}, 401},
		{"missing timestamp", body, func(h http.Header) {
			signHeaders(h, "s3cret-one", now, body)
			h.Del("X-Slack-Request-Timestamp")
		}, 401},
		{"missing signature", body, func(h http.Header) {
			signHeaders(h, "s3cret-one", now, body)
			h.Del("X-Slack-Signature")
		}, 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, h.srv.URL+"/slack/commands", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			tt.sign(req.Header)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
		})
	}
	if n := h.count(ws, core.RecordFeedback); n != 0 {
		t.Errorf("%d records created by rejected requests", n)
	}
	if status, _ := h.post("/slack/commands", "s3cret-one", form, map[string]string{"Content-Type": "application/json"}); status != http.StatusUnsupportedMediaType {
		t.Errorf("JSON body: status %d, want 415", status)
	}
	if status, _ := h.post("/slack/commands", "s3cret-one", form, nil); status != http.StatusOK {
		t.Errorf("the untampered request: status %d", status)
	}
	if n := h.count(ws, core.RecordFeedback); n != 1 {
		t.Errorf("%d records, want 1", n)
	}
}

func TestCommandRetriesCreateOneRecord(t *testing.T) {
	h := newHarness(t)
	ws := h.workspace("Acme", -1)
	h.start([]map[string]any{entry("acme-slack", ws, "s3cret-one")}, nil)

	form := h.commandForm("T0ACME", "/idea", "Dark mode")
	_, first := h.post("/slack/commands", "s3cret-one", form, nil)
	for i := 1; i <= 3; i++ {
		_, again := h.post("/slack/commands", "s3cret-one", form, map[string]string{
			"X-Slack-Retry-Num": strconv.Itoa(i), "X-Slack-Retry-Reason": "http_timeout"})
		if a, b := h.recordIn(ws, ephemeralText(t, first)).ID, h.recordIn(ws, ephemeralText(t, again)).ID; a != b {
			t.Errorf("retry %d made record %s, first was %s", i, b, a)
		}
		if !strings.HasPrefix(ephemeralText(t, again), "Already saved Idea “Dark mode”") {
			t.Errorf("retry answer: %q", again)
		}
	}
	// Retries racing the first attempt.
	race := h.commandForm("T0ACME", "/idea", "Offline mode")
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.post("/slack/commands", "s3cret-one", race, map[string]string{"X-Slack-Retry-Num": strconv.Itoa(i)})
		}()
	}
	wg.Wait()
	if n := h.count(ws, core.RecordIdea); n != 2 {
		t.Errorf("%d ideas, want 2", n)
	}
	if w, _ := h.svc.Workspace(h.ctx, ws); w.IdeasUsed != 2 {
		t.Errorf("ideas used = %d, want 2: a retry must not count against the limit", w.IdeasUsed)
	}
}

func TestSeveralApps(t *testing.T) {
	h := newHarness(t)
	acme, globex, initech := h.workspace("Acme", -1), h.workspace("Globex", -1), h.workspace("Initech", -1)
	h.start([]map[string]any{
		entry("acme", acme, "secret-acme"),
		entry("shared-globex", globex, "secret-shared", "team_id", "T0GLOBEX"),
		entry("shared-initech", initech, "secret-shared", "team_id", "T0INITECH"),
	}, nil)
	tests := []struct {
		name, secret, team string
		ws                 core.ID
	}{
		{"own app", "secret-acme", "T0ANY", acme},
		{"shared app, team one", "secret-shared", "T0GLOBEX", globex},
		{"shared app, team two", "secret-shared", "T0INITECH", initech},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := h.recordIn(tt.ws, h.command(tt.secret, tt.team, "/feedback", "From "+tt.team))
			if rec.Title != "From "+tt.team {
				t.Errorf("title %q", rec.Title)
			}
		})
	}
	if got := h.command("secret-shared", "T0UNKNOWN", "/feedback", "Lost"); got != notConnected {
		t.Errorf("unknown team answer %q", got)
	}
	for _, ws := range []core.ID{acme, globex, initech} {
		if n := h.count(ws, core.RecordFeedback); n != 1 {
			t.Errorf("workspace %s has %d records, want 1", ws, n)
		}
	}
}

// TestCommandRefusals covers the idea limit; the suspended workspace is the conformance suite's.
func TestCommandRefusals(t *testing.T) {
	h := newHarness(t)
	limited := h.workspace("Limited", 1)
	h.start([]map[string]any{entry("limited", limited, "secret-l")}, nil)
	h.command("secret-l", "T1", "/idea", "First idea")
	if got := h.command("secret-l", "T1", "/idea", "Second idea"); got !=
		"Nothing was saved: this feedbridge workspace has reached its idea limit (1 of 1 on the pro plan). An admin can raise it." {
		t.Errorf("idea limit answer %q", got)
	}
	if got := h.command("secret-l", "T1", "/feedback", "Feedback does not count"); !strings.HasPrefix(got, "Saved Feedback") {
		t.Errorf("feedback at the idea limit: %q", got)
	}
	// The refused idea is a refused item of the entry: counted with its reason, no fault.
	if err := h.set.status.Flush(h.ctx, connectors.StateRunning, true); err != nil {
		t.Fatal(err)
	}
	sts, err := h.svc.Connectors(h.ctx, limited)
	if err != nil || len(sts) != 1 {
		t.Fatalf("statuses %+v, %v", sts, err)
	}
	if st := sts[0]; st.Refused != 1 || !strings.Contains(st.LastRefused, "idea limit") || st.LastError != "" {
		t.Errorf("status %+v, want one refused request with its reason and no last_error", st)
	}
}
