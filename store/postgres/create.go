package postgres

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// errDedupRace means another transaction committed the same dedup key between this one's check and its
// insert; the create is retried and then finds that record.
var errDedupRace = errors.New("dedup key taken concurrently")

// CreateRecord writes a record with its contact, company, insight job, idempotency entry and checkpoint in
// one transaction. A replayed idempotency key or a repeated dedup key returns the earlier record with
// created=false; the unique constraints decide races, so concurrent replicas agree.
func (s *Store) CreateRecord(ctx context.Context, ws core.ID, nr core.NewRecord) (core.Record, bool, error) {
	for attempt := 0; ; attempt++ {
		rec, existing, err := s.createRecord(ctx, ws, nr)
		switch {
		case errors.Is(err, errDedupRace) && attempt < 3:
			continue
		case err != nil:
			return core.Record{}, false, err
		case existing != "":
			rec, err := s.Record(ctx, ws, existing)
			return rec, false, err
		}
		return rec, true, nil
	}
}

func (s *Store) createRecord(ctx context.Context, ws core.ID, nr core.NewRecord) (core.Record, core.ID, error) {
	erased, err := s.erasedKey(ctx, ws, nr.DedupKey)
	if err != nil {
		return core.Record{}, "", err
	}
	ah, err := lookAhead(ctx, s.pool, ws, nr, erased)
	if err != nil {
		return core.Record{}, "", fail("create record", err)
	}
	if ah.simple(nr) {
		return s.createSimple(ctx, ws, nr, ah)
	}
	if ah.fresh(nr) {
		rec, err := s.createFresh(ctx, ws, nr, ah)
		return rec, "", err
	}
	var (
		rec      core.Record
		existing core.ID
	)
	err = s.inTx(ctx, "create record", func(tx pgx.Tx) error {
		rec, existing = core.Record{}, "" // nothing of an attempt that was rolled back
		if nr.Idempotency != nil {
			id, err := claimIdempotency(ctx, tx, ws, nr)
			if err != nil || id != "" {
				existing = id
				return err
			}
		}
		if ah.dup != "" {
			existing = ah.dup
			return duplicateFound(ctx, tx, ws, nr, existing)
		}
		refs, err := resolveRefs(ctx, tx, ws, nr.AssigneeID, nr.ProductID, nr.TagIDs)
		if err != nil {
			return err
		}
		if nr.CountIdea {
			if err := countIdea(ctx, tx, ws); err != nil {
				return err
			}
		}
		cust, err := ah.customer(ctx, tx, ws, nr.Contact)
		if err != nil {
			return err
		}
		rec = newRecord(ws, nr, refs, cust)
		rec.CustomerName = createdName(ah, nr)
		events, err := nr.Outbox.Items(core.EventRecordCreated, rec, nil)
		if err != nil {
			return err
		}
		return writeRecord(ctx, tx, ws, nr, cust, events)
	})
	return rec, existing, err
}

// createSimple writes a record that needs no check before its insert (no idempotency key, idea count or
// referenced ids; its contact and company exist) as one pipelined batch, which PostgreSQL runs as one
// implicit transaction: the common create costs two round trips, the look-ahead and this.
func (s *Store) createSimple(ctx context.Context, ws core.ID, nr core.NewRecord, ah ahead) (core.Record, core.ID, error) {
	if ah.dup != "" {
		if nr.Checkpoint != nil {
			if err := s.SetCheckpoint(ctx, ws, *nr.Checkpoint); err != nil {
				return core.Record{}, "", err
			}
		}
		return core.Record{}, ah.dup, nil
	}
	cust := ah.known(nr.Contact)
	rec := newRecord(ws, nr, refs{}, cust)
	rec.CustomerName = createdName(ah, nr)
	events, err := nr.Outbox.Items(core.EventRecordCreated, rec, nil)
	if err != nil {
		return core.Record{}, "", fail("create record", err)
	}
	b := &pgx.Batch{}
	queueRecord(b, ws, nr, cust)
	queueEvents(b, nr.ID, events)
	if err := runRecordBatch(ctx, s.pool, b); err != nil {
		return core.Record{}, "", fail("create record", err)
	}
	return rec, "", nil
}

// duplicateFound finishes a create whose dedup key exists: the idempotency entry (if any) points at the
// earlier record and the connector's checkpoint still advances, since that input has been handled.
func duplicateFound(ctx context.Context, tx pgx.Tx, ws core.ID, nr core.NewRecord, existing core.ID) error {
	if nr.Idempotency != nil {
		if _, err := tx.Exec(ctx, `UPDATE idempotency_keys SET record_id = $3 WHERE workspace_id = $1 AND key = $2`,
			ws, nr.Idempotency.Key, existing); err != nil {
			return err
		}
	}
	if nr.Checkpoint != nil {
		return putCheckpoint(ctx, tx, ws, *nr.Checkpoint)
	}
	return nil
}

// claimIdempotency takes the key for this request, or returns the record an earlier request with the same
// key and body created. A second request that arrives while the first is still open waits on the key's
// unique index until the first commits, then sees its entry.
func claimIdempotency(ctx context.Context, tx pgx.Tx, ws core.ID, nr core.NewRecord) (core.ID, error) {
	// The service's clock (UpdatedAt is its "now" for a create) decides the window, like every other time.
	now := ms(nr.UpdatedAt)
	tag, err := tx.Exec(ctx, `
		INSERT INTO idempotency_keys (workspace_id, key, fingerprint, record_id, created_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (workspace_id, key) DO UPDATE
		SET fingerprint = excluded.fingerprint, record_id = excluded.record_id, created_at = excluded.created_at
		WHERE idempotency_keys.created_at <= $6`,
		ws, nr.Idempotency.Key, nr.Idempotency.Fingerprint, nr.ID, now, now.Add(-core.IdempotencyWindow))
	if err != nil || tag.RowsAffected() == 1 {
		return "", err
	}
	var (
		fingerprint string
		id          core.ID
	)
	if err := tx.QueryRow(ctx, `SELECT fingerprint, record_id FROM idempotency_keys WHERE workspace_id = $1 AND key = $2`,
		ws, nr.Idempotency.Key).Scan(&fingerprint, &id); err != nil {
		return "", err
	}
	if fingerprint != nr.Idempotency.Fingerprint {
		return "", core.ErrIdempotencyConflict
	}
	return id, nil
}

// countIdea takes one idea from the workspace's limit in a single conditional UPDATE: the row lock
// serialises concurrent creates, so the limit is never overshot.
func countIdea(ctx context.Context, tx pgx.Tx, ws core.ID) error {
	tag, err := tx.Exec(ctx, `UPDATE workspaces SET ideas_used = ideas_used + 1
		WHERE id = $1 AND (idea_limit = 0 OR ideas_used < idea_limit)`, ws)
	if err != nil || tag.RowsAffected() == 1 {
		return err
	}
	e := &core.IdeaLimitError{}
	if err := tx.QueryRow(ctx, `SELECT ideas_used, idea_limit, plan FROM workspaces WHERE id = $1`, ws).
		Scan(&e.Used, &e.Limit, &e.Plan); err != nil {
		return err
	}
	return e
}

// writeRecord sends the record's own rows and its events in one round trip inside tx.
func writeRecord(ctx context.Context, tx pgx.Tx, ws core.ID, nr core.NewRecord, cust customer, events []core.QueueItem) error {
	b := &pgx.Batch{}
	queueRecord(b, ws, nr, cust)
	queueEvents(b, nr.ID, events)
	return runRecordBatch(ctx, tx, b)
}

// queueRecord queues the record insert with its insight job, and its checkpoint. The record insert yields
// to an existing dedup key (ON CONFLICT DO NOTHING) and the job is only written for an inserted record, so
// that in a batch without an explicit transaction a lost dedup race writes nothing but the checkpoint,
// which is due anyway: that input has been handled.
func queueRecord(b *pgx.Batch, ws core.ID, nr core.NewRecord, cust customer) {
	queueRecordIf(b, ws, nr, cust, "")
}

// queueRecordIf is queueRecord with the record written only where guard holds (a condition on the
// insert's parameters; "" for none).
func queueRecordIf(b *pgx.Batch, ws core.ID, nr core.NewRecord, cust customer, guard string) {
	var dedup any
	if nr.DedupKey != "" {
		dedup = nr.DedupKey
	}
	insert := `
		INSERT INTO records (workspace_id, id, type, title, description_html, description, search_text, status,
			source, assignee_id, product_id, tag_ids, contact_id, company_id, customer_email, reporter, release,
			timeframe, dedup_key, created_at, updated_at, created_by, origin)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)
		ON CONFLICT (workspace_id, dedup_key) DO NOTHING`
	if guard != "" {
		insert = strings.Replace(insert, "VALUES (", "SELECT ", 1)
		insert = strings.Replace(insert, "$23)", "$23 WHERE "+guard, 1)
	}
	args := []any{ws, nr.ID, nr.Type, nr.Title, nr.DescriptionHTML, nr.Description, nr.SearchText, nr.Status,
		nr.Source, nr.AssigneeID, nr.ProductID, fromIDs(nr.TagIDs), cust.contactID, cust.companyID, cust.email,
		nr.Reporter, nr.Release, nr.Timeframe, dedup, ms(nr.CreatedAt), ms(nr.UpdatedAt), createdBy(nr), nr.Origin}
	if nr.EnqueueInsight {
		// One statement: the job exists exactly when the record was inserted, and its row count is the
		// record's.
		insert = `WITH r AS (` + insert + ` RETURNING workspace_id, id)
		INSERT INTO queue_items (id, queue, kind, workspace_id, order_key, body, state, retry_for_ms, run_at,
			give_up_at, created_at, updated_at)
		SELECT $24, '` + core.InsightQueue + `', '` + core.KindInsight + `', r.workspace_id, r.id, '', 'queued', $25::bigint,
			` + txNow + `, ` + txNow + ` + $25::bigint * interval '1 millisecond', ` + txNow + `, ` + txNow + ` FROM r`
		args = append(args, core.NewID(), core.DefaultRetryFor.Milliseconds())
	}
	b.Queue(insert, args...)
	if c := nr.Checkpoint; c != nil {
		b.Queue(`INSERT INTO checkpoints (workspace_id, name, value, updated_at) VALUES ($1, $2, $3, `+txNow+`)
			ON CONFLICT (workspace_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
			ws, c.Name, c.Value)
	}
}

type batchSender interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// runRecordBatch sends a batch from queueRecord; errDedupRace when the record yielded to another with its
// dedup key.
func runRecordBatch(ctx context.Context, db batchSender, b *pgx.Batch) error {
	return runBatchFrom(ctx, db, b, 0)
}

// runBatchFrom sends a batch whose statement at index rec is queueRecord's; errDedupRace when the record
// was not written.
func runBatchFrom(ctx context.Context, db batchSender, b *pgx.Batch, rec int) error {
	br := db.SendBatch(ctx, b)
	for range rec {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return err
		}
	}
	tag, err := br.Exec()
	if err != nil {
		br.Close()
		return err
	}
	if err := br.Close(); err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return errDedupRace
	}
	return nil
}

// dbNow is the database's clock at millisecond precision: the one clock every replica shares, used for
// queue and lease times. txNow is the same clock at the start of the transaction, so that every row one
// transaction writes carries the same time.
const (
	dbNow = `date_trunc('milliseconds', clock_timestamp())`
	txNow = `date_trunc('milliseconds', now())`
)

func newRecord(ws core.ID, nr core.NewRecord, refs refs, cust customer) core.Record {
	var accounts []string
	if nr.Type == core.RecordIdea {
		accounts = core.RankAccounts(cust.companyName, nil)
	}
	return core.Record{
		Accounts: accounts,
		ID:       nr.ID, Workspace: ws, Type: nr.Type, Title: nr.Title, DescriptionHTML: nr.DescriptionHTML,
		Description: nr.Description, Status: nr.Status, AssigneeID: nr.AssigneeID, Assignee: refs.assignee,
		ProductID: nr.ProductID, Product: refs.product, TagIDs: toIDs(fromIDs(nr.TagIDs)), Tags: refs.tagLabels(nr.TagIDs),
		Source: nr.Source, CustomerEmail: cust.email, Customer: cust.companyName, CompanyID: cust.companyID,
		ContactID: cust.contactID, Reporter: nr.Reporter, Release: nr.Release, Timeframe: nr.Timeframe, CreatedAt: ms(nr.CreatedAt), UpdatedAt: ms(nr.UpdatedAt),
		Links: []core.ID{}, CreatedBy: core.ParseActor(createdBy(nr)),
	}
}

// createdBy is the stored actor of a new record; "" (the system) when none was named.
func createdBy(nr core.NewRecord) string {
	if nr.CreatedBy.Kind == "" {
		return ""
	}
	return nr.CreatedBy.String()
}

// createdName is a new record's customer name: its contact's, which a given name only fills in.
func createdName(ah ahead, nr core.NewRecord) string {
	switch {
	case nr.Contact == nil:
		return ""
	case ah.contactName != "":
		return ah.contactName
	}
	return nr.Contact.Name
}
