package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// ms stores a time as Unix milliseconds.
func ms(t time.Time) int64 { return t.UnixMilli() }

// optMS stores an optional time: NULL when zero.
func optMS(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

// fromMS reads a stored time in UTC.
func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// fromOptMS reads an optional time: zero when NULL.
func fromOptMS(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return fromMS(v.Int64)
}

// nullID stores an optional reference: NULL when empty, so foreign keys allow it.
func nullID(id core.ID) any {
	if id == "" {
		return nil
	}
	return string(id)
}

func (s *Store) CreateWorkspace(ctx context.Context, w core.Workspace) error {
	return s.write(ctx, "create workspace", func(tx *wtx) error {
		num, err := nextWorkspaceNum(tx)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO workspaces(id, name, plan, idea_limit, ideas_used, suspended, created_at, num)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, w.ID, w.Name, w.Plan, w.IdeaLimit, w.IdeasUsed, w.Suspended, ms(w.CreatedAt), num)
		return err
	})
}

const workspaceCols = `id, name, plan, idea_limit, ideas_used, suspended, created_at`

type scanner interface{ Scan(dest ...any) error }

func scanWorkspace(sc scanner) (core.Workspace, error) {
	var (
		w       core.Workspace
		created int64
	)
	err := sc.Scan(&w.ID, &w.Name, &w.Plan, &w.IdeaLimit, &w.IdeasUsed, &w.Suspended, &created)
	w.CreatedAt = fromMS(created)
	return w, err
}

func (s *Store) Workspace(ctx context.Context, id core.ID) (core.Workspace, error) {
	w, err := scanWorkspace(s.rq.QueryRowContext(ctx, `SELECT `+workspaceCols+` FROM workspaces WHERE id = ?`, id))
	return w, s.fail("workspace", err)
}

func (s *Store) Workspaces(ctx context.Context) ([]core.Workspace, error) {
	rows, err := s.rq.QueryContext(ctx, `SELECT `+workspaceCols+` FROM workspaces ORDER BY created_at, id`)
	if err != nil {
		return nil, s.fail("workspaces", err)
	}
	out, err := collect(rows, scanWorkspace)
	return out, s.fail("workspaces", err)
}

// UpdateWorkspace changes name, plan, idea limit and suspension; ideas_used belongs to record creation.
func (s *Store) UpdateWorkspace(ctx context.Context, w core.Workspace) error {
	return s.write(ctx, "update workspace", func(tx *wtx) error {
		res, err := tx.ExecContext(ctx, `UPDATE workspaces SET name = ?, plan = ?, idea_limit = ?, suspended = ? WHERE id = ?`,
			w.Name, w.Plan, w.IdeaLimit, w.Suspended, w.ID)
		return mustChange(res, err)
	})
}

func (s *Store) CreateAPIKey(ctx context.Context, k core.APIKey) error {
	return s.write(ctx, "create api key", func(tx *wtx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO api_keys(id, workspace_id, name, prefix, hash, created_at, revoked_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, k.ID, k.Workspace, k.Name, k.Prefix, k.Hash, ms(k.CreatedAt), optMS(k.RevokedAt))
		return err
	})
}

const keyCols = `k.id, k.workspace_id, k.name, k.prefix, k.hash, k.created_at, k.revoked_at`

func scanKey(sc scanner, extra ...any) (core.APIKey, error) {
	var (
		k       core.APIKey
		created int64
		revoked sql.NullInt64
	)
	err := sc.Scan(append([]any{&k.ID, &k.Workspace, &k.Name, &k.Prefix, &k.Hash, &created, &revoked}, extra...)...)
	k.CreatedAt, k.RevokedAt = fromMS(created), fromOptMS(revoked)
	return k, err
}

func (s *Store) APIKeys(ctx context.Context, ws core.ID) ([]core.APIKey, error) {
	rows, err := s.rq.QueryContext(ctx, `SELECT `+keyCols+` FROM api_keys k WHERE k.workspace_id = ? ORDER BY k.created_at, k.id`, ws)
	if err != nil {
		return nil, s.fail("api keys", err)
	}
	out, err := collect(rows, func(sc scanner) (core.APIKey, error) { return scanKey(sc) })
	return out, s.fail("api keys", err)
}

// RevokeAPIKey stamps the revocation once; revoking a revoked key keeps the first time.
func (s *Store) RevokeAPIKey(ctx context.Context, keyID core.ID, at time.Time) error {
	return s.write(ctx, "revoke api key", func(tx *wtx) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?`, ms(at), keyID)
		return mustChange(res, err)
	})
}

func (s *Store) KeyByHash(ctx context.Context, hash string) (core.APIKey, core.Workspace, error) {
	var (
		w       core.Workspace
		created int64
	)
	row := s.rq.QueryRowContext(ctx, `SELECT `+keyCols+`, w.id, w.name, w.plan, w.idea_limit, w.ideas_used, w.suspended, w.created_at
		FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE k.hash = ? AND k.revoked_at IS NULL`, hash)
	k, err := scanKey(row, &w.ID, &w.Name, &w.Plan, &w.IdeaLimit, &w.IdeasUsed, &w.Suspended, &created)
	if err != nil {
		return core.APIKey{}, core.Workspace{}, s.fail("key by hash", err)
	}
	w.CreatedAt = fromMS(created)
	return k, w, nil
}

// mustChange turns "no row matched" into sql.ErrNoRows, which fail reports as core.ErrNotFound.
func mustChange(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err == nil && n == 0 {
		return sql.ErrNoRows
	}
	return err
}

// collect scans every row; an empty result is an empty, non-nil slice (the API prints [] not null).
func collect[T any](rows *sql.Rows, scan func(scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
