package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// refs are the labels of the ids a record refers to.
type refs struct {
	assignee, product string
	tags              map[core.ID]string
}

func (r refs) tagLabels(ids []core.ID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = r.tags[id]
	}
	return out
}

// resolveRefs checks that a record's assignee, product and tags are the workspace's, inside the write
// transaction, and returns their labels.
func resolveRefs(ctx context.Context, tx pgx.Tx, ws, assignee, product core.ID, tags []core.ID) (refs, error) {
	out := refs{tags: map[core.ID]string{}}
	var users, products []core.ID
	if assignee != "" {
		users = []core.ID{assignee}
	}
	if product != "" {
		products = []core.ID{product}
	}
	labels, err := lookupRefs(ctx, tx, ws, users, products, tags)
	if err != nil {
		return out, err
	}
	out.assignee, out.product = labels[refKey{"user", assignee}], labels[refKey{"product", product}]
	for _, t := range tags {
		out.tags[t] = labels[refKey{"tag", t}]
	}
	return out, nil
}

// checkRefs checks that every id is the workspace's.
func checkRefs(ctx context.Context, tx pgx.Tx, ws core.ID, users, products, tags []core.ID) error {
	_, err := lookupRefs(ctx, tx, ws, users, products, tags)
	return err
}

type refKey struct {
	kind string
	id   core.ID
}

// lookupRefs reads the labels of the given ids in one query. The first unknown id (products, then users,
// then tags, the order in which core validates them) is a *core.ValidationError naming it.
func lookupRefs(ctx context.Context, tx pgx.Tx, ws core.ID, users, products, tags []core.ID) (map[refKey]string, error) {
	found := map[refKey]string{}
	if len(users)+len(products)+len(tags) == 0 {
		return found, nil
	}
	rows, err := tx.Query(ctx, `
		SELECT kind, id, label FROM lookups
		WHERE workspace_id = $1 AND (kind = 'tag' AND id = ANY($2::text[]) OR kind = 'product' AND id = ANY($3::text[]))
		UNION ALL
		SELECT 'user', id, name FROM users WHERE workspace_id = $1 AND id = ANY($4::text[])`,
		ws, fromIDs(tags), fromIDs(products), fromIDs(users))
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var (
			k     refKey
			label string
		)
		if err := rows.Scan(&k.kind, &k.id, &label); err != nil {
			return nil, err
		}
		found[k] = label
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, want := range []struct {
		kind, field string
		ids         []core.ID
	}{{"product", "product", products}, {"user", "user", users}, {"tag", "tag", tags}} {
		for _, id := range want.ids {
			if _, ok := found[refKey{want.kind, id}]; !ok {
				return nil, core.UnknownID(want.field, id)
			}
		}
	}
	return found, nil
}

// customer is the contact and company a record was filed under.
type customer struct {
	email, companyName   string
	contactID, companyID core.ID
}

// putContact finds or creates the contact (by lower-cased address) and its company (by domain). An existing
// company keeps its name; an existing contact without a name takes the given one.
func putContact(ctx context.Context, tx pgx.Tx, ws core.ID, c *core.ContactRef) (customer, error) {
	if c == nil {
		return customer{}, nil
	}
	out := customer{email: c.Email}
	if c.Domain != "" {
		var err error
		if out.companyID, out.companyName, err = putCompanyByDomain(ctx, tx, ws, c.Domain, c.CompanyName); err != nil {
			return out, err
		}
	}
	err := tx.QueryRow(ctx, `
		INSERT INTO contacts (workspace_id, id, email, email_key, name, company_id) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (workspace_id, email_key) DO UPDATE
		SET name = CASE WHEN contacts.name = '' THEN excluded.name ELSE contacts.name END,
		    company_id = CASE WHEN contacts.company_id = '' THEN excluded.company_id ELSE contacts.company_id END
		RETURNING id`, ws, core.NewID(), c.Email, c.EmailKey, c.Name, out.companyID).Scan(&out.contactID)
	return out, err
}

// putCompanyByDomain returns the company of a domain, creating it with name when there is none. The insert
// and the read are separate statements so that a company committed concurrently by another transaction is
// visible to the read.
func putCompanyByDomain(ctx context.Context, tx pgx.Tx, ws core.ID, domain, name string) (id core.ID, stored string, err error) {
	err = tx.QueryRow(ctx, `
		INSERT INTO companies (workspace_id, id, name, domain) VALUES ($1, $2, $3, $4)
		ON CONFLICT (workspace_id, domain) DO NOTHING RETURNING id, name`, ws, core.NewID(), name, domain).Scan(&id, &stored)
	if !errors.Is(err, pgx.ErrNoRows) {
		return id, stored, err
	}
	err = tx.QueryRow(ctx, `SELECT id, name FROM companies WHERE workspace_id = $1 AND domain = $2`, ws, domain).Scan(&id, &stored)
	return id, stored, err
}
