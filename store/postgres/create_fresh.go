package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// fresh reports whether the create is a new customer's record with nothing else to check first: no
// idempotency key, idea count or referenced ids, no earlier record with its dedup key, and a contact the
// look-ahead did not find. That is most creates of an API or a helpdesk, where most rows are a new
// customer.
func (ah ahead) fresh(nr core.NewRecord) bool {
	return nr.Idempotency == nil && ah.dup == "" && nr.Contact != nil && ah.contactID == "" &&
		!nr.CountIdea && nr.AssigneeID == "" && nr.ProductID == "" && len(nr.TagIDs) == 0
}

// createFresh writes a new customer's record as one pipelined batch, which PostgreSQL runs as one
// implicit transaction: the company (when the look-ahead found none), the contact and the record under the
// ids this create chose, so that the create costs two round trips like a known customer's. Every insert
// yields to a row another writer committed first; the record is only written when the contact and company
// it names are the ones that now exist, otherwise it is written by a retry (errDedupRace), which finds them.
// The contact or company the batch wrote then is exactly what the transaction path would have written.
func (s *Store) createFresh(ctx context.Context, ws core.ID, nr core.NewRecord, ah ahead) (core.Record, error) {
	c := nr.Contact
	cust := customer{email: c.Email, contactID: core.NewID()}
	b := &pgx.Batch{}
	if c.Domain != "" {
		cust.companyID, cust.companyName = ah.companyID, ah.companyName
		if cust.companyID == "" {
			cust.companyID, cust.companyName = core.NewID(), c.CompanyName
			b.Queue(`INSERT INTO companies (workspace_id, id, name, domain) VALUES ($1, $2, $3, $4)
				ON CONFLICT (workspace_id, domain) DO NOTHING`, ws, cust.companyID, c.CompanyName, c.Domain)
		}
	}
	b.Queue(`INSERT INTO contacts (workspace_id, id, email, email_key, name, company_id) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (workspace_id, email_key) DO NOTHING`, ws, cust.contactID, c.Email, c.EmailKey, c.Name, cust.companyID)
	rec := newRecord(ws, nr, refs{}, cust)
	rec.CustomerName = createdName(ah, nr)
	events, err := nr.Outbox.Items(core.EventRecordCreated, rec, nil)
	if err != nil {
		return core.Record{}, fail("create record", err)
	}
	n := b.Len()
	queueRecordIf(b, ws, nr, cust, `EXISTS (SELECT 1 FROM contacts WHERE workspace_id = $1 AND id = $13)
		AND ($14 = '' OR EXISTS (SELECT 1 FROM companies WHERE workspace_id = $1 AND id = $14))`)
	queueEvents(b, nr.ID, events)
	if err := runBatchFrom(ctx, s.pool, b, n); err != nil {
		return core.Record{}, err
	}
	return rec, nil
}
