package postgres

// ListSQL is the listing's statement, for tests that read its plan.
var ListSQL = listSQL
