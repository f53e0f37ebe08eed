package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/feedbridge/feedbridge/core"
)

// recordWriter holds one write transaction of records. Its caches let the bulk path resolve each referenced
// id, contact and company once per transaction instead of once per row.
type recordWriter struct {
	s         *Store
	num       int64 // the workspace's number, once seq has looked it up
	ctx       context.Context
	tx        *wtx
	ws        core.ID
	now       int64
	labels    map[lookupKey]string // known-good referenced ids → label or name
	contacts  map[string]contactRow
	companies map[string]companyRow
	nextSeq   map[int64]int64 // creation millisecond → next free seq
	synced    bool            // the contacts epoch was compared in this transaction
}

type lookupKey struct {
	table string // "tag", "product", "user"
	id    core.ID
}

type contactRow struct {
	id, name, companyID string
}

type companyRow struct {
	id, name string
}

// refs are the labels of a record's referenced ids.
type refs struct {
	product, assignee string
	tags              []string
}

// newRecordWriter works in tx; its statements use the transaction's context (see group).
func (s *Store) newRecordWriter(tx *wtx, ws core.ID) *recordWriter {
	return &recordWriter{s: s, now: s.nowMS(), ctx: tx.ctx, tx: tx, ws: ws, labels: map[lookupKey]string{},
		contacts: map[string]contactRow{}, companies: map[string]companyRow{}, nextSeq: map[int64]int64{}}
}

func (w *recordWriter) workspace() (core.Workspace, error) {
	return scanWorkspace(w.tx.QueryRowContext(w.ctx, `SELECT `+workspaceCols+` FROM workspaces WHERE id = ?`, w.ws))
}

// refs checks that the product, assignee and tags are the workspace's; an id of another workspace is as
// unknown as one that never existed.
func (w *recordWriter) refs(nr core.NewRecord) (refs, error) {
	var (
		r   refs
		err error
	)
	if nr.ProductID != "" {
		if r.product, err = w.label("product", nr.ProductID); err != nil {
			return r, err
		}
	}
	if nr.AssigneeID != "" {
		if r.assignee, err = w.label("user", nr.AssigneeID); err != nil {
			return r, err
		}
	}
	r.tags = make([]string, len(nr.TagIDs))
	for i, t := range nr.TagIDs {
		if r.tags[i], err = w.label("tag", t); err != nil {
			return r, err
		}
	}
	return r, nil
}

func (w *recordWriter) label(field string, id core.ID) (string, error) {
	k := lookupKey{field, id}
	if l, ok := w.labels[k]; ok {
		return l, nil
	}
	var q string
	switch field {
	case "user":
		q = `SELECT name FROM users WHERE workspace_id = ? AND id = ?`
	case "product":
		q = `SELECT label FROM lookups WHERE workspace_id = ? AND id = ? AND kind = 'product'`
	default:
		q = `SELECT label FROM lookups WHERE workspace_id = ? AND id = ? AND kind = 'tag'`
	}
	var l string
	err := w.tx.QueryRowContext(w.ctx, q, w.ws, id).Scan(&l)
	if errors.Is(err, sql.ErrNoRows) {
		return "", core.UnknownID(field, id)
	}
	if err == nil {
		w.labels[k] = l
	}
	return l, err
}

// contact finds or creates the record's company and contact. An existing company keeps its name; an
// existing contact without a name takes the new one, and one without a company joins the resolved one.
func (w *recordWriter) contact(c *core.ContactRef) (contactRow, string, error) {
	var comp companyRow
	if c.Domain != "" {
		var err error
		if comp, err = w.company(c.Domain, c.CompanyName); err != nil {
			return contactRow{}, "", err
		}
	}
	ct, ok := w.contacts[c.EmailKey]
	if !ok {
		if err := w.syncResolved(); err != nil {
			return contactRow{}, "", err
		}
		ct, ok = w.s.resolved.contact(w.ws, c.EmailKey)
	}
	changed := !ok
	if !ok {
		err := w.tx.QueryRowContext(w.ctx, `SELECT id, name, coalesce(company_id, '') FROM contacts WHERE workspace_id = ? AND email_key = ?`,
			w.ws, c.EmailKey).Scan(&ct.id, &ct.name, &ct.companyID)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			ct = contactRow{id: string(core.NewID()), name: c.Name, companyID: comp.id}
			if _, err := w.tx.ExecContext(w.ctx, `INSERT INTO contacts(id, workspace_id, email, email_key, name, company_id)
				VALUES (?, ?, ?, ?, ?, ?)`, ct.id, w.ws, c.Email, c.EmailKey, ct.name, nullID(core.ID(ct.companyID))); err != nil {
				return contactRow{}, "", err
			}
		case err != nil:
			return contactRow{}, "", err
		}
	}
	if (ct.name == "" && c.Name != "") || (ct.companyID == "" && comp.id != "") {
		if ct.name == "" {
			ct.name = c.Name
		}
		if ct.companyID == "" {
			ct.companyID = comp.id
		}
		// Only fills in: what another process wrote since this one cached the contact stays.
		if _, err := w.tx.ExecContext(w.ctx, `UPDATE contacts SET name = CASE WHEN name = '' THEN ? ELSE name END,
			company_id = coalesce(company_id, ?) WHERE id = ?`, ct.name, nullID(core.ID(ct.companyID)), ct.id); err != nil {
			return contactRow{}, "", err
		}
		changed = true
	}
	w.contacts[c.EmailKey] = ct
	if changed {
		ws, key := w.ws, c.EmailKey
		w.tx.onCommit(func() { w.s.resolved.putContact(ws, key, ct) })
	}
	return ct, comp.id, nil
}

func (w *recordWriter) company(domain, name string) (companyRow, error) {
	if c, ok := w.companies[domain]; ok {
		return c, nil
	}
	if c, ok := w.s.resolved.company(w.ws, domain); ok {
		w.companies[domain] = c
		return c, nil
	}
	var c companyRow
	err := w.tx.QueryRowContext(w.ctx, `SELECT id, name FROM companies WHERE workspace_id = ? AND domain = ?`, w.ws, domain).Scan(&c.id, &c.name)
	if errors.Is(err, sql.ErrNoRows) {
		c = companyRow{id: string(core.NewID()), name: name}
		_, err = w.tx.ExecContext(w.ctx, `INSERT INTO companies(id, workspace_id, name, name_key, domain) VALUES (?, ?, ?, ?, ?)`,
			c.id, w.ws, name, core.Fold(name), domain)
	}
	if err != nil {
		return companyRow{}, err
	}
	w.companies[domain] = c
	ws := w.ws
	w.tx.onCommit(func() { w.s.resolved.putCompany(ws, domain, c) })
	return c, nil
}
