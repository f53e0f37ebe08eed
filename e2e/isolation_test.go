package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// absentID is a well-formed id that names nothing.
func absentID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// answer is a response reduced to what a client can tell apart.
type answer struct {
	status int
	body   string
}

func ask(t *testing.T, d *daemon, key, method, path, body string) answer {
	t.Helper()
	req, _ := http.NewRequest(method, d.url(path), strings.NewReader(body))
	req.Header.Set("x-api-key", key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, string(data)}
}

// idSlot is one place of the API that takes an id: a path segment, a query parameter or a body field.
type idSlot struct {
	name         string
	method, path string // path and body hold ID where the id goes
	body         string
}

var idSlots = []idSlot{
	{"record", "GET", "/api/records/ID", ""},
	{"record insights", "GET", "/api/records/ID/insights", ""},
	{"import run", "GET", "/api/imports/ID", ""},
	{"product filter", "GET", "/api/records?product=ID", ""},
	{"user filter", "GET", "/api/records?user=ID", ""},
	{"tag filter", "GET", "/api/records?record_type=Feedback&tags=ID", ""},
	{"cursor", "GET", "/api/records?record_type=Feedback&limit=1&cursor=ID", ""},
	{"idea product", "POST", "/api/records/idea", `{"title":"iso","product":"ID"}`},
	{"idea user", "POST", "/api/records/idea", `{"title":"iso","user":"ID"}`},
	{"idea tags", "POST", "/api/records/idea", `{"title":"iso","tags":["ID"]}`},
	// Records that move; OWNIDEA and OWNFB are records of the asking workspace.
	{"record history", "GET", "/api/records/ID/history", ""},
	{"linked feedback", "GET", "/api/records/ID/feedback", ""},
	{"company filter", "GET", "/api/records?record_type=Feedback&company=ID", ""},
	{"edit", "PATCH", "/api/records/ID", `{"title":"iso"}`},
	{"edit product", "PATCH", "/api/records/OWNIDEA", `{"product":"ID"}`},
	{"edit user", "PATCH", "/api/records/OWNIDEA", `{"user":"ID"}`},
	{"edit tags", "PATCH", "/api/records/OWNIDEA", `{"tags":["ID"]}`},
	{"link feedback", "PUT", "/api/records/ID/links/OWNIDEA", ""},
	{"link target", "PUT", "/api/records/OWNFB/links/ID", ""},
	{"unlink", "DELETE", "/api/records/OWNFB/links/ID", ""},
	{"merge", "POST", "/api/records/ID/merge", `{"into":"OWNIDEA"}`},
	{"merge into", "POST", "/api/records/OWNIDEA/merge", `{"into":"ID"}`},
	{"delete", "DELETE", "/api/records/ID", ""},
}

// Workspace isolation, every id slot of the API × every kind of id of another workspace (record of each
// type, tag, product, user, import run, connector, the workspace itself, a cursor it was issued) × both
// stores: the answer is the same status and the same body, byte for byte once the id is swapped, as for an
// id that names nothing. The lists that take no id show nothing of the other workspace either.
func TestIsolationMatrix(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, storeURL string) {
		e := newEnv(t, storeURL, "")
		wsA, keyA := e.workspace("Alpha")
		wsB, keyB := e.workspace("Bravo")
		labels := func(args ...string) string {
			var out []struct{ ID string }
			if err := json.Unmarshal([]byte(e.cli(append(args, "--json")...)), &out); err != nil || len(out) == 0 {
				t.Fatalf("%v: %v", args, err)
			}
			return out[0].ID
		}
		tagB := labels("tag", "add", "--workspace", wsB, "bravo-secret-tag")
		productB := labels("product", "add", "--workspace", wsB, "Bravo Secret Product")
		userB := labels("user", "add", "--workspace", wsB, "--name", "Bravo Secret User")
		labels("tag", "add", "--workspace", wsA, "alpha-tag")
		csvFile := filepath.Join(e.dir, "bravo.csv")
		if err := os.WriteFile(csvFile, []byte("title,description\nbravo secret import,zebra\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var run struct{ ID string }
		if err := json.Unmarshal([]byte(e.cli("import", "csv", "--workspace", wsB, csvFile, "--json")), &run); err != nil {
			t.Fatal(err)
		}
		inbox := filepath.Join(e.dir, "inbox")
		os.MkdirAll(inbox, 0o755)
		e.configure(storeURL, fmt.Sprintf(`connectors:
  csv:
    - {name: bravo-secret-connector, workspace: %s, schedule: "0 0 1 1 *", path: %s/*.csv, archive_dir: %s/done}
`, wsB, inbox, inbox))
		d := e.start()

		var idea, fb struct{ ID string }
		do(t, "POST", d.url("/api/records/idea"), keyB, fmt.Sprintf(`{"title":"bravo secret idea","description":"zebra","tags":[%q],"product":%q,"user":%q}`, tagB, productB, userB), &idea)
		do(t, "POST", d.url("/api/records/feedback"), keyB, `{"title":"bravo secret feedback","description":"The zebra export crashes every day.","customer_email":"ceo@bravo-secret.example"}`, &fb)
		var ownIdea, ownFB struct{ ID string }
		do(t, "POST", d.url("/api/records/feedback"), keyA, `{"title":"alpha feedback","description":"Alpha likes zebras."}`, &ownFB)
		do(t, "POST", d.url("/api/records/idea"), keyA, `{"title":"alpha idea"}`, &ownIdea)
		// A cursor issued to the other workspace for the same listing.
		for i := 0; i < 2; i++ {
			do(t, "POST", d.url("/api/records/feedback"), keyB, fmt.Sprintf(`{"title":"bravo page %d"}`, i), nil)
		}
		page := do(t, "GET", d.url("/api/records?record_type=Feedback&limit=1"), keyB, "", nil)
		cursorB := page.Header.Get("X-Next-Cursor")
		eventually(t, 30*time.Second, "the other workspace's insights and connector exist", func() bool {
			var ins []any
			var conns []any
			do(t, "GET", d.url("/api/records/"+fb.ID+"/insights"), keyB, "", &ins)
			do(t, "GET", d.url("/api/connectors"), keyB, "", &conns)
			return len(ins) > 0 && len(conns) == 1
		})
		if idea.ID == "" || fb.ID == "" || cursorB == "" {
			t.Fatalf("setup: idea %q feedback %q cursor %q", idea.ID, fb.ID, cursorB)
		}

		foreign := map[string]string{
			"idea": idea.ID, "feedback": fb.ID, "tag": tagB, "product": productB, "user": userB, "import": run.ID,
			"connector": "bravo-secret-connector", "workspace": wsB, "cursor": cursorB,
		}
		// What nothing names, in the same form: a random id, or a random name or cursor-like text.
		absentLike := func(kind, v string) string {
			switch kind {
			case "connector", "cursor":
				b := make([]byte, len(v))
				_, _ = rand.Read(b)
				return strings.ToLower(hex.EncodeToString(b))[:len(v)]
			}
			return absentID()
		}
		cells := 0
		for _, slot := range idSlots {
			for kind, id := range foreign {
				other := absentLike(kind, id)
				put := func(s, v string) string {
					s = strings.NewReplacer("OWNIDEA", ownIdea.ID, "OWNFB", ownFB.ID).Replace(s)
					return strings.ReplaceAll(s, "ID", v)
				}
				got := ask(t, d, keyA, slot.method, put(slot.path, id), put(slot.body, id))
				want := ask(t, d, keyA, slot.method, put(slot.path, other), put(slot.body, other))
				cells++
				norm := strings.ReplaceAll(got.body, id, "<id>")
				if got.status != want.status || norm != strings.ReplaceAll(want.body, other, "<id>") {
					t.Errorf("%s with the other workspace's %s: %d %s\n  an absent one: %d %s", slot.name, kind, got.status, got.body, want.status, want.body)
				}
				if got.status < 400 && slot.method == "GET" && strings.TrimSpace(got.body) != "[]" {
					t.Errorf("%s with the other workspace's %s shows data: %s", slot.name, kind, got.body)
				}
			}
		}
		// The other workspace's records are as they were.
		for _, id := range []string{idea.ID, fb.ID} {
			var rec struct{ Title, Status string }
			do(t, "GET", d.url("/api/records/"+id), keyB, "", &rec)
			if !strings.HasPrefix(rec.Title, "bravo secret") || rec.Status != "Triage" {
				t.Errorf("the other workspace's record %s changed: %+v", id, rec)
			}
		}
		// Lists without ids, and a search for the other workspace's words.
		for _, path := range []string{"/api/records", "/api/records?record_type=Feedback", "/api/records?search=bravo",
			"/api/records?record_type=Feedback&search=zebra", "/api/records/tags", "/api/records/product", "/api/records/users",
			"/api/imports", "/api/connectors", "/api/records/signals", "/api/records/verify"} {
			a := ask(t, d, keyA, "GET", path, "")
			cells++
			if a.status != 200 {
				t.Errorf("%s: %d %s", path, a.status, a.body)
			}
			for _, secret := range append([]string{"bravo", "Bravo", wsB}, idea.ID, fb.ID, tagB, productB, userB, run.ID) {
				if strings.Contains(a.body, secret) {
					t.Errorf("%s shows %q of the other workspace: %s", path, secret, a.body)
				}
			}
		}
		// The same Idempotency-Key in both workspaces makes two records.
		codeB, idB := post(d, keyB, "/api/records/feedback", "shared-key", `{"title":"same key"}`)
		codeA, idA := post(d, keyA, "/api/records/feedback", "shared-key", `{"title":"same key"}`)
		if codeA != 201 || codeB != 201 || idA == idB {
			t.Errorf("shared Idempotency-Key: A %d %s, B %d %s", codeA, idA, codeB, idB)
		}
		figures(t, "id_slots=%d foreign_kinds=%d cells=%d leaks=0", len(idSlots), len(foreign), cells)
	})
}
