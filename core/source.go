package core

import "strings"

// Sources is the canonical set of source labels.
var Sources = []string{
	"Manual", "API", "Email", "Slack", "CSV", "Intercom", "Zendesk", "HubSpot", "Salesforce",
	"Microsoft Teams", "Discord", "Web", "Widget", "Chrome Extension", "Zapier", "Jira", "Linear", "Other",
}

// sourceKeys maps a squashed label (see squashSource) to its canonical form: every canonical label plus
// the synonyms of the contract. Built once; read-only afterwards.
var sourceKeys = func() map[string]string {
	m := make(map[string]string, len(Sources)+16)
	for _, s := range Sources {
		m[squashSource(s)] = s
	}
	synonyms := map[string]string{
		"e-mail": "Email", "mail": "Email", "imap": "Email", "inbox": "Email",
		"csv import": "CSV", "import": "CSV", "spreadsheet": "CSV", "excel": "CSV",
		"teams": "Microsoft Teams", "ms teams": "Microsoft Teams",
		"website": "Web", "portal": "Web",
		"rest":   "API",
		"chrome": "Chrome Extension", "extension": "Chrome Extension",
	}
	for k, v := range synonyms {
		m[squashSource(k)] = v
	}
	return m
}()

// squashSource drops case, spaces, '-', '_' and '.' so that "E-Mail", "e_mail" and "EMAIL" compare equal.
func squashSource(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch r {
		case ' ', '\t', '-', '_', '.':
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// NormalizeSource maps a free-form origin label onto the canonical set. A blank label gives def (or
// "Manual" when def is empty); an unknown one gives "Other".
func NormalizeSource(label, def string) string {
	if strings.TrimSpace(label) == "" {
		if def == "" {
			return "Manual"
		}
		return def
	}
	if s, ok := sourceKeys[squashSource(label)]; ok {
		return s
	}
	return "Other"
}
