package analyze

import (
	"fmt"
	"html"
	"io"
	"strings"
)

// WriteSVG draws, for each scheme side by side, the distribution of its
// logical partition sizes (top) and the write load of its physical
// partitions against their capacity (bottom).
func (r *Report) WriteSVG(w io.Writer) error {
	const (
		colW, chartW, chartH = 340, 280, 150
		left, top            = 50, 60
	)
	n := len(r.Schemes)
	width, height := 60+n*colW, 470
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	p(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	p(`<text x="10" y="20" font-size="14" font-weight="bold">%s</text>`+"\n",
		html.EscapeString(fmt.Sprintf("Partition analysis: %s todos, %s stored; recommended: %s", fmtInt(r.Input.Todos), fmtBytes(r.Input.Bytes), r.Recommendation.Scheme)))
	p(`<text x="10" y="38" fill="#555">%s</text>`+"\n", html.EscapeString(fmt.Sprintf(
		"top: logical partitions by size (log2 bins); bottom: share of %s RU/s write demand per physical partition, red line = capacity (%s RU/s provisioned)",
		fmtInt(int64(r.Options.Demand)), fmtInt(int64(r.Options.Throughput)))))
	for i, s := range r.Schemes {
		x0 := 10 + i*colW + left
		title := s.Label
		if s.Name == r.Recommendation.Scheme {
			title += " (recommended)"
		}
		p(`<text x="%d" y="%d" font-size="13" font-weight="bold">%s</text>`+"\n", x0, top, html.EscapeString(title))

		// Size histogram.
		y0 := top + 20
		maxCount := 1
		for _, bin := range s.Logical.Histogram {
			maxCount = max(maxCount, bin.Count)
		}
		p(`<text x="%d" y="%d" fill="#555">%s partitions, largest %s</text>`+"\n", x0, y0-4,
			fmtInt(int64(s.Logical.Count)), html.EscapeString(fmtBytes(s.Logical.Largest.Bytes)))
		p(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/>`+"\n", x0, y0+chartH, x0+chartW, y0+chartH)
		p(`<text x="%d" y="%d" text-anchor="end" fill="#555">%d</text>`+"\n", x0-4, y0+10, maxCount)
		p(`<text x="%d" y="%d" text-anchor="end" fill="#555">0</text>`+"\n", x0-4, y0+chartH)
		if nb := len(s.Logical.Histogram); nb > 0 {
			bw := float64(chartW) / float64(nb)
			for j, bin := range s.Logical.Histogram {
				h := float64(chartH) * float64(bin.Count) / float64(maxCount)
				bx := float64(x0) + float64(j)*bw
				p(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#4a7fb5"><title>%s to %s: %d partitions</title></rect>`+"\n",
					bx+1, float64(y0+chartH)-h, bw-2, h, html.EscapeString(fmtBytes(bin.Min)), html.EscapeString(fmtBytes(bin.Max)), bin.Count)
				if j == 0 || j == nb-1 || nb <= 6 {
					p(`<text x="%.1f" y="%d" text-anchor="middle" fill="#555" font-size="9">%s</text>`+"\n",
						bx+bw/2, y0+chartH+12, html.EscapeString(fmtBytes(bin.Min)))
				}
			}
		}

		// Physical partition load against capacity.
		y1 := y0 + chartH + 50
		wr := s.Writes
		capShare := wr.CapacityRU / r.Options.Demand
		maxShare := capShare * 1.25
		for _, v := range wr.Loads {
			maxShare = max(maxShare, v*1.05)
		}
		status := "within capacity"
		if wr.Throttled {
			status = "THROTTLED"
		}
		p(`<text x="%d" y="%d" fill="#555">%d physical; hottest logical %.1f%% of writes; %s</text>`+"\n",
			x0, y1-4, wr.Partitions, wr.Hottest.Share*100, status)
		p(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/>`+"\n", x0, y1+chartH, x0+chartW, y1+chartH)
		p(`<text x="%d" y="%d" text-anchor="end" fill="#555">%.0f%%</text>`+"\n", x0-4, y1+10, maxShare*100)
		loads := wr.Loads
		if len(loads) > 64 {
			loads = loads[:64]
		}
		bw := float64(chartW) / float64(max(1, len(loads)))
		for j, v := range loads {
			h := float64(chartH) * v / maxShare
			fill := "#6aa84f"
			if v > capShare*1.0001 {
				fill = "#cc4125"
			}
			p(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>physical %d: %.1f%% of writes, %s RU/s</title></rect>`+"\n",
				float64(x0)+float64(j)*bw+1, float64(y1+chartH)-h, max(bw-2, 1), h, fill, j, v*100, fmtInt(int64(v*r.Options.Demand)))
		}
		cy := float64(y1+chartH) - float64(chartH)*capShare/maxShare
		p(`<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="red" stroke-dasharray="4 3"/>`+"\n", x0, cy, x0+chartW, cy)
		p(`<text x="%d" y="%.1f" text-anchor="end" fill="red" font-size="9">%s RU/s</text>`+"\n", x0+chartW, cy-3, fmtInt(int64(wr.CapacityRU)))
		p(`<text x="%d" y="%d" fill="#555" font-size="10">hot key %s</text>`+"\n", x0, y1+chartH+14, html.EscapeString(fmtKey(wr.Hottest.Key)))
	}
	p("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
