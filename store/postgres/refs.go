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

// ahead is what a create finds before it writes, in one read outside any transaction: an earlier record
// with its dedup key, and its contact and company. Every write that depends on it is still decided by a
// unique constraint, so a concurrent writer can make it stale but never make it wrong.
type ahead struct {
	dup                      core.ID
	companyID, contactID     core.ID
	contactCompany           core.ID
	companyName, contactName string
}

// lookAhead reads the record's dedup key, contact and company, or nothing when it has neither.
// A dedup key whose customer was erased is stored as erased, its keyed hash.
func lookAhead(ctx context.Context, q querier, ws core.ID, nr core.NewRecord, erased string) (ahead, error) {
	var (
		ah            ahead
		dedup, hashed any
		domain, key   string
	)
	if nr.DedupKey == "" && nr.Contact == nil {
		return ah, nil
	}
	if nr.DedupKey != "" {
		dedup, hashed = nr.DedupKey, erased
	}
	if c := nr.Contact; c != nil {
		domain, key = c.Domain, c.EmailKey
	}
	err := q.QueryRow(ctx, `
		SELECT coalesce(d.id, ''), coalesce(co.id, ''), coalesce(co.name, ''), coalesce(ct.id, ''),
		       coalesce(ct.name, ''), coalesce(ct.company_id, '')
		FROM (SELECT 1) AS one
		LEFT JOIN LATERAL (SELECT id FROM records WHERE workspace_id = $1 AND dedup_key IN ($2::text, $5::text) LIMIT 1) d ON true
		LEFT JOIN companies co ON co.workspace_id = $1 AND co.domain = $3::text AND $3::text <> ''
		LEFT JOIN contacts ct ON ct.workspace_id = $1 AND ct.email_key = $4::text AND $4::text <> ''`,
		ws, dedup, domain, key, hashed).Scan(&ah.dup, &ah.companyID, &ah.companyName, &ah.contactID, &ah.contactName, &ah.contactCompany)
	return ah, err
}

// simple reports whether the create can be written without a transaction of its own: nothing to check
// first, and nothing of its customer to create or complete (or its dedup key is taken already).
func (ah ahead) simple(nr core.NewRecord) bool {
	if nr.Idempotency != nil {
		return false
	}
	if ah.dup != "" {
		return true
	}
	return !nr.CountIdea && nr.AssigneeID == "" && nr.ProductID == "" && len(nr.TagIDs) == 0 && ah.contactReady(nr.Contact)
}

// contactReady reports whether the record's contact and company exist and the contact lacks nothing the
// record could give it (a name, a company).
func (ah ahead) contactReady(c *core.ContactRef) bool {
	if c == nil {
		return true
	}
	return ah.contactID != "" && (c.Domain == "" || ah.companyID != "") &&
		!(ah.contactName == "" && c.Name != "") && !(ah.contactCompany == "" && ah.companyID != "")
}

// known is the customer as the look-ahead found it.
func (ah ahead) known(c *core.ContactRef) customer {
	if c == nil {
		return customer{}
	}
	out := customer{email: c.Email, contactID: ah.contactID}
	if c.Domain != "" {
		out.companyID, out.companyName = ah.companyID, ah.companyName
	}
	return out
}

// customer finds or creates the contact (by lower-cased address) and its company (by domain) inside tx,
// starting from what the look-ahead found. An existing company keeps its name; an existing contact without
// a name takes the given one, and one without a company joins the resolved one.
func (ah ahead) customer(ctx context.Context, tx pgx.Tx, ws core.ID, c *core.ContactRef) (customer, error) {
	if ah.contactReady(c) {
		return ah.known(c), nil
	}
	out := customer{email: c.Email}
	if c.Domain != "" {
		out.companyID, out.companyName = ah.companyID, ah.companyName
		if out.companyID == "" {
			var err error
			if out.companyID, out.companyName, err = putCompanyByDomain(ctx, tx, ws, c.Domain, c.CompanyName); err != nil {
				return out, err
			}
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
