package sqlite

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// A bulk write inserts its records, tags and insight jobs one row per statement. SQLite keeps a statement
// journal (a copy of every page the statement changes, held in memory and freed when the statement ends)
// for a statement that writes several rows and may fail half-way, so that the failure undoes only that
// statement. A bulk write never needs that: any failure rolls back its whole transaction. A row's keys
// fall in no order in most of the record's indexes, so once they outgrow a statement's rows each row
// changes a page of its own in each of them: the journal, and its cost per row, grew with the store. A
// one-row INSERT keeps no statement journal.
//
// soloRecords is the size from which a bulk write runs in a transaction of its own (writeSolo) rather than
// in a savepoint of a shared one: a savepoint journals every page its write changes, for the same reason
// and at the same price, to save a commit that such a write barely notices.
const soloRecords = 64

// CreateRecords writes many records in one transaction with prepared one-row inserts. A record whose dedup
// key exists (or repeats within rs) comes back with Created=false and the first record's id. Idempotency and
// CountIdea do not apply here. An unknown referenced id fails the whole batch, writing nothing.
func (s *Store) CreateRecords(ctx context.Context, ws core.ID, rs []core.NewRecord) ([]core.BulkResult, error) {
	out := make([]core.BulkResult, len(rs))
	write := s.write
	if len(rs) >= soloRecords {
		write = s.writeSolo
	}
	err := write(ctx, "create records", func(tx *wtx) error {
		w := s.newRecordWriter(tx, ws)
		if _, err := w.workspace(); err != nil {
			return err
		}
		seen, err := w.existingDedupKeys(rs)
		if err != nil {
			return err
		}
		b := newBulk(w, len(rs))
		checkpoints := map[string]core.Checkpoint{}
		var order []string
		for i, nr := range rs {
			if c := nr.Checkpoint; c != nil {
				if _, ok := checkpoints[c.Name]; !ok {
					order = append(order, c.Name)
				}
				checkpoints[c.Name] = *c
			}
			if id, dup := seen[nr.DedupKey]; dup && nr.DedupKey != "" {
				out[i] = core.BulkResult{ID: id}
				continue
			}
			if err := b.add(nr); err != nil {
				return err
			}
			if nr.DedupKey != "" {
				seen[nr.DedupKey] = nr.ID
			}
			out[i] = core.BulkResult{ID: nr.ID, Created: true}
		}
		if err := b.flush(); err != nil {
			return err
		}
		if err := s.createdEvents(tx, ws, rs, out); err != nil {
			return err
		}
		for _, name := range order {
			if err := w.checkpoint(ptr(checkpoints[name])); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func ptr[T any](v T) *T { return &v }

// existingDedupKeys maps the batch's dedup keys that are already stored to their records' ids.
func (w *recordWriter) existingDedupKeys(rs []core.NewRecord) (map[string]core.ID, error) {
	found, back := map[string]core.ID{}, map[string]string{}
	var keys []any
	query := func() error {
		if len(keys) == 0 {
			return nil
		}
		rows, err := w.tx.QueryContext(w.ctx, `SELECT dedup_key, id FROM records WHERE workspace_id = ? AND dedup_key IN (`+
			strings.TrimSuffix(strings.Repeat("?, ", len(keys)), ", ")+`)`, append([]any{w.ws}, keys...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				k  string
				id core.ID
			)
			if err := rows.Scan(&k, &id); err != nil {
				return err
			}
			if orig, ok := back[k]; ok {
				k = orig
			}
			found[k] = id
		}
		keys = keys[:0]
		return rows.Err()
	}
	for _, nr := range rs {
		if nr.DedupKey == "" {
			continue
		}
		// A key whose customer was erased is stored as its keyed hash.
		erased, err := w.erasedKey(nr.DedupKey)
		if err != nil {
			return nil, err
		}
		back[erased] = nr.DedupKey
		if keys = append(keys, nr.DedupKey, erased); len(keys) >= 500 {
			if err := query(); err != nil {
				return nil, err
			}
		}
	}
	return found, query()
}

// bulk gathers the rows of records, their tags and their insight jobs, and writes them one row per
// statement (see soloRecords): records in seq order, so that the table's B-tree is appended to; tags and
// jobs after their records, because their foreign keys are checked at once.
type bulk struct {
	w                   *recordWriter
	pending             []pendingRecord
	records, tags, jobs *rowInsert
}

type pendingRecord struct {
	seq int64
	nr  core.NewRecord
	row []any
}

func newBulk(w *recordWriter, n int) *bulk {
	return &bulk{
		w:       w,
		pending: make([]pendingRecord, 0, n),
		records: newRowInsert(w, `INSERT INTO records(`+recordCols+`) VALUES `, recordColCount),
		tags:    newRowInsert(w, `INSERT INTO record_tags(record_id, tag_id, pos) VALUES `, 3),
		jobs:    newRowInsert(w, `INSERT INTO queue_items(`+jobInsertCols+`) VALUES `, jobInsertColCount),
	}
}

func (b *bulk) add(nr core.NewRecord) error {
	if _, err := b.w.refs(nr); err != nil {
		return err
	}
	var (
		ct        contactRow
		companyID string
		err       error
	)
	if nr.Contact != nil {
		if ct, companyID, err = b.w.contact(nr.Contact); err != nil {
			return err
		}
	}
	seq, err := b.w.seq(nr.CreatedAt)
	if err != nil {
		return err
	}
	b.pending = append(b.pending, pendingRecord{seq: seq, nr: nr, row: recordArgs(seq, b.w.ws, nr, ct.id, companyID)})
	return nil
}

func (b *bulk) flush() error {
	slices.SortFunc(b.pending, func(x, y pendingRecord) int { return cmp.Compare(x.seq, y.seq) })
	for _, p := range b.pending {
		b.records.add(p.row...)
		b.w.tx.indexNew(p.seq)
		for i, t := range p.nr.TagIDs {
			b.tags.add(p.nr.ID, t, i)
		}
		if p.nr.EnqueueInsight {
			b.jobs.add(b.w.jobArgs(p.nr)...)
		}
	}
	b.pending = b.pending[:0]
	for _, m := range []*rowInsert{b.records, b.tags, b.jobs} {
		if err := m.flush(); err != nil {
			return err
		}
	}
	return nil
}

// rowInsert buffers the rows of one table and inserts them one row per statement (see soloRecords). The
// statement comes from the writer's cache; in a transaction that finds it missing (the store's first bulk
// write) it is prepared once for that transaction rather than once per row.
type rowInsert struct {
	w     *recordWriter
	query string
	cols  int
	args  []any
}

func newRowInsert(w *recordWriter, prefix string, cols int) *rowInsert {
	return &rowInsert{w: w, query: prefix + placeholders(1, cols), cols: cols}
}

func (m *rowInsert) add(args ...any) { m.args = append(m.args, args...) }

func (m *rowInsert) flush() error {
	if len(m.args) == 0 {
		return nil
	}
	st, err := m.w.tx.stmt(m.query)
	if err != nil {
		return err
	}
	if st == nil {
		if st, err = m.w.tx.PrepareContext(m.w.ctx, m.query); err != nil {
			return err
		}
		defer st.Close()
	}
	for args := m.args; len(args) > 0; args = args[m.cols:] {
		if _, err := st.ExecContext(m.w.ctx, args[:m.cols]...); err != nil {
			return err
		}
	}
	clear(m.args) // the rows' values are garbage now; keep only the buffer
	m.args = m.args[:0]
	return nil
}

// BulkWriters is how many CreateRecords calls an importer may keep in flight. SQLite writes one at a time,
// but with two the next batch is prepared (validated, folded, sanitized) while the last one is written.
func (s *Store) BulkWriters() int { return 2 }
