package email

import "strings"

// Reasons a message is skipped rather than turned into a record; they are metric label values, so the set is
// small and fixed.
const (
	SkipAutoSubmitted  = "auto_submitted"   // RFC 3834 Auto-Submitted other than "no"
	SkipAutoReply      = "autoreply_header" // X-Autoreply, X-Autorespond and kin
	SkipPrecedence     = "precedence"       // Precedence: bulk, junk, auto_reply or list
	SkipNullReturnPath = "null_return_path" // Return-Path: <> (bounces and other automatic mail)
	SkipReport         = "delivery_report"  // multipart/report: delivery status or read receipts
	SkipDaemon         = "daemon_sender"    // mailer-daemon or postmaster
)

// SkipReasons lists every reason skipReason can return, for pre-declaring metric series.
var SkipReasons = []string{SkipAutoSubmitted, SkipAutoReply, SkipPrecedence, SkipNullReturnPath, SkipReport, SkipDaemon}

// skipReason tells auto-replies and bounces from mail a person wrote. Only the outer message counts: a
// colleague forwarding an out-of-office reply did so on purpose.
func skipReason(p *part) string {
	h := p.header
	if v := headerToken(h.Get("Auto-Submitted")); v != "" && v != "no" {
		return SkipAutoSubmitted
	}
	for _, k := range []string{"X-Autoreply", "X-Autorespond", "X-Autoresponder"} {
		if h.Has(k) {
			return SkipAutoReply
		}
	}
	switch headerToken(h.Get("Precedence")) {
	case "bulk", "junk", "auto_reply", "list":
		return SkipPrecedence
	}
	if h.Has("Return-Path") && strings.Trim(h.Get("Return-Path"), "<> \t") == "" {
		return SkipNullReturnPath
	}
	if strings.EqualFold(p.mediaType, "multipart/report") {
		return SkipReport
	}
	if at := strings.LastIndexByte(p.from.email, '@'); at > 0 {
		switch p.from.email[:at] {
		case "mailer-daemon", "postmaster":
			return SkipDaemon
		}
	}
	return ""
}

// headerToken returns the lowercase first token of a structured header value ("auto-replied; owner=x").
func headerToken(v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	if i := strings.IndexAny(v, "; \t("); i >= 0 {
		v = v[:i]
	}
	return v
}
