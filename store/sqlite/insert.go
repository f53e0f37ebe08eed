package sqlite

import (
	"strconv"
	"strings"

	"github.com/feedbridge/feedbridge/core"
)

// recordCols are the columns every record insert writes, in the order of recordArgs.
const recordCols = `seq, id, workspace_id, type, title, description_html, description, search_text, status, source,
	assignee_id, product_id, contact_id, company_id, customer_email, reporter, release, timeframe, dedup_key, created_at, updated_at, created_by, import_run_id, origin`

const recordColCount = 24

// recordArgs are one row's values for recordCols.
func recordArgs(seq int64, ws core.ID, nr core.NewRecord, contactID, companyID string) []any {
	email := ""
	if nr.Contact != nil {
		email = nr.Contact.Email
	}
	var dedup any
	if nr.DedupKey != "" {
		dedup = nr.DedupKey
	}
	// Most descriptions are plain text, identical in both columns: the HTML column then holds '' (which a
	// real HTML description never is while its text is not empty) and the reader falls back to the text.
	html := nr.DescriptionHTML
	if html == nr.Description {
		html = ""
	}
	return []any{seq, nr.ID, ws, nr.Type, nr.Title, html, nr.Description, nr.SearchText, nr.Status, nr.Source,
		nullID(nr.AssigneeID), nullID(nr.ProductID), nullID(core.ID(contactID)), nullID(core.ID(companyID)), email,
		nr.Reporter, nr.Release, nr.Timeframe, dedup, ms(nr.CreatedAt), ms(nr.UpdatedAt), createdBy(nr), nullID(nr.ImportRun), nr.Origin}
}

// insertRecord is a create's record insert, built once rather than on every create (its text is also the
// statement cache's key, hashed on every lookup).
var insertRecord = `INSERT INTO records(` + recordCols + `) VALUES ` + placeholders(1, recordColCount)

// placeholders returns n groups of "(?, ?, …)" with cols marks each.
func placeholders(n, cols int) string {
	group := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
	return strings.TrimSuffix(strings.Repeat(group+", ", n), ", ")
}

// insert writes one record with its tags and returns it as Record would read it; queueCreated queues its
// insight job and events.
func (w *recordWriter) insert(nr core.NewRecord, r refs) (core.Record, error) {
	var ct contactRow
	var companyID, companyName string
	if nr.Contact != nil {
		var err error
		if ct, companyID, err = w.contact(nr.Contact); err != nil {
			return core.Record{}, err
		}
		companyName = w.companies[nr.Contact.Domain].name
	}
	seq, err := w.seq(nr.CreatedAt)
	if err != nil {
		return core.Record{}, err
	}
	if _, err := w.tx.ExecContext(w.ctx, insertRecord,
		recordArgs(seq, w.ws, nr, ct.id, companyID)...); err != nil {
		return core.Record{}, err
	}
	w.tx.indexNew(seq)
	if len(nr.TagIDs) > 0 {
		args := make([]any, 0, 3*len(nr.TagIDs))
		for i, t := range nr.TagIDs {
			args = append(args, nr.ID, t, i)
		}
		if _, err := w.tx.ExecContext(w.ctx, `INSERT INTO record_tags(record_id, tag_id, pos) VALUES `+placeholders(len(nr.TagIDs), 3), args...); err != nil {
			return core.Record{}, err
		}
	}
	rec := built(w.ws, nr, r, ct.id, companyID, companyName)
	rec.CustomerName = ct.name
	return rec, nil
}

// createdBy is the stored actor of a new record; "" (the system) when none was named.
func createdBy(nr core.NewRecord) string {
	if nr.CreatedBy.Kind == "" {
		return ""
	}
	return nr.CreatedBy.String()
}

const jobInsertCols = `id, queue, kind, workspace_id, order_key, body, state, retry_for_ms, run_at, give_up_at,
	created_at, updated_at`

const jobInsertColCount = 12

// jobArgs queues an insight job for the record on the general queue, due now and keyed by the record. The
// worker counts the attempts and decides when one is the last (FailItem's final); the give-up time only
// bounds a job that is retried without end.
func (w *recordWriter) jobArgs(nr core.NewRecord) []any {
	retryFor := core.DefaultRetryFor.Milliseconds()
	return []any{core.NewID(), core.InsightQueue, core.KindInsight, w.ws, nr.ID, []byte{}, core.JobQueued, retryFor,
		w.now, w.now + retryFor, w.now, w.now}
}

// queueCreated queues a new record's insight job and events, in one statement: each statement costs the
// single writer a good part of what its row does, and a create runs with the writer's queue waiting on it.
// The job comes first, as its seq did when it had a statement of its own. A repeated (queue, id) is
// ignored, as enqueue ignores it; the job's id is new.
//
// The rows share their workspace, key and time, and the job and every event of a create have the same
// kind, state and due time, so the statement binds those once and writes the constants into its text:
// an event binds its id, queue, body and retry window only. Every bound value is a conversion, a copy
// and an allocation on the writer, which every other write is waiting for.
func (w *recordWriter) queueCreated(nr core.NewRecord, events []core.QueueItem) error {
	if !nr.EnqueueInsight && len(events) == 0 {
		return nil
	}
	if !sharedItems(w.ws, nr.ID, events) {
		return w.queueCreatedEach(nr, events)
	}
	args := make([]any, 0, createdShared+1+createdPerEvent*len(events))
	args = append(args, string(w.ws), string(nr.ID), w.now)
	if nr.EnqueueInsight {
		args = append(args, string(core.NewID()))
	}
	for _, it := range events {
		args = append(args, string(it.ID), it.Queue, it.Body, retryWindow(it).Milliseconds())
	}
	_, err := w.tx.ExecContext(w.ctx, createdInsert(nr.EnqueueInsight, len(events)), args...)
	return err
}

// sharedItems reports whether every event is one a create writes for its record: the record's workspace
// and key, the event kind, no time of its own.
func sharedItems(ws, key core.ID, events []core.QueueItem) bool {
	for _, it := range events {
		if it.Workspace != ws || it.Key != string(key) || it.Kind != core.EventKind || !it.CreatedAt.IsZero() {
			return false
		}
	}
	return true
}

// queueCreatedEach queues the job and events with every column bound, for events queueCreated's shared
// statement does not describe.
func (w *recordWriter) queueCreatedEach(nr core.NewRecord, events []core.QueueItem) error {
	n := len(events)
	args := make([]any, 0, (n+1)*jobInsertColCount)
	if nr.EnqueueInsight {
		args = append(args, w.jobArgs(nr)...)
		n++
	}
	for _, it := range events {
		args = appendItemArgs(args, it, w.now)
	}
	_, err := w.tx.ExecContext(w.ctx, itemInsert(n), args...)
	return err
}

// The shared statement's parameters: ?1 the workspace, ?2 the key (the record's id), ?3 the time; then
// the job's id when there is a job; then each event's id, queue, body and retry window in milliseconds.
const (
	createdShared   = 3
	createdPerEvent = 4
)

// createdInserts are queueCreated's statements by whether there is a job and the number of events, built
// once; more events than that are built when needed.
var createdInserts = func() (out [2][8]string) {
	for job := range out {
		for n := range out[job] {
			out[job][n] = buildCreatedInsert(job == 1, n)
		}
	}
	return out
}()

func createdInsert(job bool, events int) string {
	j := 0
	if job {
		j = 1
	}
	if events < len(createdInserts[j]) {
		return createdInserts[j][events]
	}
	return buildCreatedInsert(job, events)
}

func buildCreatedInsert(job bool, events int) string {
	var rows []string
	p := createdShared + 1
	if job {
		retry := strconv.FormatInt(core.DefaultRetryFor.Milliseconds(), 10)
		rows = append(rows, `(?4, `+sqlText(core.InsightQueue)+`, `+sqlText(core.KindInsight)+`, ?1, ?2, X'', `+
			sqlText(core.JobQueued)+`, `+retry+`, ?3, ?3 + `+retry+`, ?3, ?3)`)
		p++
	}
	for range events {
		id, queue, body, retry := "?"+strconv.Itoa(p), "?"+strconv.Itoa(p+1), "?"+strconv.Itoa(p+2), "?"+strconv.Itoa(p+3)
		rows = append(rows, `(`+id+`, `+queue+`, `+sqlText(core.EventKind)+`, ?1, ?2, `+body+`, `+sqlText(core.JobQueued)+
			`, `+retry+`, ?3, ?3 + `+retry+`, ?3, ?3)`)
		p += createdPerEvent
	}
	return `INSERT INTO queue_items(` + jobInsertCols + `) VALUES ` + strings.Join(rows, ", ") +
		` ON CONFLICT (queue, id) DO NOTHING`
}

// sqlText is s as an SQL string literal.
func sqlText(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// itemInserts are the statements inserting one to len(itemInserts) queue items, built once.
var itemInserts = func() (out [8]string) {
	for i := range out {
		out[i] = buildItemInsert(i + 1)
	}
	return out
}()

// itemInsert is the statement inserting n queue items given as appendItemArgs gives them; a repeated
// (queue, id) is ignored.
func itemInsert(n int) string {
	if n <= len(itemInserts) {
		return itemInserts[n-1]
	}
	return buildItemInsert(n)
}

func buildItemInsert(n int) string {
	return `INSERT INTO queue_items(` + jobInsertCols + `) VALUES ` + placeholders(n, jobInsertColCount) +
		` ON CONFLICT (queue, id) DO NOTHING`
}

// built is the Record of a freshly written row, with the same values (and empty, non-nil slices) that
// reading it back gives.
func built(ws core.ID, nr core.NewRecord, r refs, contactID, companyID, companyName string) core.Record {
	rec := core.Record{
		ID: nr.ID, Workspace: ws, Type: nr.Type, Title: nr.Title, DescriptionHTML: nr.DescriptionHTML,
		Description: nr.Description, Status: nr.Status, AssigneeID: nr.AssigneeID, Assignee: r.assignee,
		ProductID: nr.ProductID, Product: r.product, TagIDs: append([]core.ID{}, nr.TagIDs...),
		Tags: append([]string{}, r.tags...), Source: nr.Source, Customer: companyName,
		CompanyID: core.ID(companyID), ContactID: core.ID(contactID), Reporter: nr.Reporter,
		Release: nr.Release, Timeframe: nr.Timeframe, Links: []core.ID{}, CreatedBy: core.ParseActor(createdBy(nr)),
		CreatedAt: fromMS(ms(nr.CreatedAt)), UpdatedAt: fromMS(ms(nr.UpdatedAt)),
	}
	if nr.Contact != nil {
		rec.CustomerEmail = nr.Contact.Email
	}
	if nr.Type == core.RecordIdea {
		rec.Accounts = core.RankAccounts(companyName, nil)
	}
	return rec
}
