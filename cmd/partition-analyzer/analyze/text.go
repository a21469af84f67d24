package analyze

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

func fmtInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func fmtBytes(n int64) string {
	f := float64(n)
	for _, u := range []string{"B", "KB", "MB", "GB", "TB"} {
		if f < 1024 || u == "TB" {
			if u == "B" {
				return fmt.Sprintf("%d B", n)
			}
			return fmt.Sprintf("%.1f %s", f, u)
		}
		f /= 1024
	}
	return ""
}

func fmtKey(k []string) string {
	q := make([]string, len(k))
	for i, s := range k {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func fmtMonths(m float64) string {
	switch {
	case m > 1200:
		return "over 100 years"
	case m >= 24:
		return fmt.Sprintf("%.0f years", m/12)
	case m >= 1:
		return fmt.Sprintf("%.0f months", math.Floor(m))
	}
	return fmt.Sprintf("%.0f days", m*30.4)
}

func fmtRU(v float64) string {
	if v >= 1000 {
		return fmtInt(int64(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report as a terminal table, one column per scheme.
func (r *Report) WriteText(w io.Writer) error {
	r.writeInput(w)
	if err := r.writeTable(w); err != nil {
		return err
	}
	r.writeFindings(w)
	r.writeActivity(w)
	return r.writeRecommendation(w)
}

// writeInput writes what was analysed and what was asked.
func (r *Report) writeInput(w io.Writer) {
	in := r.Input
	fmt.Fprintf(w, "Workload: %s\n", in.Source)
	fmt.Fprintf(w, "  %s todos of %s users in %s categories; %s version and %s sequence documents; %s stored\n",
		fmtInt(in.Todos), fmtInt(int64(in.Users)), fmtInt(int64(in.Categories)), fmtInt(in.Versions), fmtInt(in.Sequences), fmtBytes(in.Bytes))
	fmt.Fprintf(w, "  %s writes costing %s RU\n", fmtInt(in.Writes), fmtRU(in.WriteRU))
	if in.Read.Malformed > 0 {
		fmt.Fprintf(w, "  %s malformed lines skipped:\n", fmtInt(in.Read.Malformed))
		for _, e := range in.Read.Errors {
			fmt.Fprintf(w, "    line %d: %s\n", e.Line, e.Reason)
		}
		if int64(len(in.Read.Errors)) < in.Read.Malformed {
			fmt.Fprintf(w, "    ... and %s more\n", fmtInt(in.Read.Malformed-int64(len(in.Read.Errors))))
		}
	}
	o := r.Options
	fmt.Fprintf(w, "Asked: %s RU/s provisioned, %s RU/s of writes, %.0f%% growth a month, %.0f-month horizon, pages of %d\n\n",
		fmtInt(int64(o.Throughput)), fmtInt(int64(o.Demand)), o.GrowthPerMonth*100, o.HorizonMonths, o.PageSize)
}

// writeTable writes the schemes side by side: their logical partitions,
// writes and reads.
func (r *Report) writeTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(label string, f func(s *SchemeReport) string) {
		fmt.Fprint(tw, label)
		for i := range r.Schemes {
			fmt.Fprint(tw, "\t", f(&r.Schemes[i]))
		}
		fmt.Fprintln(tw, "\t")
	}
	row("", func(s *SchemeReport) string { return s.Label })
	row("partition key", func(s *SchemeReport) string { return strings.Join(s.Paths, ", ") })
	row("LOGICAL PARTITIONS", func(*SchemeReport) string { return "" })
	row("  count", func(s *SchemeReport) string { return fmtInt(int64(s.Logical.Count)) })
	row("  size p50 / p99", func(s *SchemeReport) string {
		return fmtBytes(s.Logical.P50Bytes) + " / " + fmtBytes(s.Logical.P99Bytes)
	})
	row("  largest", func(s *SchemeReport) string {
		return fmtBytes(s.Logical.Largest.Bytes) + " " + fmtKey(s.Logical.Largest.Key)
	})
	row("  of 20 GB limit", func(s *SchemeReport) string { return fmt.Sprintf("%.3g%%", s.Logical.OfLimit*100) })
	row("  reaches 20 GB in", func(s *SchemeReport) string {
		if s.Logical.MonthsToLimit == nil {
			return "never (no growth)"
		}
		return fmtMonths(*s.Logical.MonthsToLimit)
	})
	row("WRITES", func(*SchemeReport) string { return "" })
	row("  hottest logical", func(s *SchemeReport) string {
		return fmt.Sprintf("%.1f%% %s", s.Writes.Hottest.Share*100, fmtKey(s.Writes.Hottest.Key))
	})
	row("  its load", func(s *SchemeReport) string {
		t := fmtInt(int64(s.Writes.HottestRU)) + " RU/s"
		if s.Writes.OverLimit {
			t += " OVER 10,000"
		}
		return t
	})
	row("  physical partitions", func(s *SchemeReport) string { return fmtInt(int64(s.Writes.Partitions)) })
	row("  hottest physical", func(s *SchemeReport) string {
		t := fmt.Sprintf("%s of %s RU/s", fmtInt(int64(s.Writes.HottestLoad)), fmtInt(int64(s.Writes.CapacityRU)))
		if s.Writes.Throttled {
			t += " THROTTLED"
		}
		return t
	})
	row("READS (typical / busiest user)", func(*SchemeReport) string { return "" })
	for i := range r.Schemes[0].Reads {
		row("  "+r.Schemes[0].Reads[i].Pattern, func(s *SchemeReport) string {
			q := s.Reads[i]
			if q.Optional {
				return fmt.Sprintf("%s RU, %s req", fmtRU(q.Typical.RU), fmtInt(int64(q.Typical.Requests)))
			}
			return fmt.Sprintf("%s / %s RU, %s", fmtRU(q.Typical.RU), fmtRU(q.Busiest.RU), q.Scope)
		})
	}
	return tw.Flush()
}

// writeFindings writes each scheme's problems and warnings.
func (r *Report) writeFindings(w io.Writer) {
	for _, s := range r.Schemes {
		for _, p := range s.Problems {
			fmt.Fprintf(w, "\n%s: PROBLEM: %s", s.Label, p)
		}
		for _, p := range s.Warnings {
			fmt.Fprintf(w, "\n%s: warning: %s", s.Label, p)
		}
	}
}

// writeActivity writes the activity page estimate, when there is one.
func (r *Report) writeActivity(w io.Writer) {
	act := r.Activity
	if act == nil {
		return
	}
	fmt.Fprintf(w, "\n\nActivity pages, %s to %s, %d records a page (audit container: %s records, %s, %d physical partitions):\n",
		act.Since.Format(time.DateOnly), act.Until.Format(time.DateOnly), act.PageSize, fmtInt(act.Records), fmtBytes(act.Bytes), act.Partitions)
	for _, q := range act.Queries {
		for _, u := range []struct {
			label string
			ActivityUser
		}{{"typical", q.Typical}, {"busiest", q.Busiest}} {
			fmt.Fprintf(w, "  %s, %s user %s (%s records in range): before the view %s RU (%s req, %s loaded), view %s RU (%s req, %s items)\n",
				q.Pattern, u.label, u.User, fmtInt(u.Records), fmtRU(u.Before.RU), fmtInt(int64(u.Before.Requests)), fmtInt(u.Before.Loaded),
				fmtRU(u.After.RU), fmtInt(int64(u.After.Requests)), fmtInt(u.After.Items))
		}
	}
}

// writeRecommendation writes the recommended scheme, why, and the model
// the figures follow.
func (r *Report) writeRecommendation(w io.Writer) error {
	rec := r.Recommendation
	fmt.Fprintf(w, "\n\nRecommendation: %s\n", rec.Scheme)
	for _, s := range rec.Reasons {
		fmt.Fprintf(w, "  - %s\n", s)
	}
	if len(rec.Others) > 0 {
		fmt.Fprintln(w, "Instead of:")
		for _, s := range rec.Others {
			fmt.Fprintf(w, "  - %s\n", s)
		}
	}
	fmt.Fprintln(w, "Model:")
	for _, s := range r.Model {
		fmt.Fprintf(w, "  - %s\n", s)
	}
	_, err := fmt.Fprintln(w)
	return err
}
