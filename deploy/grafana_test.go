package deploy

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

type dashboard struct {
	UID    string `json:"uid"`
	Title  string `json:"title"`
	Panels []struct {
		ID      int    `json:"id"`
		Type    string `json:"type"`
		Title   string `json:"title"`
		GridPos struct{ H, W, X, Y int }
		Targets []struct {
			RefID string `json:"refId"`
			Expr  string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

var metricName = regexp.MustCompile(`feedbridge_[a-z_]+`)

// documentedMetrics reads the metric table of docs/operations.md, the single list the code, the dashboard
// and operators share.
func documentedMetrics(t *testing.T) []string {
	t.Helper()
	text := readFile(t, "../docs/operations.md")
	_, rest, ok := strings.Cut(text, "<!-- metrics:begin -->")
	table, _, ok2 := strings.Cut(rest, "<!-- metrics:end -->")
	if !ok || !ok2 {
		t.Fatal("docs/operations.md lacks the metrics:begin/end markers")
	}
	var out []string
	for _, line := range strings.Split(table, "\n") {
		if m := metricName.FindString(line); m != "" && strings.HasPrefix(line, "| `") {
			out = append(out, m)
		}
	}
	return out
}

func TestGrafanaDashboard(t *testing.T) {
	b, err := os.ReadFile("grafana/feedbridge.json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	var d dashboard
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("parse: %v", err)
	}
	if d.UID == "" || d.Title == "" {
		t.Error("dashboard needs a uid and a title for provisioning")
	}

	documented := documentedMetrics(t)
	used := map[string]bool{}
	ids := map[int]bool{}
	type cell struct{ x, y int }
	taken := map[cell]string{}
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d used twice", p.ID)
		}
		ids[p.ID] = true
		for x := p.GridPos.X; x < p.GridPos.X+p.GridPos.W; x++ {
			for y := p.GridPos.Y; y < p.GridPos.Y+p.GridPos.H; y++ {
				if other, ok := taken[cell{x, y}]; ok {
					t.Errorf("panels %q and %q overlap", other, p.Title)
				}
				taken[cell{x, y}] = p.Title
			}
		}
		if p.GridPos.X+p.GridPos.W > 24 {
			t.Errorf("panel %q is wider than the grid", p.Title)
		}
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			if strings.TrimSpace(tg.Expr) == "" {
				t.Errorf("panel %q: empty query %s", p.Title, tg.RefID)
			}
			if strings.Count(tg.Expr, "(") != strings.Count(tg.Expr, ")") || strings.Count(tg.Expr, "{") != strings.Count(tg.Expr, "}") {
				t.Errorf("panel %q: unbalanced query %s", p.Title, tg.Expr)
			}
			for _, m := range metricName.FindAllString(tg.Expr, -1) {
				base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m, "_bucket"), "_sum"), "_count")
				if !slices.Contains(documented, base) && !slices.Contains(documented, m) {
					t.Errorf("panel %q uses %s, which docs/operations.md does not list", p.Title, m)
				}
				used[base] = true
			}
		}
	}
	for _, m := range documented {
		if !used[m] {
			t.Errorf("metric %s is documented but no panel shows it", m)
		}
	}
}
