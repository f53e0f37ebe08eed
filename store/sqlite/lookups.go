package sqlite

import (
	"context"
	"fmt"

	"github.com/feedbridge/feedbridge/core"
)

// PutLookups adds labels that are new (compared case-insensitively with Unicode folding) and returns the
// stored item for each distinct label, in the order given.
func (s *Store) PutLookups(ctx context.Context, ws core.ID, kind core.LookupKind, labels []string) ([]core.Lookup, error) {
	if kind != core.LookupTag && kind != core.LookupProduct {
		return nil, fmt.Errorf("sqlite: put lookups: unknown kind %q", kind)
	}
	out := []core.Lookup{}
	err := s.write(ctx, "put lookups", func(tx *wtx) error {
		seen := map[string]bool{}
		for _, label := range labels {
			key := core.Fold(label)
			if seen[key] {
				continue
			}
			seen[key] = true
			l := core.Lookup{ID: core.NewID(), Label: label}
			if _, err := tx.ExecContext(ctx, `INSERT INTO lookups(id, workspace_id, kind, label, label_key) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (workspace_id, kind, label_key) DO NOTHING`, l.ID, ws, kind, label, key); err != nil {
				return err
			}
			if err := tx.QueryRowContext(ctx, `SELECT id, label FROM lookups WHERE workspace_id = ? AND kind = ? AND label_key = ?`,
				ws, kind, key).Scan(&l.ID, &l.Label); err != nil {
				return err
			}
			out = append(out, l)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func scanLookup(sc scanner) (core.Lookup, error) {
	var l core.Lookup
	return l, sc.Scan(&l.ID, &l.Label)
}

func (s *Store) Lookups(ctx context.Context, ws core.ID, kind core.LookupKind) ([]core.Lookup, error) {
	rows, err := s.rq.QueryContext(ctx, `SELECT id, label FROM lookups WHERE workspace_id = ? AND kind = ?
		ORDER BY label_key, label, id`, ws, kind)
	if err != nil {
		return nil, s.fail("lookups", err)
	}
	out, err := collect(rows, scanLookup)
	return out, s.fail("lookups", err)
}

func (s *Store) CreateUser(ctx context.Context, ws core.ID, u core.User) error {
	return s.write(ctx, "create user", func(tx *wtx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO users(id, workspace_id, name, name_key, email) VALUES (?, ?, ?, ?, ?)`,
			u.ID, ws, u.Name, core.Fold(u.Name), u.Email)
		return err
	})
}

func (s *Store) Users(ctx context.Context, ws core.ID) ([]core.User, error) {
	rows, err := s.rq.QueryContext(ctx, `SELECT id, name, email FROM users WHERE workspace_id = ? ORDER BY name_key, name, id`, ws)
	if err != nil {
		return nil, s.fail("users", err)
	}
	out, err := collect(rows, func(sc scanner) (core.User, error) {
		var u core.User
		return u, sc.Scan(&u.ID, &u.Name, &u.Email)
	})
	return out, s.fail("users", err)
}

// PutCompany creates the company of a domain, or renames the one that exists (keeping its id).
func (s *Store) PutCompany(ctx context.Context, ws core.ID, c core.Company) (core.Company, error) {
	err := s.write(ctx, "put company", func(tx *wtx) error {
		if err := foldCounts(tx); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO companies(id, workspace_id, name, name_key, domain) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (workspace_id, domain) DO UPDATE SET name = excluded.name, name_key = excluded.name_key`,
			c.ID, ws, c.Name, core.Fold(c.Name), c.Domain); err != nil {
			return err
		}
		var err error
		c, err = scanCompany(tx.QueryRowContext(ctx, `SELECT `+companyCols+` FROM companies WHERE workspace_id = ? AND domain = ?`, ws, c.Domain))
		return err
	})
	if err != nil {
		return core.Company{}, err
	}
	return c, nil
}

func (s *Store) Companies(ctx context.Context, ws core.ID) ([]core.Company, error) {
	var out []core.Company
	err := s.readCompanies(ctx, func(rq queryer, from string) error {
		rows, err := rq.QueryContext(ctx, `SELECT `+companyCols+` FROM `+from+` WHERE workspace_id = ? ORDER BY name_key, domain`, ws)
		if err != nil {
			return err
		}
		out, err = collect(rows, scanCompany)
		return err
	})
	return out, s.fail("companies", err)
}
