package migration

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoad(t *testing.T) {
	file := func(sql string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(sql)} }
	ms, err := Load(fstest.MapFS{
		"m/0002_b.sql": file("B"), "m/0001_a.sql": file("A"), "m/0010_c.sql": file("C"),
	}, "m")
	if err == nil || !strings.Contains(err.Error(), "0010_c.sql: expected version 3") {
		t.Fatalf("a gap: %v, %v", ms, err)
	}
	ms, err = Load(fstest.MapFS{"m/0002_b.sql": file("B"), "m/0001_a.sql": file("A")}, "m")
	if err != nil || len(ms) != 2 || ms[0].SQL != "A" || ms[1].Name != "0002_b.sql" || Latest(ms, err) != 2 {
		t.Fatalf("in order: %+v, %v", ms, err)
	}
	for _, bad := range []string{"m/a_x.sql", "m/0_x.sql", "m/0001.sql"} {
		if _, err := Load(fstest.MapFS{bad: file("X")}, "m"); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
	if Latest(nil, nil) != -1 {
		t.Error("Latest of nothing")
	}
}
