package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// xssCorpus reads testdata/xss.txt.
func xssCorpus(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("testdata/xss.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := strings.NewReplacer("{TAB}", "\t", "{NL}", "\n", "{CR}", "\r", "{NUL}", "\x00")
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, r.Replace(line))
		}
	}
	return out
}

// dangerousElements run code, load code or change how the rest of a page is read.
var dangerousElements = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Iframe: true, atom.Frame: true, atom.Frameset: true, atom.Object: true,
	atom.Embed: true, atom.Applet: true, atom.Meta: true, atom.Link: true, atom.Base: true, atom.Form: true,
	atom.Input: true, atom.Button: true, atom.Svg: true, atom.Math: true, atom.Body: true, atom.Isindex: true,
	atom.Bgsound: true, atom.Xmp: true, atom.Noscript: true, atom.Template: true, atom.Textarea: true,
}

// urlAttrs are the attributes a browser follows or loads.
var urlAttrs = map[string]bool{"href": true, "src": true, "action": true, "formaction": true, "background": true,
	"dynsrc": true, "lowsrc": true, "data": true, "xlink:href": true, "poster": true, "srcset": true, "codebase": true}

// unsafeMarkup reports what in an HTML fragment a browser would run, parsing it where a page would put it
// (inside a div followed by more markup, so an unclosed tag is closed by what follows, as in a real page).
func unsafeMarkup(fragment string) []string {
	doc, err := html.Parse(strings.NewReader("<!DOCTYPE html><html><body><div>" + fragment + "</div><p class=after>after</p></body></html>"))
	if err != nil {
		return []string{"unparseable: " + err.Error()}
	}
	var found []string
	var walk func(n *html.Node, depth int)
	walk = func(n *html.Node, depth int) {
		if n.Type == html.ElementNode {
			// The page's own html, head and body are not the fragment's.
			own := depth <= 2 && (n.DataAtom == atom.Html || n.DataAtom == atom.Head || n.DataAtom == atom.Body)
			if dangerousElements[n.DataAtom] && !own || n.Namespace != "" {
				found = append(found, "element <"+n.Data+">")
			}
			for _, a := range n.Attr {
				key := strings.ToLower(a.Key)
				val := strings.ToLower(strings.Map(func(r rune) rune {
					if r <= ' ' || r == 0x7f {
						return -1 // browsers skip controls and whitespace inside a scheme
					}
					return r
				}, a.Val))
				switch {
				case strings.HasPrefix(key, "on"):
					found = append(found, "handler "+a.Key)
				case key == "style" && (strings.Contains(val, "expression") || strings.Contains(val, "url(") ||
					strings.Contains(val, "behavior") || strings.Contains(val, "binding") || strings.Contains(val, `\`)):
					found = append(found, "style "+a.Val)
				case urlAttrs[key] || a.Namespace != "":
					for _, scheme := range []string{"javascript:", "vbscript:", "livescript:", "data:"} {
						if strings.HasPrefix(val, scheme) {
							found = append(found, a.Key+"="+a.Val)
						}
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, depth+1)
		}
	}
	walk(doc, 0)
	return found
}

// hasTags reports whether plain text carries anything a browser would read as a tag.
func hasTags(s string) bool {
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return false
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken, html.CommentToken, html.DoctypeToken:
			return true
		}
	}
}

// Every OWASP filter-evasion vector of testdata/xss.txt goes in through both create endpoints, as the
// description (HTML) and in the title. Nothing executable is stored (the stored HTML is parsed as a
// browser would inside a page, so an unclosed tag is closed by the page's next one), descriptions in
// every response are plain text without tags, and every response is JSON that a browser will not sniff
// into HTML (titles are plain text and come back as sent; escaping them is the renderer's job).
func TestXSSCorpus(t *testing.T) {
	t.Parallel()
	corpus := xssCorpus(t)
	if len(corpus) < 100 {
		t.Fatalf("corpus has %d vectors", len(corpus))
	}
	eachStore(t, func(t *testing.T, storeURL string) {
		e := newEnv(t, storeURL, "insights: {provider: \"off\"}\n")
		_, key := e.workspace("XSS")
		d := e.start()
		db := e.inspect(storeURL)
		tried, refused := 0, 0
		check := func(what string, resp *http.Response, body []byte) {
			t.Helper()
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("%s: Content-Type %q", what, ct)
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s: no X-Content-Type-Options: nosniff, a browser may sniff the body as HTML", what)
			}
			var recs []map[string]any
			if err := json.Unmarshal(body, &recs); err != nil {
				var one map[string]any
				if json.Unmarshal(body, &one) != nil {
					t.Errorf("%s: body not JSON: %s", what, body)
				}
				recs = []map[string]any{one}
			}
			for _, r := range recs {
				if desc, _ := r["description"].(string); hasTags(desc) {
					t.Errorf("%s: description in the response carries markup: %q", what, desc)
				}
			}
		}
		for i, v := range corpus {
			for _, path := range []string{"/api/records/feedback", "/api/records/idea"} {
				body, _ := json.Marshal(map[string]string{"title": fmt.Sprintf("xss %d %s", i, v), "description": v})
				req, _ := http.NewRequest("POST", d.url(path), strings.NewReader(string(body)))
				req.Header.Set("x-api-key", key)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					t.Fatalf("vector %d: %v", i, err)
				}
				data, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				tried++
				what := fmt.Sprintf("vector %d via %s", i, path)
				switch resp.StatusCode {
				case 201:
				case 400:
					refused++ // refused outright (e.g. a NUL byte); the error body is checked too
				default:
					t.Errorf("%s: %d %s", what, resp.StatusCode, data)
				}
				check(what, resp, data)
			}
		}
		for _, typ := range []string{"Feedback", "Idea"} {
			resp, err := client.Do(authed(d.url("/api/records?limit=1000&record_type="+typ), key))
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			check("listing "+typ, resp, data)
		}
		// An empty description_html means "the same as description" (the store saves the copy).
		stored := db.strings(t, "SELECT CASE description_html WHEN '' THEN description ELSE description_html END FROM records")
		for _, h := range stored {
			if bad := unsafeMarkup(h); len(bad) > 0 {
				t.Errorf("stored HTML %q keeps %v", h, bad)
			}
		}
		figures(t, "vectors=%d requests=%d refused_400=%d stored=%d survived=0", len(corpus), tried, refused, len(stored))
	})
}

func authed(url, key string) *http.Request {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("x-api-key", key)
	return req
}
