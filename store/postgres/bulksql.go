package postgres

// The statements of CreateRecords. The batch is first copied into bulk_records, a temporary table each
// connection creates once and PostgreSQL empties at every commit; every statement then reads the batch
// from it, with the workspace id as $1. Companies and contacts are added in key order, so that two
// batches that share some lock them in the same order.
//
// A batch's row meets a contact or a dedup key of the store through an index probe of its own: a scalar
// subquery, or a NOT EXISTS that OFFSET 0 keeps from becoming a join. As joins, the planner (which prices
// a probe as a read from disk, and has no statistics on a table that grew since its last ANALYZE) hashes
// or materializes every contact or key of the workspace for each batch instead, and an import then slows
// as its workspace grows. The workspace's companies, a few hundred, are left to the planner.
const (
	bulkTable = `CREATE TEMP TABLE IF NOT EXISTS bulk_records (
		ord int NOT NULL, id text NOT NULL, type text NOT NULL, title text NOT NULL, description_html text NOT NULL,
		description text NOT NULL, search_text text NOT NULL, status text NOT NULL, source text NOT NULL,
		assignee_id text NOT NULL, product_id text NOT NULL, tag_ids text[] NOT NULL, customer_email text NOT NULL,
		email_key text NOT NULL, contact_name text NOT NULL, contact_id text NOT NULL, domain text NOT NULL,
		company_name text NOT NULL, company_id text NOT NULL, reporter text NOT NULL, release text NOT NULL,
		timeframe text NOT NULL, dedup_key text, erased_key text, created_at timestamptz NOT NULL,
		updated_at timestamptz NOT NULL, created_by text NOT NULL, import_run_id text, origin text NOT NULL, job_id text
	) ON COMMIT DELETE ROWS`

	// An existing company keeps its name; a new one takes the name of the batch's first row of its domain.
	bulkCompanies = `INSERT INTO companies (workspace_id, id, name, domain)
	 SELECT DISTINCT ON (b.domain) $1, b.company_id, b.company_name, b.domain
	 FROM pg_temp.bulk_records b WHERE b.domain <> ''
	 ORDER BY b.domain, b.ord
	 ON CONFLICT (workspace_id, domain) DO NOTHING`

	// A new contact takes the address and name of the batch's first row of its address key that gives a
	// name, else of its first row. An existing contact only gains a name or company it lacks, and one that
	// lacks nothing the batch could give it is not written at all (not even locked), as in CreateRecord.
	bulkContacts = `INSERT INTO contacts (workspace_id, id, email, email_key, name, company_id)
	 SELECT $1, c.contact_id, c.customer_email, c.email_key, c.contact_name, coalesce(co.id, '')
	 FROM (SELECT DISTINCT ON (email_key) contact_id, customer_email, email_key, contact_name, domain
		FROM pg_temp.bulk_records WHERE email_key <> '' ORDER BY email_key, contact_name = '', ord) c
	 LEFT JOIN companies co ON co.workspace_id = $1 AND co.domain = c.domain AND c.domain <> ''
	 WHERE NOT EXISTS (
		SELECT 1 FROM contacts x WHERE x.workspace_id = $1 AND x.email_key = c.email_key
		AND (x.name <> '' OR c.contact_name = '') AND (x.company_id <> '' OR co.id IS NULL) OFFSET 0)
	 ORDER BY c.email_key
	 ON CONFLICT (workspace_id, email_key) DO UPDATE
	 SET name = CASE WHEN contacts.name = '' THEN excluded.name ELSE contacts.name END,
	     company_id = CASE WHEN contacts.company_id = '' THEN excluded.company_id ELSE contacts.company_id END
	 WHERE contacts.name = '' AND excluded.name <> '' OR contacts.company_id = '' AND excluded.company_id <> ''`

	// The records, joined to their contacts and companies, and the insight jobs of those inserted; it
	// returns the ids of the records inserted. A row yields to a stored record with its dedup key (the
	// unique index decides, also against a concurrent writer) or with the key's erased form. $2, $3 and $4
	// are the insight jobs' queue, kind and retry window in milliseconds.
	bulkInsert = `WITH ins AS (
		INSERT INTO records (workspace_id, id, type, title, description_html, description, search_text, status,
			source, assignee_id, product_id, tag_ids, contact_id, company_id, customer_email, reporter, release,
			timeframe, dedup_key, created_at, updated_at, created_by, import_run_id, origin)
		SELECT $1, b.id, b.type, b.title, b.description_html, b.description, b.search_text, b.status,
			b.source, b.assignee_id, b.product_id, b.tag_ids,
			coalesce((SELECT ct.id FROM contacts ct WHERE ct.workspace_id = $1 AND ct.email_key = b.email_key AND b.email_key <> ''), ''),
			coalesce(co.id, ''), b.customer_email,
			b.reporter, b.release, b.timeframe, b.dedup_key, b.created_at, b.updated_at, b.created_by, b.import_run_id, b.origin
		FROM pg_temp.bulk_records b
		LEFT JOIN companies co ON co.workspace_id = $1 AND co.domain = b.domain AND b.domain <> ''
		WHERE NOT EXISTS (SELECT 1 FROM records x WHERE x.workspace_id = $1 AND x.dedup_key = b.erased_key OFFSET 0)
		ORDER BY b.ord
		ON CONFLICT (workspace_id, dedup_key) DO NOTHING
		RETURNING id
	 ), jobs AS (
		INSERT INTO queue_items (id, queue, kind, workspace_id, order_key, body, state, retry_for_ms, run_at,
			give_up_at, created_at, updated_at)
		SELECT b.job_id, $2, $3, $1, b.id, '', 'queued', $4::bigint, ` + txNow + `,
			` + txNow + ` + $4::bigint * interval '1 millisecond', ` + txNow + `, ` + txNow + `
		FROM ins JOIN pg_temp.bulk_records b ON b.id = ins.id
		WHERE b.job_id IS NOT NULL
	 )
	 SELECT id FROM ins`
)

// bulkCols are the columns of bulk_records in the order newBulk lays out a row.
var bulkCols = []string{"ord", "id", "type", "title", "description_html", "description", "search_text", "status",
	"source", "assignee_id", "product_id", "tag_ids", "customer_email", "email_key", "contact_name", "contact_id",
	"domain", "company_name", "company_id", "reporter", "release", "timeframe", "dedup_key", "erased_key",
	"created_at", "updated_at", "created_by", "import_run_id", "origin", "job_id"}
