package webhook

import (
	"sort"
	"strings"
)

// A preset is what a common sender needs: how it signs and where its payload keeps each record field.
// The shapes are those of the senders' public documentation; testdata/presets holds a payload of each,
// written here in that shape, with the records it must give.
type preset struct {
	header, prefix, encoding, algorithm, timestampHeader string
	source, descriptionFormat                            string
	mapping                                              Mapping
}

var presets = map[string]preset{
	// Zendesk webhooks subscribed to ticket events (zen:event-type:ticket.created): the ticket is under
	// "detail". The signature is base64(HMAC-SHA256(timestamp + body)) with the timestamp in its own
	// header. The event names the requester by id only, so these records have no customer unless a
	// trigger's custom body carries the address and customer_email is mapped to it.
	"zendesk": {
		header: "X-Zendesk-Webhook-Signature", prefix: "", encoding: "base64", algorithm: "sha256",
		timestampHeader: "X-Zendesk-Webhook-Signature-Timestamp", source: "Zendesk",
		mapping: Mapping{Title: "detail.subject", Description: "detail.description", ExternalID: "detail.id",
			CreatedAt: "detail.created_at", Tags: "detail.tags"},
	},
	// Intercom notification events (conversation.user.created): the conversation is data.item, its first
	// message data.item.source with an HTML body and its author. Intercom signs with HMAC-SHA1 only, as
	// "sha1=<hex>" in X-Hub-Signature, without a timestamp.
	"intercom": {
		header: "X-Hub-Signature", prefix: "sha1=", encoding: "hex", algorithm: "sha1", source: "Intercom",
		descriptionFormat: "html",
		mapping: Mapping{Title: "data.item.source.subject", Description: "data.item.source.body",
			CustomerEmail: "data.item.source.author.email", CustomerName: "data.item.source.author.name",
			ExternalID: "data.item.id", CreatedAt: "data.item.created_at", Tags: "data.item.tags.tags[*].name"},
	},
	// Typeform form_response events: answers is a list, each naming its field (id, type, ref) and holding
	// the value under a key of its type (text, email, choice …). The title is the answer to the question
	// whose ref is "title", the customer's name the one whose ref is "name"; long-text answers make the
	// description. Signature: "sha256=" + base64(HMAC-SHA256(body)) in Typeform-Signature.
	"typeform": {
		header: "Typeform-Signature", prefix: "sha256=", encoding: "base64", algorithm: "sha256", source: "Other",
		mapping: Mapping{Title: "form_response.answers[field.ref=title].text",
			Description:   "form_response.answers[field.type=long_text].text",
			CustomerEmail: "form_response.answers[type=email].email",
			CustomerName:  "form_response.answers[field.ref=name].text",
			ExternalID:    "form_response.token", CreatedAt: "form_response.submitted_at",
			Tags: "form_response.hidden.tags"},
	},
}

// applyTo fills every key the entry does not give from the preset.
func (p preset) applyTo(c Config, given func(key string) bool) Config {
	set := func(key string, v *string, d string) {
		if !given(key) {
			*v = d
		}
	}
	set("signature_header", &c.SignatureHeader, p.header)
	set("signature_prefix", &c.SignaturePrefix, p.prefix)
	set("signature_encoding", &c.SignatureEncoding, p.encoding)
	set("signature_algorithm", &c.SignatureAlgorithm, p.algorithm)
	set("timestamp_header", &c.TimestampHeader, p.timestampHeader)
	set("source", &c.Source, p.source)
	if p.descriptionFormat != "" {
		set("description_format", &c.DescriptionFormat, p.descriptionFormat)
	}
	m := &c.Mapping
	set("mapping.each", &m.Each, p.mapping.Each)
	set("mapping.title", &m.Title, p.mapping.Title)
	set("mapping.description", &m.Description, p.mapping.Description)
	set("mapping.customer_email", &m.CustomerEmail, p.mapping.CustomerEmail)
	set("mapping.customer_name", &m.CustomerName, p.mapping.CustomerName)
	set("mapping.source", &m.Source, p.mapping.Source)
	set("mapping.created_at", &m.CreatedAt, p.mapping.CreatedAt)
	set("mapping.external_id", &m.ExternalID, p.mapping.ExternalID)
	set("mapping.tags", &m.Tags, p.mapping.Tags)
	return c
}

func presetNames() string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
