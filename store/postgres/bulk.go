package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/feedbridge/feedbridge/core"
)

// CreateRecords writes many records in one transaction: the batch's new companies and contacts are
// upserted and read back in one pipelined round trip, then its records go in with COPY, the way PostgreSQL
// takes rows fastest, and so do their insight jobs. A record whose dedup key exists, in the store or earlier
// in the same batch, comes back Created=false with the id of the record that has it.
//
// The dedup keys are not looked up first unless the workspace's last bulk write met a stored one (a
// re-import, or an import resumed after a crash): the unique index decides, and a COPY that meets a stored
// key fails its transaction, which is then written again with the keys looked up. The same retry covers a
// key committed by another writer between the look-up and the COPY.
//
// Every statement is planned for its batch (plan_cache_mode force_custom_plan): a plan cached while a
// workspace was small can scan all of its rows for each batch later, and an import then slows with every
// batch (measured before: 55 ms per 1,000 rows at 100,000 records).
func (s *Store) CreateRecords(ctx context.Context, ws core.ID, rs []core.NewRecord) ([]core.BulkResult, error) {
	if len(rs) == 0 {
		return []core.BulkResult{}, nil
	}
	look := s.known.lookFirst(ws)
	// Keys whose customer was erased are stored as their keyed hashes; those are always looked up.
	erased := map[string]string{}
	for _, r := range rs {
		if r.DedupKey != "" {
			k, err := s.erasedKey(ctx, ws, r.DedupKey)
			if err != nil {
				return nil, err
			}
			erased[k] = r.DedupKey
		}
	}
	for races := 0; ; {
		b := newBulk(s.known, ws, rs)
		b.erased = erased
		var out []core.BulkResult
		err := s.inTx(ctx, "create records", func(tx pgx.Tx) (err error) {
			if out, err = b.write(ctx, tx, ws, look); err != nil {
				return err
			}
			return s.createdEvents(ctx, tx, ws, rs, out)
		})
		if errors.Is(err, errStaleContacts) && races < 3 {
			races++
			continue
		}
		if errors.Is(err, errDedupRace) && races < 3 {
			if look {
				races++
			}
			look = true
			continue
		}
		if err == nil {
			s.known.add(ws, b.found.companies, b.resolved)
			s.known.setDupsMet(ws, b.dupsMet)
		}
		return out, err
	}
}

// bulk is one CreateRecords attempt: the companies and contacts it has to send, each once, and what the
// transaction found.
type bulk struct {
	rs        []core.NewRecord
	companies struct{ ids, names, domains []string }
	contacts  struct{ ids, emails, keys, names, domains []string }
	found     found
	resolved  map[string]knownContact // the contacts sent, as the database has them
	dupsMet   bool
	known     *known
	erased    map[string]string // erased form of a dedup key → the key
	epoch     int64             // the contacts epoch of the remembered contacts the batch used
	usedKnown bool              // a contact id came from memory
}

// found holds ids by domain, by address key and by dedup key, and the transaction's time.
type found struct {
	companies map[string]core.ID
	contacts  map[string]core.ID
	records   map[string]core.ID
	now       time.Time
}

// newBulk gathers the companies and contacts of the batch that are not known to need no write: the first
// row of a domain names a new company; a new contact takes the address and name of the first row that gives
// a name, else of the first row, as CreateRecord would resolve them one by one.
func newBulk(k *known, ws core.ID, rs []core.NewRecord) *bulk {
	b := &bulk{rs: rs, resolved: map[string]knownContact{}, known: k, epoch: k.currentEpoch(), found: found{
		companies: map[string]core.ID{}, contacts: map[string]core.ID{}, records: map[string]core.ID{}}}
	queued := map[string]int{}
	for _, r := range rs {
		c := r.Contact
		if c == nil {
			continue
		}
		if _, ok := b.found.companies[c.Domain]; c.Domain != "" && !ok {
			if id, ok := k.company(ws, c.Domain); ok {
				b.found.companies[c.Domain] = id
			} else {
				b.found.companies[c.Domain] = ""
				b.companies.ids = append(b.companies.ids, string(core.NewID()))
				b.companies.names = append(b.companies.names, c.CompanyName)
				b.companies.domains = append(b.companies.domains, c.Domain)
			}
		}
		if i, sent := queued[c.EmailKey]; sent {
			if b.contacts.names[i] == "" && c.Name != "" {
				b.contacts.emails[i], b.contacts.names[i] = c.Email, c.Name
			}
			continue
		}
		if id, ok := k.contact(ws, c); ok {
			b.found.contacts[c.EmailKey] = id
			b.usedKnown = true
			continue
		}
		queued[c.EmailKey] = len(b.contacts.ids)
		b.contacts.ids = append(b.contacts.ids, string(core.NewID()))
		b.contacts.emails = append(b.contacts.emails, c.Email)
		b.contacts.keys = append(b.contacts.keys, c.EmailKey)
		b.contacts.names = append(b.contacts.names, c.Name)
		b.contacts.domains = append(b.contacts.domains, c.Domain)
	}
	return b
}

func (b *bulk) write(ctx context.Context, tx pgx.Tx, ws core.ID, look bool) ([]core.BulkResult, error) {
	if err := checkBulkRefs(ctx, tx, ws, b.rs); err != nil {
		return nil, err
	}
	if err := b.resolve(ctx, tx, ws, look); err != nil {
		return nil, err
	}
	f := b.found
	b.dupsMet = len(f.records) > 0
	out := make([]core.BulkResult, len(b.rs))
	var records, jobs [][]any
	for i, r := range b.rs {
		if id := f.records[r.DedupKey]; r.DedupKey != "" && id != "" {
			out[i] = core.BulkResult{ID: id}
			continue
		}
		if r.DedupKey != "" {
			f.records[r.DedupKey] = r.ID // a later row of the batch with this key is its duplicate
		}
		out[i] = core.BulkResult{ID: r.ID, Created: true}
		var contactID, companyID core.ID
		email := ""
		if c := r.Contact; c != nil {
			email, contactID = c.Email, f.contacts[c.EmailKey]
			if c.Domain != "" {
				companyID = f.companies[c.Domain]
			}
		}
		var dedup any
		if r.DedupKey != "" {
			dedup = r.DedupKey
		}
		records = append(records, []any{string(ws), string(r.ID), string(r.Type), r.Title, r.DescriptionHTML,
			r.Description, r.SearchText, r.Status, r.Source, string(r.AssigneeID), string(r.ProductID),
			fromIDs(r.TagIDs), string(contactID), string(companyID), email, r.Reporter, r.Release, r.Timeframe, dedup, ms(r.CreatedAt),
			ms(r.UpdatedAt), createdBy(r), importRun(r.ImportRun), r.Origin})
		if r.EnqueueInsight {
			jobs = append(jobs, []any{string(core.NewID()), core.InsightQueue, core.KindInsight, string(ws), string(r.ID),
				[]byte{}, core.JobQueued, core.DefaultRetryFor.Milliseconds(), f.now, f.now.Add(core.DefaultRetryFor), f.now, f.now})
		}
	}
	if len(records) == 0 {
		return out, nil
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"records"}, recordCols, pgx.CopyFromRows(records)); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == codeUniqueViolation && pe.ConstraintName == "records_dedup" {
			return nil, errDedupRace
		}
		return nil, err
	}
	if len(jobs) > 0 {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"queue_items"}, newJobCols, pgx.CopyFromRows(jobs)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

var (
	recordCols = []string{"workspace_id", "id", "type", "title", "description_html", "description", "search_text",
		"status", "source", "assignee_id", "product_id", "tag_ids", "contact_id", "company_id", "customer_email",
		"reporter", "release", "timeframe", "dedup_key", "created_at", "updated_at", "created_by", "import_run_id", "origin"}
	newJobCols = []string{"id", "queue", "kind", "workspace_id", "order_key", "body", "state", "retry_for_ms", "run_at",
		"give_up_at", "created_at", "updated_at"}
)

// resolve upserts the companies and contacts to send and reads back their ids, with the records that hold
// the batch's dedup keys when look is set, all in one round trip. It also reads the transaction's start
// time, the one clock of every replica: the insight jobs are queued at it, as CreateRecord queues them at
// now().
func (b *bulk) resolve(ctx context.Context, tx pgx.Tx, ws core.ID, look bool) error {
	f := &b.found
	batch := &pgx.Batch{}
	batch.Queue(`SET LOCAL plan_cache_mode = force_custom_plan`)
	batch.Queue(`SELECT ` + txNow).QueryRow(func(row pgx.Row) error { return row.Scan(&f.now) })
	if len(b.companies.ids) > 0 {
		batch.Queue(bulkCompanies, ws, b.companies.ids, b.companies.names, b.companies.domains)
		queueIDs(batch, f.companies, `SELECT domain, id FROM companies WHERE workspace_id = $1 AND domain = ANY($2::text[])`,
			ws, b.companies.domains)
	}
	if c := b.contacts; len(c.ids) > 0 {
		batch.Queue(bulkContacts, ws, c.ids, c.emails, c.keys, c.names, c.domains)
		batch.Queue(`SELECT email_key, id, name <> '', company_id <> '' FROM contacts WHERE workspace_id = $1 AND email_key = ANY($2::text[])`,
			ws, c.keys).Query(func(rows pgx.Rows) error {
			var (
				key string
				kc  knownContact
			)
			_, err := pgx.ForEachRow(rows, []any{&key, &kc.id, &kc.named, &kc.withCompany}, func() error {
				f.contacts[key], b.resolved[key] = kc.id, kc
				return nil
			})
			return err
		})
	}
	if look {
		var keys []string
		for _, r := range b.rs {
			if r.DedupKey != "" {
				keys = append(keys, r.DedupKey)
			}
		}
		queueIDs(batch, f.records, `SELECT dedup_key, id FROM records WHERE workspace_id = $1 AND dedup_key = ANY($2::text[])`,
			ws, keys)
	}
	if len(b.erased) > 0 {
		keys := make([]string, 0, len(b.erased))
		for k := range b.erased {
			keys = append(keys, k)
		}
		batch.Queue(`SELECT dedup_key, id FROM records WHERE workspace_id = $1 AND dedup_key = ANY($2::text[])`, ws, keys).
			Query(func(rows pgx.Rows) error {
				var (
					key string
					id  core.ID
				)
				_, err := pgx.ForEachRow(rows, []any{&key, &id}, func() error { f.records[b.erased[key]] = id; return nil })
				return err
			})
	}
	var epoch int64
	batch.Queue(`SELECT n FROM store_epochs WHERE name = 'contacts'`).QueryRow(func(row pgx.Row) error { return row.Scan(&epoch) })
	for _, c := range lastCheckpoints(b.rs) {
		batch.Queue(`INSERT INTO checkpoints (workspace_id, name, value, updated_at) VALUES ($1, $2, $3, `+txNow+`)
			ON CONFLICT (workspace_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
			ws, c.Name, c.Value)
	}
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		return err
	}
	if epoch != b.epoch {
		b.known.sync(epoch)
		if b.usedKnown {
			return errStaleContacts
		}
	}
	return nil
}

// queueIDs queues a query of (key, id) rows whose answer fills into.
func queueIDs(b *pgx.Batch, into map[string]core.ID, query string, args ...any) {
	b.Queue(query, args...).Query(func(rows pgx.Rows) error {
		var (
			key string
			id  core.ID
		)
		_, err := pgx.ForEachRow(rows, []any{&key, &id}, func() error { into[key] = id; return nil })
		return err
	})
}

// The upserts of resolve, with the workspace id as $1. Neither overwrites what exists, as in CreateRecord:
// an existing company keeps its name, an existing contact only gains a name or company it lacks, and a
// contact that lacks nothing the batch could give it is not written at all. Rows go in key order, so that
// two batches that share companies or contacts lock them in the same order.
const (
	bulkCompanies = `INSERT INTO companies (workspace_id, id, name, domain)
	 SELECT $1, c.id, c.name, c.domain FROM unnest($2::text[], $3::text[], $4::text[]) AS c(id, name, domain)
	 ORDER BY c.domain
	 ON CONFLICT (workspace_id, domain) DO NOTHING`
	bulkContacts = `INSERT INTO contacts (workspace_id, id, email, email_key, name, company_id)
	 SELECT $1, c.id, c.email, c.key, c.name, coalesce(co.id, '')
	 FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS c(id, email, key, name, domain)
	 LEFT JOIN companies co ON co.workspace_id = $1 AND co.domain = c.domain AND c.domain <> ''
	 WHERE NOT EXISTS (
		SELECT 1 FROM contacts x WHERE x.workspace_id = $1 AND x.email_key = c.key
		AND (x.name <> '' OR c.name = '') AND (x.company_id <> '' OR co.id IS NULL))
	 ORDER BY c.key
	 ON CONFLICT (workspace_id, email_key) DO UPDATE
	 SET name = CASE WHEN contacts.name = '' THEN excluded.name ELSE contacts.name END,
	     company_id = CASE WHEN contacts.company_id = '' THEN excluded.company_id ELSE contacts.company_id END
	 WHERE contacts.name = '' AND excluded.name <> '' OR contacts.company_id = '' AND excluded.company_id <> ''`
)

// checkBulkRefs validates every assignee, product and tag id of the batch in one query.
func checkBulkRefs(ctx context.Context, tx pgx.Tx, ws core.ID, rs []core.NewRecord) error {
	seen := map[core.ID]bool{}
	var users, products, tags []core.ID
	for _, r := range rs {
		for _, ref := range []struct {
			id  core.ID
			dst *[]core.ID
		}{{r.AssigneeID, &users}, {r.ProductID, &products}} {
			if ref.id != "" && !seen[ref.id] {
				seen[ref.id] = true
				*ref.dst = append(*ref.dst, ref.id)
			}
		}
		for _, t := range r.TagIDs {
			if !seen[t] {
				seen[t] = true
				tags = append(tags, t)
			}
		}
	}
	return checkRefs(ctx, tx, ws, users, products, tags)
}

// lastCheckpoints keeps, per checkpoint name, the value of the last record that carries it.
func lastCheckpoints(rs []core.NewRecord) []core.Checkpoint {
	idx := map[string]int{}
	var out []core.Checkpoint
	for _, r := range rs {
		if c := r.Checkpoint; c != nil {
			if i, ok := idx[c.Name]; ok {
				out[i] = *c
				continue
			}
			idx[c.Name] = len(out)
			out = append(out, *c)
		}
	}
	return out
}

// BulkWriters is how many CreateRecords calls an importer may keep in flight: each runs on its own pooled
// connection, so PostgreSQL executes one batch while another commits or is still being sent (a CSV import
// of 30,000 rows ran 1.5 times as fast with two as with one).
func (s *Store) BulkWriters() int { return 2 }
