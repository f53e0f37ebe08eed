package postgres

// BulkSQL exposes the statements of CreateRecords to the plan test.
var BulkSQL = struct{ Table, Contacts, Insert string }{bulkTable, bulkContacts, bulkInsert}
