package postgres

import (
	"context"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// labelKey is the case-insensitive identity of a label: trimmed and Unicode case-folded.
func labelKey(s string) string { return core.Fold(strings.TrimSpace(s)) }

// sortByKey orders items by the folded text, then by each tie-breaker in turn, so that the order does not
// depend on the database's collation (and matches the SQLite store's label_key order).
func sortByKey[T any](items []T, text func(T) string, ties ...func(T) string) {
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if ka, kb := labelKey(text(a)), labelKey(text(b)); ka != kb {
			return ka < kb
		}
		for _, tie := range ties {
			if ta, tb := tie(a), tie(b); ta != tb {
				return ta < tb
			}
		}
		return false
	})
}

// PutLookups inserts the labels that are new (case-insensitively) and returns the stored item of every
// distinct label in the order given.
func (s *Store) PutLookups(ctx context.Context, ws core.ID, kind core.LookupKind, labels []string) ([]core.Lookup, error) {
	var (
		ids, keys, clean []string
		seen             = map[string]bool{}
	)
	for _, l := range labels {
		l = strings.TrimSpace(l)
		k := labelKey(l)
		if l == "" || seen[k] {
			continue
		}
		seen[k] = true
		ids, keys, clean = append(ids, string(core.NewID())), append(keys, k), append(clean, l)
	}
	var out []core.Lookup
	err := s.inTx(ctx, "put lookups", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `
			INSERT INTO lookups (workspace_id, id, kind, label, label_key)
			SELECT $1, u.id, $2, u.label, u.key FROM unnest($3::text[], $4::text[], $5::text[]) AS u(id, label, key)
			ON CONFLICT (workspace_id, kind, label_key) DO NOTHING`, ws, kind, ids, clean, keys); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `
			SELECT l.id, l.label FROM unnest($3::text[]) WITH ORDINALITY AS u(key, n)
			JOIN lookups l ON l.workspace_id = $1 AND l.kind = $2 AND l.label_key = u.key
			ORDER BY u.n`, ws, kind, keys)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, pgx.RowToStructByPos[core.Lookup])
		return err
	})
	return out, err
}

// Lookups lists a workspace's tags or products sorted by label, case-insensitively.
func (s *Store) Lookups(ctx context.Context, ws core.ID, kind core.LookupKind) ([]core.Lookup, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, label FROM lookups WHERE workspace_id = $1 AND kind = $2`, ws, kind)
	if err != nil {
		return nil, fail("lookups", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[core.Lookup])
	if err != nil {
		return nil, fail("lookups", err)
	}
	label := func(l core.Lookup) string { return l.Label }
	sortByKey(out, label, label, func(l core.Lookup) string { return string(l.ID) })
	return out, nil
}

// CreateUser adds a workspace member; a missing workspace is core.ErrNotFound.
func (s *Store) CreateUser(ctx context.Context, ws core.ID, u core.User) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO users (workspace_id, id, name, email) VALUES ($1, $2, $3, $4)`,
		ws, u.ID, u.Name, u.Email)
	return fail("create user", err)
}

// Users lists a workspace's members sorted by name, case-insensitively.
func (s *Store) Users(ctx context.Context, ws core.ID) ([]core.User, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, name, email FROM users WHERE workspace_id = $1`, ws)
	if err != nil {
		return nil, fail("users", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[core.User])
	if err != nil {
		return nil, fail("users", err)
	}
	name := func(u core.User) string { return u.Name }
	sortByKey(out, name, name, func(u core.User) string { return string(u.ID) })
	return out, nil
}

// PutCompany creates the company of a domain, or renames the one that exists; it returns the stored row.
func (s *Store) PutCompany(ctx context.Context, ws core.ID, c core.Company) (core.Company, error) {
	rows, err := s.pool.Query(ctx, `
		INSERT INTO companies AS c (workspace_id, id, name, domain) VALUES ($1, $2, $3, $4)
		ON CONFLICT (workspace_id, domain) DO UPDATE SET name = excluded.name
		RETURNING `+companyCols, ws, c.ID, c.Name, c.Domain)
	if err != nil {
		return core.Company{}, fail("put company", err)
	}
	out, err := pgx.CollectExactlyOneRow(rows, scanCompany)
	return out, fail("put company", err)
}

// Companies lists a workspace's companies sorted by name, case-insensitively.
func (s *Store) Companies(ctx context.Context, ws core.ID) ([]core.Company, error) {
	rows, err := s.pool.Query(ctx, `WITH `+pendingCounts+`
		SELECT c.id, c.name, c.domain, c.feedback_count + coalesce(p.n, 0), c.created_at
		FROM companies c LEFT JOIN p ON p.company_id = c.id WHERE c.workspace_id = $1`, ws)
	if err != nil {
		return nil, fail("companies", err)
	}
	out, err := pgx.CollectRows(rows, scanCompany)
	if err != nil {
		return nil, fail("companies", err)
	}
	sortByKey(out, func(c core.Company) string { return c.Name }, func(c core.Company) string { return c.Domain })
	return out, nil
}
