// Package slack is feedbridge's Slack connector: the /feedback and /idea slash commands, the "Save as
// feedback" message shortcut and the /idea modal, served on POST /slack/commands and /slack/interactions.
// Every request's signature is checked against the signing secret of a configured app before anything is
// parsed, and retried or repeated requests create one record.
package slack
