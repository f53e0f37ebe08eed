package sqlite

import (
	"path/filepath"
	"strconv"
	"testing"
)

// TestWriteBindsEachStatementOnce: a cached statement run again in the same transaction reuses its
// binding to the transaction, a later transaction binds it afresh, and a transaction of more different
// statements than it keeps bound still runs every one of them.
func TestWriteBindsEachStatementOnce(t *testing.T) {
	st := openT(t, filepath.Join(t.TempDir(), "b.db"))
	ctx := t.Context()

	queries := make([]string, maxBound+8)
	for i := range queries {
		queries[i] = `SELECT ? + ` + strconv.Itoa(i)
	}
	run := func(tx *wtx) error {
		for round := range 2 {
			for i, q := range queries {
				var got int
				if err := tx.QueryRowContext(ctx, q, round).Scan(&got); err != nil {
					return err
				}
				if got != round+i {
					t.Errorf("%s with %d = %d, want %d", q, round, got, round+i)
				}
			}
		}
		return nil
	}
	// The first write runs them unprepared and leaves them prepared in the writer's cache.
	if err := st.write(ctx, "warm", run); err != nil {
		t.Fatal(err)
	}

	var first *wtx
	var firstBound [2]any
	if err := st.write(ctx, "bind", func(tx *wtx) error {
		first = tx
		a, err := tx.stmt(queries[0])
		if err != nil {
			return err
		}
		b, err := tx.stmt(queries[0])
		if err != nil {
			return err
		}
		if a == nil || a != b {
			t.Errorf("the same statement twice in one transaction: bound as %p and %p, want one binding", a, b)
		}
		firstBound = [2]any{a, b}
		return run(tx)
	}); err != nil {
		t.Fatal(err)
	}
	if first.nbound != maxBound {
		t.Errorf("%d statements kept bound, want %d", first.nbound, maxBound)
	}

	if err := st.write(ctx, "again", func(tx *wtx) error {
		a, err := tx.stmt(queries[0])
		if err != nil {
			return err
		}
		if any(a) == firstBound[0] {
			t.Error("a later transaction reuses the binding of one that has ended")
		}
		return run(tx)
	}); err != nil {
		t.Fatal(err)
	}
}
