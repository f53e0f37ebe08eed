package sqlite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/feedbridge/feedbridge/core"
)

// The due index holds only the insight queue's items: the fair claim's bound queue must still match its
// condition, or every claim would walk the whole table.
func TestFairClaimReadsTheDueIndex(t *testing.T) {
	st := openT(t, filepath.Join(t.TempDir(), "plan.db"))
	for _, c := range []struct {
		q    string
		args []any
	}{
		{fairNextWorkspace, []any{core.InsightQueue, "", int64(1)}},
		{fairWorkspaceHeads, []any{core.InsightQueue, "w", int64(1), 5}},
	} {
		if got := queryPlan(t, st, c.q, c.args...); !strings.HasPrefix(got, "SEARCH ") || !strings.Contains(got, "INDEX queue_items_due (queue=?") {
			t.Errorf("plan of %q: %s", c.q, got)
		}
	}
}
