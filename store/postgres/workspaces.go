package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

const workspaceCols = `id, name, plan, idea_limit, ideas_used, suspended, created_at`

func scanWorkspace(row pgx.Row) (core.Workspace, error) {
	var w core.Workspace
	err := row.Scan(&w.ID, &w.Name, &w.Plan, &w.IdeaLimit, &w.IdeasUsed, &w.Suspended, &w.CreatedAt)
	w.CreatedAt = ms(w.CreatedAt)
	return w, err
}

// CreateWorkspace inserts a workspace; an id in use is core.ErrConflict.
func (s *Store) CreateWorkspace(ctx context.Context, w core.Workspace) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO workspaces (`+workspaceCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		w.ID, w.Name, w.Plan, w.IdeaLimit, w.IdeasUsed, w.Suspended, ms(w.CreatedAt))
	return fail("create workspace", err)
}

// Workspace returns one workspace or core.ErrNotFound.
func (s *Store) Workspace(ctx context.Context, id core.ID) (core.Workspace, error) {
	w, err := scanWorkspace(s.pool.QueryRow(ctx, `SELECT `+workspaceCols+` FROM workspaces WHERE id = $1`, id))
	return w, fail("workspace", err)
}

// Workspaces lists every workspace, oldest first.
func (s *Store) Workspaces(ctx context.Context) ([]core.Workspace, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+workspaceCols+` FROM workspaces ORDER BY created_at, id`)
	if err != nil {
		return nil, fail("workspaces", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.Workspace, error) { return scanWorkspace(r) })
	return out, fail("workspaces", err)
}

// UpdateWorkspace changes name, plan, idea limit and suspension; ideas_used is the store's own counter.
func (s *Store) UpdateWorkspace(ctx context.Context, w core.Workspace) error {
	tag, err := s.pool.Exec(ctx, `UPDATE workspaces SET name = $2, plan = $3, idea_limit = $4, suspended = $5 WHERE id = $1`,
		w.ID, w.Name, w.Plan, w.IdeaLimit, w.Suspended)
	if err == nil && tag.RowsAffected() == 0 {
		err = pgx.ErrNoRows
	}
	return fail("update workspace", err)
}

const keyCols = `id, workspace_id, name, prefix, hash, created_at, revoked_at`

func scanKey(row pgx.Row, extra ...any) (core.APIKey, error) {
	var (
		k       core.APIKey
		revoked *time.Time
	)
	err := row.Scan(append([]any{&k.ID, &k.Workspace, &k.Name, &k.Prefix, &k.Hash, &k.CreatedAt, &revoked}, extra...)...)
	k.CreatedAt, k.RevokedAt = ms(k.CreatedAt), fromOpt(revoked)
	return k, err
}

// CreateAPIKey stores a key (its hash); a missing workspace is core.ErrNotFound.
func (s *Store) CreateAPIKey(ctx context.Context, k core.APIKey) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO api_keys (`+keyCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		k.ID, k.Workspace, k.Name, k.Prefix, k.Hash, ms(k.CreatedAt), optTime(k.RevokedAt))
	return fail("create api key", err)
}

// APIKeys lists a workspace's keys, oldest first, revoked ones included.
func (s *Store) APIKeys(ctx context.Context, ws core.ID) ([]core.APIKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+keyCols+` FROM api_keys WHERE workspace_id = $1 ORDER BY created_at, id`, ws)
	if err != nil {
		return nil, fail("api keys", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.APIKey, error) { return scanKey(r) })
	return out, fail("api keys", err)
}

// RevokeAPIKey stamps a key as revoked; revoking twice keeps the first time. Unknown id: core.ErrNotFound.
func (s *Store) RevokeAPIKey(ctx context.Context, keyID core.ID, at time.Time) error {
	tag, err := s.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1`, keyID, ms(at))
	if err == nil && tag.RowsAffected() == 0 {
		err = pgx.ErrNoRows
	}
	return fail("revoke api key", err)
}

// KeyByHash finds an active key and its workspace in one round trip.
func (s *Store) KeyByHash(ctx context.Context, hash string) (core.APIKey, core.Workspace, error) {
	var w core.Workspace
	k, err := scanKey(s.pool.QueryRow(ctx, `
		SELECT k.id, k.workspace_id, k.name, k.prefix, k.hash, k.created_at, k.revoked_at,
		       w.id, w.name, w.plan, w.idea_limit, w.ideas_used, w.suspended, w.created_at
		FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
		WHERE k.hash = $1 AND k.revoked_at IS NULL`, hash),
		&w.ID, &w.Name, &w.Plan, &w.IdeaLimit, &w.IdeasUsed, &w.Suspended, &w.CreatedAt)
	if err != nil {
		return core.APIKey{}, core.Workspace{}, fail("key by hash", err)
	}
	w.CreatedAt = ms(w.CreatedAt)
	return k, w, nil
}
