package api

// postgresOpener returns nil until the PostgreSQL store builds.
func postgresOpener() opener { return nil }
