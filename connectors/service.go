package connectors

import (
	"context"
	"time"

	"github.com/feedbridge/feedbridge/core"
)

// Service is everything a connector may ask of feedbridge: the one door between a kind and the rest of
// the daemon, and the whole list of it. The daemon gives its core.Service, which enforces the contract
// on every call (a kind never reaches the store), and connectortest gives the same. Leases come through
// it too, so that an entry's lease and its records take the same path. A kind that needs more asks for it
// here, where its reviewer sees it.
type Service interface {
	// Records. Submit and SubmitBatch create records (typed text with PlainText); Check validates a
	// submission without writing it; BatchWriters is how many SubmitBatch calls may usefully run at once.
	Submit(ctx context.Context, ws core.ID, sub core.Submission) (core.Result, error)
	SubmitBatch(ctx context.Context, ws core.ID, subs []core.Submission) ([]core.BatchResult, error)
	Check(sub core.Submission) error
	BatchWriters() int

	// Lookups, to offer the workspace's labels (Slack's modal).
	Tags(ctx context.Context, ws core.ID) ([]core.Lookup, error)
	Products(ctx context.Context, ws core.ID) ([]core.Lookup, error)
	Users(ctx context.Context, ws core.ID) ([]core.Lookup, error)
	Workspaces(ctx context.Context) ([]core.Workspace, error)

	// Where an entry is: a checkpoint outside a record, and the status GET /api/connectors shows (write
	// it through Entry.Report or Board.Flush, not directly).
	Checkpoint(ctx context.Context, ws core.ID, name string) (string, error)
	SetCheckpoint(ctx context.Context, ws core.ID, name, value string) error
	ReportConnector(ctx context.Context, st core.ConnectorStatus) error
	// CountConnector adds to today's counts of items taken and refused (the console's connectors page);
	// kept in memory and written by the daemon every few seconds.
	CountConnector(ws core.ID, name string, taken, refused int)

	// Import runs, for a kind that imports files.
	StartImport(ctx context.Context, ws core.ID, connector, file string) (core.ImportRun, error)
	FinishImport(ctx context.Context, run core.ImportRun) error
	ImportRuns(ctx context.Context, ws core.ID) ([]core.ImportRun, error)
	ImportRun(ctx context.Context, ws core.ID, id core.ID) (core.ImportRun, error)
	// KeepFailedRows keeps a run's failed rows for download; ForgetFailedRows drops those of runs that
	// started before a time.
	KeepFailedRows(ctx context.Context, ws, run core.ID, header []string, rows []core.FailedRow) error
	ForgetFailedRows(ctx context.Context, ws core.ID, before time.Time) (int, error)

	// Deliveries: input answered before it is written, kept until a worker writes it.
	QueueDelivery(ctx context.Context, ws core.ID, entry string, body []byte) (core.Delivery, error)
	ClaimDeliveries(ctx context.Context, entry, worker string, n int, lease time.Duration) ([]core.Delivery, error)
	FinishDelivery(ctx context.Context, d core.Delivery, worker string) error
	FailDelivery(ctx context.Context, d core.Delivery, worker, msg string, retryAt time.Time, final bool) error
	Deliveries(ctx context.Context, ws core.ID, entry string) ([]core.Delivery, error)

	// Leases, for work that runs on one replica at a time (RunExclusive).
	core.Leases

	// Now is the service's clock.
	Now() time.Time
}

var _ Service = (*core.Service)(nil)
