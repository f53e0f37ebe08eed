package sqlite

import (
	"encoding/json"

	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/internal/themeshare"
)

// rollupTables are the inserts of rollupShares: the records' shares per theme, their sums per day and
// theme, and per theme, day and company. The records' earlier insights were deleted in the same
// transaction, and the delete trigger took their shares away, so every share of these records is new.
var rollupTables = [3]rowInsert{
	{head: `INSERT INTO record_themes (workspace_id, record_id, theme, day, created_at, company_id, n, score, req, prob,
		praise, quest) VALUES `, cols: 12},
	{head: `INSERT INTO theme_days (workspace_id, day, theme, n, recs, score, req, prob, praise, quest) VALUES `, cols: 10,
		tail: ` ON CONFLICT (workspace_id, day, theme) DO UPDATE SET n = n + excluded.n, recs = recs + excluded.recs,
		score = score + excluded.score, req = req + excluded.req, prob = prob + excluded.prob,
		praise = praise + excluded.praise, quest = quest + excluded.quest`},
	{head: `INSERT INTO theme_day_companies (workspace_id, theme, day, company_id, n) VALUES `, cols: 5,
		tail: ` ON CONFLICT (workspace_id, theme, day, company_id) DO UPDATE SET n = n + excluded.n`},
}

// recordPlace is what the roll-up copies from a record: its creation (ms) and company (” for none).
type recordPlace struct {
	created int64
	company string
}

// rollupShares adds the shares of the results' records (each record once) to the theme roll-up: it reads
// the records' creation and company in one statement, sums the shares per day and theme and per company
// in Go, and writes each table in one statement. A record that no longer exists adds nothing.
func rollupShares(tx *wtx, results []core.JobResult) error {
	keys := make([][2]core.ID, len(results))
	for i, r := range results {
		keys[i] = [2]core.ID{r.Job.Workspace, r.Job.RecordID}
	}
	list, err := json.Marshal(keys)
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(tx.ctx, `SELECT r.id, r.created_at, coalesce(r.company_id, '') FROM json_each(?) k
		JOIN records r ON r.id = k.value ->> 1 WHERE r.workspace_id = k.value ->> 0`, string(list))
	if err != nil {
		return err
	}
	places := map[core.ID]recordPlace{}
	_, err = collect(rows, func(sc scanner) (struct{}, error) {
		var id core.ID
		var p recordPlace
		err := sc.Scan(&id, &p.created, &p.company)
		places[id] = p
		return struct{}{}, err
	})
	if err != nil {
		return err
	}
	type dayKey struct {
		ws    core.ID
		day   int64
		theme string
	}
	type companyKey struct {
		day     dayKey
		company string
	}
	var shares, dayRows, companyRows [][]any
	dayAt, companyAt := map[dayKey]int{}, map[companyKey]int{}
	for _, r := range results {
		p, ok := places[r.Job.RecordID]
		if !ok {
			continue
		}
		day := p.created / 86400000
		for _, sh := range themeshare.Shares(r) {
			shares = append(shares, []any{sh.Workspace, sh.Record, sh.Theme, day, p.created, p.company, sh.N, sh.Score,
				sh.Req, sh.Prob, sh.Praise, sh.Quest})
			dk := dayKey{sh.Workspace, day, sh.Theme}
			i, ok := dayAt[dk]
			if !ok {
				i = len(dayRows)
				dayAt[dk] = i
				dayRows = append(dayRows, []any{sh.Workspace, day, sh.Theme, 0, 0, 0.0, 0, 0, 0, 0})
			}
			d := dayRows[i]
			d[3], d[4], d[5] = d[3].(int)+sh.N, d[4].(int)+1, d[5].(float64)+sh.Score
			d[6], d[7], d[8], d[9] = d[6].(int)+sh.Req, d[7].(int)+sh.Prob, d[8].(int)+sh.Praise, d[9].(int)+sh.Quest
			if p.company == "" {
				continue
			}
			ck := companyKey{dk, p.company}
			if i, ok = companyAt[ck]; !ok {
				i = len(companyRows)
				companyAt[ck] = i
				companyRows = append(companyRows, []any{sh.Workspace, sh.Theme, day, p.company, 0})
			}
			companyRows[i][4] = companyRows[i][4].(int) + sh.N
		}
	}
	for i, rows := range [3][][]any{shares, dayRows, companyRows} {
		if err := rollupTables[i].exec(tx, rows); err != nil {
			return err
		}
	}
	return nil
}

// rowInsert is an INSERT of many rows given as head, a VALUES list and tail.
type rowInsert struct {
	head, tail string
	cols       int
}

// insertChunks are the row counts of the VALUES lists rowInsert.exec writes with, largest first: a fixed
// few statement texts, each prepared once, where one text per row count would crowd the statement cache.
var insertChunks = [...]int{32, 8, 1}

// exec inserts rows, as few statements of insertChunks' sizes as they fit in.
func (ri rowInsert) exec(tx *wtx, rows [][]any) error {
	for _, n := range insertChunks {
		query := ri.head + placeholders(n, ri.cols) + ri.tail
		for ; len(rows) >= n; rows = rows[n:] {
			args := make([]any, 0, n*ri.cols)
			for _, r := range rows[:n] {
				args = append(args, r...)
			}
			if _, err := tx.ExecContext(tx.ctx, query, args...); err != nil {
				return err
			}
		}
	}
	return nil
}
