// Package email is the inbox connector: it polls IMAP mailboxes and turns each customer message, direct or
// forwarded by a colleague, into exactly one Feedback record. Parsing (Parser) is separate from polling so that
// the rules for forwards, quoted history, signatures and auto-replies can be tested on golden messages alone.
package email
