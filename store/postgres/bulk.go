package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/feedbridge/feedbridge/core"
)

// CreateRecords writes many records in one transaction, with set operations rather than a statement or a
// read-back per row: the batch goes into a temporary table with COPY, the way PostgreSQL takes rows
// fastest, and then one statement each adds its new companies and contacts and one adds its records and
// their insight jobs, joining the batch to companies and contacts for their ids. The cost of a batch is
// then a few index probes per row, whatever the size of the store.
//
// A record whose dedup key exists, in the store or earlier in the same batch, comes back Created=false
// with the id of the record that has it: the unique index decides (ON CONFLICT DO NOTHING), so a key
// committed by another writer meanwhile is met the same way, and only the rows that were not inserted are
// looked up afterwards. A key whose customer was erased is stored as its keyed hash, which each row is
// checked against too.
func (s *Store) CreateRecords(ctx context.Context, ws core.ID, rs []core.NewRecord) ([]core.BulkResult, error) {
	if len(rs) == 0 {
		return []core.BulkResult{}, nil
	}
	b, err := s.newBulk(ctx, ws, rs)
	if err != nil {
		return nil, err
	}
	for races := 0; ; races++ {
		var out []core.BulkResult
		err := s.inTx(ctx, "create records", func(tx pgx.Tx) (err error) {
			if out, err = b.write(ctx, tx, ws); err != nil {
				return err
			}
			return s.createdEvents(ctx, tx, ws, rs, out)
		})
		if errors.Is(err, errDedupRace) && races < 3 {
			continue
		}
		return out, err
	}
}

// bulk is one CreateRecords call: the batch's rows as the temporary table takes them, and which row of the
// batch first holds each dedup key.
type bulk struct {
	rs     []core.NewRecord
	rows   [][]any
	first  []int             // per row, the first row of the batch with its dedup key (itself when none)
	erased map[string]string // erased form of a dedup key → the key
}

// newBulk lays out the batch's rows. A new company takes the name given on the first row of its domain,
// and each company and contact gets one candidate id, used only if the store has none for it.
func (s *Store) newBulk(ctx context.Context, ws core.ID, rs []core.NewRecord) (*bulk, error) {
	b := &bulk{rs: rs, first: make([]int, len(rs)), erased: map[string]string{}}
	companies, contacts, keys := map[string]string{}, map[string]string{}, map[string]int{}
	for i, r := range rs {
		b.first[i] = i
		var erased any
		if r.DedupKey != "" {
			if j, ok := keys[r.DedupKey]; ok {
				b.first[i] = j
				continue // a later row with the key is its first row's duplicate, and is not sent
			}
			keys[r.DedupKey] = i
			k, err := s.erasedKey(ctx, ws, r.DedupKey)
			if err != nil {
				return nil, err
			}
			b.erased[k], erased = r.DedupKey, k
		}
		var email, key, name, contactID, domain, companyName, companyID string
		if c := r.Contact; c != nil {
			email, key, name, domain, companyName = c.Email, c.EmailKey, c.Name, c.Domain, c.CompanyName
			contactID = candidate(contacts, key)
			if domain != "" {
				companyID = candidate(companies, domain)
			}
		}
		var dedup, job any
		if r.DedupKey != "" {
			dedup = r.DedupKey
		}
		if r.EnqueueInsight {
			job = string(core.NewID())
		}
		b.rows = append(b.rows, []any{int32(i), string(r.ID), string(r.Type), r.Title, r.DescriptionHTML, r.Description,
			r.SearchText, r.Status, r.Source, string(r.AssigneeID), string(r.ProductID), fromIDs(r.TagIDs), email, key,
			name, contactID, domain, companyName, companyID, r.Reporter, r.Release, r.Timeframe, dedup, erased,
			ms(r.CreatedAt), ms(r.UpdatedAt), createdBy(r), importRun(r.ImportRun), r.Origin, job})
	}
	return b, nil
}

// candidate returns the batch's candidate id for key, making one the first time.
func candidate(ids map[string]string, key string) string {
	id, ok := ids[key]
	if !ok {
		id = string(core.NewID())
		ids[key] = id
	}
	return id
}

// write runs one attempt of the batch inside tx.
func (b *bulk) write(ctx context.Context, tx pgx.Tx, ws core.ID) ([]core.BulkResult, error) {
	if err := checkBulkRefs(ctx, tx, ws, b.rs); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, bulkTable); err != nil {
		return nil, err
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"pg_temp", "bulk_records"}, bulkCols, pgx.CopyFromRows(b.rows)); err != nil {
		return nil, err
	}
	batch := &pgx.Batch{}
	// Planned for this batch (plan_cache_mode force_custom_plan), not from a plan cached while the
	// workspace was small.
	batch.Queue(`SET LOCAL plan_cache_mode = force_custom_plan`)
	batch.Queue(bulkCompanies, ws)
	batch.Queue(bulkContacts, ws)
	inserted := make(map[core.ID]bool, len(b.rows))
	batch.Queue(bulkInsert, ws, core.InsightQueue, core.KindInsight, core.DefaultRetryFor.Milliseconds()).Query(func(rows pgx.Rows) error {
		var id core.ID
		_, err := pgx.ForEachRow(rows, []any{&id}, func() error { inserted[id] = true; return nil })
		return err
	})
	for _, c := range lastCheckpoints(b.rs) {
		batch.Queue(`INSERT INTO checkpoints (workspace_id, name, value, updated_at) VALUES ($1, $2, $3, `+txNow+`)
			ON CONFLICT (workspace_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
			ws, c.Name, c.Value)
	}
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		return nil, err
	}
	return b.results(ctx, tx, ws, inserted)
}

// results says, for each row, which record holds it: its own when inserted; else the record that took
// its dedup key, earlier in the batch or already stored (looked up now, for those rows only).
func (b *bulk) results(ctx context.Context, tx pgx.Tx, ws core.ID, inserted map[core.ID]bool) ([]core.BulkResult, error) {
	out := make([]core.BulkResult, len(b.rs))
	var keys []string
	missing := map[string]bool{}
	for i, r := range b.rs {
		if b.first[i] == i && !inserted[r.ID] {
			keys = append(keys, r.DedupKey)
			missing[r.DedupKey] = true
		}
	}
	stored := map[string]core.ID{}
	if len(keys) > 0 {
		for k, key := range b.erased {
			if missing[key] {
				keys = append(keys, k)
			}
		}
		rows, err := tx.Query(ctx, `SELECT dedup_key, id FROM records WHERE workspace_id = $1 AND dedup_key = ANY($2::text[])`, ws, keys)
		if err != nil {
			return nil, err
		}
		var (
			key string
			id  core.ID
		)
		if _, err := pgx.ForEachRow(rows, []any{&key, &id}, func() error {
			if k, ok := b.erased[key]; ok {
				key = k
			}
			stored[key] = id
			return nil
		}); err != nil {
			return nil, err
		}
	}
	for i, r := range b.rs {
		switch f := b.first[i]; {
		case f != i:
			out[i] = core.BulkResult{ID: out[f].ID}
		case inserted[r.ID]:
			out[i] = core.BulkResult{ID: r.ID, Created: true}
		case stored[r.DedupKey] != "":
			out[i] = core.BulkResult{ID: stored[r.DedupKey]}
		default:
			// Not inserted and no record holds its key: another writer's record was deleted meanwhile.
			return nil, errDedupRace
		}
	}
	return out, nil
}

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
// connection, so PostgreSQL executes one batch while another commits or is still being sent; a third adds
// nothing the CSV benchmark can see (bench/RESULTS.md).
func (s *Store) BulkWriters() int { return 2 }
