package config

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// keyLines maps the dotted path of every mapping key in a YAML document to its line (1-based), so that a
// problem with a key can say where it is. Keys inside lists are left out: their entries belong to the
// connector packages, which name them by entry.
func keyLines(b []byte) map[string]int {
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	out := map[string]int{}
	var walk func(n *yaml.Node, prefix string)
	walk = func(n *yaml.Node, prefix string) {
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			path := join(prefix, n.Content[i].Value)
			out[path] = n.Content[i].Line
			walk(n.Content[i+1], path)
		}
	}
	walk(doc.Content[0], "")
	return out
}

// parserProblems are the YAML parser's (not scanner's) messages. The YAML library numbers the lines of
// these from 0 while it numbers every other message from 1, so their line is one short.
var parserProblems = []string{
	"did not find expected <document start>", "did not find expected node content", "did not find expected key",
	"did not find expected '-' indicator", "did not find expected ',' or ']'", "did not find expected ',' or '}'",
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlError corrects the line number of a YAML parser error (see parserProblems).
func yamlError(err error) error {
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	for _, p := range parserProblems {
		if strings.HasPrefix(m[2], p) {
			n, _ := strconv.Atoi(m[1])
			return errors.New("yaml: line " + strconv.Itoa(n+1) + ": " + m[2])
		}
	}
	return err
}
