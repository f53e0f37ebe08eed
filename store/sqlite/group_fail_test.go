package sqlite

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestGroupFailingWriteIsUndoneAlone: writes queued together, the first and a later one failing after
// they have written: each failing write's rows and commit hooks are gone, and every other write's stand,
// whether it ran before or after a failing one.
func TestGroupFailingWriteIsUndoneAlone(t *testing.T) {
	st := openT(t, filepath.Join(t.TempDir(), "g.db"))
	ctx := t.Context()
	if err := st.write(ctx, "table", func(tx *wtx) error {
		_, err := tx.raw.ExecContext(tx.ctx, `CREATE TABLE scratch (name TEXT NOT NULL)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("failed after writing")
	queued := []string{"fail1", "a", "b", "fail2", "c"}
	var (
		mu    sync.Mutex
		hooks []string
	)
	errs := make([]error, len(queued))
	release := holdWriter(t, st)
	var wg sync.WaitGroup
	for i, name := range queued {
		wg.Go(func() {
			errs[i] = st.write(ctx, name, func(tx *wtx) error {
				if _, err := tx.ExecContext(ctx, `INSERT INTO scratch (name) VALUES (?)`, name); err != nil {
					return err
				}
				tx.onCommit(func() {
					mu.Lock()
					hooks = append(hooks, name)
					mu.Unlock()
				})
				if name[0] == 'f' {
					return failed
				}
				return nil
			})
		})
		for st.queueLen() < i+1 { // queue them in this order
			time.Sleep(time.Millisecond)
		}
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, name := range queued {
		if want := name[0] == 'f'; errors.Is(errs[i], failed) != want || (!want && errs[i] != nil) {
			t.Errorf("write %s: %v", name, errs[i])
		}
	}
	rows, err := st.w.QueryContext(ctx, `SELECT name FROM scratch ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	var stored []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		stored = append(stored, name)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "c"}; fmt.Sprint(stored) != fmt.Sprint(want) {
		t.Errorf("rows %v, want %v: a failing write's rows stayed, or another write's went with them", stored, want)
	}
	slices.Sort(hooks)
	if want := []string{"a", "b", "c"}; fmt.Sprint(hooks) != fmt.Sprint(want) {
		t.Errorf("commit hooks ran for %v, want %v", hooks, want)
	}
}
