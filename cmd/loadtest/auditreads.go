package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// What an auditor waits for: the verification of a long history, checked
// against the transparency log, and the export of a longer one. Each
// build's handler is seeded with the same histories, then every round
// sends each request to each build in turn, so that the builds share the
// machine's load, and the medians of the rounds are compared.
const (
	verifyVersions = 1000
	// verifyShort is the shorter history whose verification, times
	// verifyVersions/verifyShort, shows whether verify is linear.
	verifyShort    = 250
	exportVersions = 10000
	auditRounds    = 5
)

// auditResult is one build's audit reads, a sample a round.
type auditResult struct {
	verify, verifyShort, export []time.Duration
	exportBytes                 int64
}

// auditReads measures the audit reads of every build, each handler with
// its data in tmp.
func auditReads(bs []build, tmp string) ([]auditResult, error) {
	type seeded struct {
		p                 *proc
		long, short, huge string // the todos of verifyVersions, verifyShort and exportVersions versions
	}
	c := newClient(4)
	c.Timeout = 2 * time.Minute
	hs := make([]seeded, len(bs))
	for i, b := range bs {
		fmt.Fprintf(os.Stderr, "loadtest: seeding %s's audit histories\n", b.name)
		p, err := startHandler(b.bin, filepath.Join(tmp, fmt.Sprint("audit", i)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.name, err)
		}
		defer p.stop()
		h := seeded{p: p}
		for _, x := range []struct {
			id *string
			n  int64
		}{{&h.long, verifyVersions}, {&h.short, verifyShort}, {&h.huge, exportVersions}} {
			if *x.id, err = history(c, p.base, x.n); err != nil {
				return nil, fmt.Errorf("%s: %w", b.name, err)
			}
		}
		for _, id := range []string{h.long, h.short, h.huge} {
			if err := waitLogged(c, p.base, id); err != nil {
				return nil, fmt.Errorf("%s: %w", b.name, err)
			}
		}
		hs[i] = h
	}
	out := make([]auditResult, len(bs))
	for range auditRounds {
		for i, h := range hs {
			r := &out[i]
			for _, x := range []struct {
				id  string
				n   int
				got *[]time.Duration
			}{{h.long, verifyVersions, &r.verify}, {h.short, verifyShort, &r.verifyShort}} {
				took, err := timedVerify(c, h.p.base, x.id, x.n)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", bs[i].name, err)
				}
				*x.got = append(*x.got, took)
			}
			start := time.Now()
			n, err := drain(c, h.p.base+"/api/todos/"+h.huge+"/history/export")
			if err != nil {
				return nil, fmt.Errorf("%s: export: %w", bs[i].name, err)
			}
			r.export, r.exportBytes = append(r.export, time.Since(start)), n
		}
	}
	return out, nil
}

// history creates a todo with n versions, written one after another.
func history(c *http.Client, base string, n int64) (string, error) {
	id, _, _, err := seed(c, base)
	if err != nil {
		return "", err
	}
	for v := int64(2); v <= n; v++ {
		if err := putTodo(c, base+"/api/todos/"+id, v); err != nil {
			return "", err
		}
	}
	return id, nil
}

// verification is what GET .../history/verify answers, as far as the
// measure reads it.
type verification struct {
	Verified bool `json:"verified"`
	Versions int  `json:"versions"`
	Logged   *int `json:"logged"`
}

// waitLogged waits, for at most two minutes, until the log's latest
// checkpoint holds every version of the todo id, so that each verify
// checks every version against the log.
func waitLogged(c *http.Client, base, id string) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		v, err := getVerify(c, base, id)
		if err != nil {
			return err
		}
		if v.Verified && v.Logged != nil && *v.Logged == v.Versions {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("todo %s: %d of %d versions in the log after two minutes", id, deref(v.Logged), v.Versions)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func getVerify(c *http.Client, base, id string) (verification, error) {
	var v verification
	b, err := fetchBody(c, base+"/api/todos/"+id+"/history/verify")
	if err != nil {
		return v, err
	}
	return v, json.Unmarshal(b, &v)
}

// timedVerify verifies the history of id, which must be n versions all in
// the log, and returns how long the answer took.
func timedVerify(c *http.Client, base, id string, n int) (time.Duration, error) {
	start := time.Now()
	v, err := getVerify(c, base, id)
	took := time.Since(start)
	if err == nil && (!v.Verified || v.Versions != n || deref(v.Logged) != n) {
		err = fmt.Errorf("verify of %s: %+v, want %d versions verified and logged", id, v, n)
	}
	return took, err
}

// drain reads url's answer to its end and returns its length.
func drain(c *http.Client, url string) (int64, error) {
	resp, err := c.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %d", url, resp.StatusCode)
	}
	return io.Copy(io.Discard, resp.Body)
}

// reportAudit prints the audit reads of every build, the first judged
// against its bars relative to the second when there is one.
func reportAudit(bs []build, rs []auditResult) {
	fmt.Printf("\naudit reads (median of %d rounds, the builds' requests alternating)\n", auditRounds)
	fmt.Printf("%-46s", "measure")
	for _, b := range bs {
		fmt.Printf(" %18s", b.name)
	}
	fmt.Printf(" %22s\n", "bar")
	med := func(ds []time.Duration) time.Duration {
		s := slices.Sorted(slices.Values(ds))
		return s[len(s)/2]
	}
	line := func(name string, of func(r auditResult) float64, format string, bar string, limit float64) {
		fmt.Printf("%-46s", name)
		for _, r := range rs {
			fmt.Printf(" %18s", fmt.Sprintf(format, of(r)))
		}
		if len(rs) < 2 || bar == "" {
			fmt.Println()
			return
		}
		ratio := of(rs[0]) / of(rs[1])
		verdict := "PASS"
		if ratio > limit {
			verdict = "FAIL"
		}
		fmt.Printf(" %22s %s (%.2f)\n", fmt.Sprintf(bar, bs[1].name), verdict, ratio)
	}
	seconds := func(of func(r auditResult) []time.Duration) func(r auditResult) float64 {
		return func(r auditResult) float64 { return med(of(r)).Seconds() }
	}
	line(fmt.Sprintf("verify of %d versions (s)", verifyVersions), seconds(func(r auditResult) []time.Duration { return r.verify }),
		"%.3f", "<= 0.35 of %s", 0.35)
	line(fmt.Sprintf("verify, %d / %d versions (linear: %d)", verifyVersions, verifyShort, verifyVersions/verifyShort), func(r auditResult) float64 {
		return med(r.verify).Seconds() / med(r.verifyShort).Seconds()
	}, "%.2f", "", 0)
	line(fmt.Sprintf("export of %d records (s)", exportVersions), seconds(func(r auditResult) []time.Duration { return r.export }),
		"%.3f", "<= 0.4 of %s", 0.4)
	line(fmt.Sprintf("export of %d records (MB)", exportVersions), func(r auditResult) float64 { return float64(r.exportBytes) / 1e6 },
		"%.1f", "<= 0.4 of %s", 0.4)
}
