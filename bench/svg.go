package main

import (
	"fmt"
	"html"
	"math"
	"os"
	"strconv"
	"strings"
)

// series is one line of a chart; NaN values leave a gap.
type series struct {
	Name  string
	Color string
	Y     []float64
}

// chart is a line chart over x = 0, 1, 2, … (seconds of the load test), written as plain SVG.
type chart struct {
	Title, XLabel, YLabel string
	Series                []series
}

const (
	svgW, svgH                     = 760, 300
	padL, padR, padT, padB float64 = 64, 16, 34, 44
)

// niceMax rounds v up to a round number (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten), which
// five grid lines divide evenly.
func niceMax(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// xStep is a round tick spacing giving at most about eight ticks over 0..xmax.
func xStep(xmax float64) float64 {
	for _, s := range []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1200, 3600} {
		if xmax/s <= 8 {
			return s
		}
	}
	return niceMax(xmax / 8)
}

// write renders the chart to path.
func (c chart) write(path string) error {
	return os.WriteFile(path, []byte(c.svg()), 0o644)
}

func (c chart) svg() string {
	n, ymax := 0, 0.0
	for _, s := range c.Series {
		n = max(n, len(s.Y))
		for _, y := range s.Y {
			if !math.IsNaN(y) {
				ymax = max(ymax, y)
			}
		}
	}
	ymax = niceMax(ymax)
	xmax := float64(max(n-1, 1))
	plotW, plotH := svgW-padL-padR, svgH-padT-padB
	px := func(x float64) float64 { return padL + x/xmax*plotW }
	py := func(y float64) float64 { return padT + plotH - y/ymax*plotH }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", svgW, svgH, svgW, svgH)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%g" y="20" font-size="13" font-weight="bold">%s</text>`+"\n", padL, html.EscapeString(c.Title))
	for i := 0; i <= 5; i++ { // horizontal grid and y ticks
		y := ymax * float64(i) / 5
		fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#ddd"/>`+"\n", padL, py(y), padL+plotW, py(y))
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" text-anchor="end">%s</text>`+"\n", padL-6, py(y)+4, strconv.FormatFloat(y, 'g', 4, 64))
	}
	step := xStep(xmax)
	for x := 0.0; x <= xmax; x += step { // x ticks
		fmt.Fprintf(&b, `<text x="%.1f" y="%g" text-anchor="middle">%g</text>`+"\n", px(x), padT+plotH+16, x)
	}
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#888"/>`+"\n", padL, padT, plotW, plotH)
	fmt.Fprintf(&b, `<text x="%g" y="%d" text-anchor="middle">%s</text>`+"\n", padL+plotW/2, svgH-8, html.EscapeString(c.XLabel))
	fmt.Fprintf(&b, `<text transform="translate(14 %g) rotate(-90)" text-anchor="middle">%s</text>`+"\n", padT+plotH/2, html.EscapeString(c.YLabel))
	for i, s := range c.Series {
		var path strings.Builder
		pen := "M"
		for x, y := range s.Y {
			if math.IsNaN(y) {
				pen = "M"
				continue
			}
			fmt.Fprintf(&path, "%s%.1f %.1f ", pen, px(float64(x)), py(y))
			pen = "L"
		}
		fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", strings.TrimSpace(path.String()), s.Color)
		// The legend sits in the title row, right-aligned, so it never hides a line.
		lx := svgW - padR - float64(len(c.Series)-i)*90
		fmt.Fprintf(&b, `<line x1="%g" y1="16" x2="%g" y2="16" stroke="%s" stroke-width="3"/>`, lx, lx+18, s.Color)
		fmt.Fprintf(&b, `<text x="%g" y="20">%s</text>`+"\n", lx+23, html.EscapeString(s.Name))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// loadCharts draws latency, memory and throughput over the seconds of the load test.
func loadCharts(r *LoadResult) (latency, memory, traffic chart) {
	nan := math.NaN()
	var p50, p95, p99, rssMB, reqs, errs []float64
	for _, s := range r.Seconds {
		if s.Requests-s.Errors > 0 {
			p50, p95, p99 = append(p50, ms(s.P50)), append(p95, ms(s.P95)), append(p99, ms(s.P99))
		} else {
			p50, p95, p99 = append(p50, nan), append(p95, nan), append(p99, nan)
		}
		if s.RSSKB > 0 {
			rssMB = append(rssMB, float64(s.RSSKB)/1024)
		} else {
			rssMB = append(rssMB, nan)
		}
		if s.Second < int(r.Duration.Seconds()) {
			reqs, errs = append(reqs, float64(s.Requests)), append(errs, float64(s.Errors))
		}
	}
	title := fmt.Sprintf("%.0f req/s open loop", r.Rate)
	latency = chart{Title: "Latency per second — " + title, XLabel: "seconds since start", YLabel: "ms",
		Series: []series{{"p50", "#1f77b4", p50}, {"p95", "#ff7f0e", p95}, {"p99", "#d62728", p99}}}
	memory = chart{Title: "Daemon RSS (VmRSS) — " + title, XLabel: "seconds since start", YLabel: "MiB",
		Series: []series{{"RSS", "#2ca02c", rssMB}}}
	traffic = chart{Title: "Requests and errors per second — " + title, XLabel: "seconds since start", YLabel: "requests",
		Series: []series{{"requests", "#1f77b4", reqs}, {"errors", "#d62728", errs}}}
	return latency, memory, traffic
}
