// Package csvimport turns CSV exports into feedback records, on a cron schedule from a folder or an HTTPS
// URL, or once from the command line. Its reader copes with whatever Excel and helpdesk tools write
// (BOMs, UTF-16, Windows-1252, any of four delimiters, loose quoting, odd header spellings) in constant
// memory, and every row that cannot be imported comes back in an errors file instead of sinking the run.
package csvimport
