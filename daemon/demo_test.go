package daemon

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/config"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// TestSecondDemoSaysHowToGetAKey: a second serve --demo seeds nothing and says how to get a new key (key
// create), since key list cannot give a lost key back. Before the fix it pointed at key list.
func TestSecondDemoSaysHowToGetAKey(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "demo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := core.NewService(st, core.Options{})
	cfg := config.Default()
	var first, second bytes.Buffer
	if err := seedDemo(ctx, svc, &cfg, &first); err != nil || !strings.Contains(first.String(), "fbk_") {
		t.Fatalf("first demo: %v\n%s", err, first.String())
	}
	if err := seedDemo(ctx, svc, &cfg, &second); err != nil {
		t.Fatal(err)
	}
	out := second.String()
	if !strings.Contains(out, "nothing seeded") || !strings.Contains(out, "feedbridge key create --workspace") ||
		strings.Contains(out, "key list") || strings.Contains(out, "fbk_") {
		t.Fatalf("second demo said: %s", out)
	}
}
