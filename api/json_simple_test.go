package api

import (
	"reflect"
	"testing"
)

// patchFields are the fields of a PATCH body, each with a fresh destination.
func patchFields() []bodyField {
	var (
		strs [len(patchStrings)]string
		tags []string
		imp  int
	)
	fields := make([]bodyField, 0, len(patchStrings)+2)
	for i, name := range patchStrings {
		fields = append(fields, bodyField{name, &strs[i]})
	}
	return append(fields, bodyField{"tags", &tags}, bodyField{"importance", &imp})
}

// values are the decoded destinations of fields, to compare two decodes.
func values(fields []bodyField) []any {
	out := make([]any, len(fields))
	for i, f := range fields {
		out[i] = reflect.ValueOf(f.dst).Elem().Interface()
	}
	return out
}

// checkSimple fails unless the one-pass reading of body, when it takes the body at all, gives exactly what
// the encoding/json reading gives: the same fields sent, the same nulls, the same values.
func checkSimple(t *testing.T, body []byte) bool {
	t.Helper()
	simple, general := patchFields(), patchFields()
	m, ok := decodeSimple(body, simple)
	if !ok {
		if !reflect.DeepEqual(values(simple), values(patchFields())) {
			t.Fatalf("%q: refused by the shortcut, yet fields were filled: %v", body, values(simple))
		}
		return false
	}
	gm, err := decodeGeneral(body, general)
	if err != nil {
		t.Fatalf("%q: the shortcut took a body that the general reading refuses: %v", body, err)
	}
	if m != gm || !reflect.DeepEqual(values(simple), values(general)) {
		t.Fatalf("%q: shortcut %+v %v, general %+v %v", body, m, values(simple), gm, values(general))
	}
	return true
}

func TestDecodeSimple(t *testing.T) {
	tests := []struct {
		body  string
		taken bool
	}{
		{`{}`, true},
		{" \t\r\n{ } \n", true},
		{`{"status":"Planned"}`, true},
		{`{"title":"Export, {fast} [now]","description":"é ✓ 日本","customer_name":null}` + "\n", true},
		{`{ "status" : "Done" , "importance" : null , "tags" : null }`, true},
		{`{"status":""}`, true},
		{`{"status":"Done","status":"Triage"}`, false},
		{`{"Status":"Done"}`, false},
		{`{"stat\u0075s":"Done"}`, false},
		{`{"status":"a\"b"}`, false},
		{`{"status":"a\nb"}`, false},
		{"{\"status\":\"a\tb\"}", false},
		{"{\"status\":\"\xff\"}", false},
		{`{"status":5}`, false},
		{`{"importance":3}`, false},
		{`{"tags":["x"]}`, false},
		{`{"status":"Done",}`, false},
		{`{"status":"Done"} {}`, false},
		{`{"status":"Done"`, false},
		{`{"status" "Done"}`, false},
		{`{"status":nullx}`, false},
		{`{"status":nul}`, false},
		{`null`, false},
		{``, false},
		{`[]`, false},
		{`{"status":{"a":1}}`, false},
	}
	for _, tc := range tests {
		if got := checkSimple(t, []byte(tc.body)); got != tc.taken {
			t.Errorf("%q: taken by the shortcut %v, want %v", tc.body, got, tc.taken)
		}
	}
}

func FuzzDecodeSimple(f *testing.F) {
	for _, s := range bodySeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"status":"Done","importance":null}`))
	f.Fuzz(func(t *testing.T, body []byte) { checkSimple(t, body) })
}
