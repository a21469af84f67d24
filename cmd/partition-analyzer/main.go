// Command partition-analyzer chooses a partition scheme from data: it reads
// a JSON Lines export of the todo container (or generates a seeded
// synthetic workload) and reports, for each scheme, logical partition
// sizes against the 20 GB limit, write skew and throttling of physical
// partitions, the RU cost of each query pattern, and a recommendation.
//
//	partition-analyzer [analyze] [flags] [FILE | -]   analyse an export (or --generate)
//	partition-analyzer generate [flags] > todos.jsonl  write a synthetic workload as an export
//	partition-analyzer export --data-dir .data --container todos > todos.jsonl
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/todoaudit/todo/bolt"
	"github.com/todoaudit/todo/cmd/partition-analyzer/analyze"
	"github.com/todoaudit/todo/partition"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "partition-analyzer:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ error }

func run(args []string, stdin io.Reader, stdout io.Writer, stderr *os.File) error {
	cmd := "analyze"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "analyze", "generate", "export":
			cmd, args = args[0], args[1:]
		case "help":
			args = []string{"-h"}
		}
	}
	switch cmd {
	case "generate":
		return generate(args, stdout, stderr)
	case "export":
		return export(args, stdout, stderr)
	}
	return analyzeCmd(args, stdin, stdout, stderr)
}

// workloadFlags registers the generator's parameters.
func workloadFlags(fs *flag.FlagSet) *analyze.Workload {
	w := analyze.DefaultWorkload()
	fs.Uint64Var(&w.Seed, "seed", w.Seed, "random seed: the same seed and parameters give the same workload")
	fs.IntVar(&w.Users, "users", w.Users, "number of users")
	fs.IntVar(&w.Categories, "categories", w.Categories, "number of categories")
	fs.Int64Var(&w.Todos, "todos", w.Todos, "number of todos")
	fs.Float64Var(&w.UserSkew, "user-skew", w.UserSkew, "Zipf exponent of todos per user (0 = every user alike, 1 = the k-th busiest has 1/k of the busiest's)")
	fs.Float64Var(&w.HotUserShare, "hot-user", w.HotUserShare, "share of all todos owned by one dominant user (0 to 1)")
	fs.Float64Var(&w.CategorySkew, "category-skew", w.CategorySkew, "Zipf exponent of category popularity")
	fs.Float64Var(&w.UpdatesPerTodo, "updates", w.UpdatesPerTodo, "mean updates per todo after its create")
	fs.Int64Var(&w.ItemBytes, "item-size", w.ItemBytes, "mean todo document size in bytes")
	fs.DurationVar(&w.Span, "span", w.Span, "time over which the todos are created")
	fs.DurationVar(&w.Retention, "retention", w.Retention, "version document TTL (VERSION_TTL_SECONDS)")
	return &w
}

func analyzeCmd(args []string, stdin io.Reader, stdout io.Writer, stderr *os.File) error {
	fs := flag.NewFlagSet("partition-analyzer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage:
  partition-analyzer [analyze] [flags] [FILE | -]     analyse a JSON Lines export of the todo container
  partition-analyzer [analyze] --generate [flags]      analyse a generated workload
  partition-analyzer generate [flags] > todos.jsonl    write a generated workload as an export
  partition-analyzer export --data-dir .data --container todos > todos.jsonl

flags of analyze (generator flags as for generate):
`)
		fs.PrintDefaults()
	}
	o := analyze.DefaultOptions()
	w := workloadFlags(fs)
	gen := fs.Bool("generate", false, "analyse a generated workload instead of a file")
	scheme := fs.String("scheme", "", "evaluate only this scheme: "+strings.Join(partition.Names, ", ")+" (default all)")
	fs.IntVar(&o.Buckets, "buckets", o.Buckets, "SYNTHETIC_BUCKETS of the synthetic scheme (1 to 100)")
	fs.Float64Var(&o.Throughput, "throughput", o.Throughput, "provisioned (or autoscale maximum) RU/s: sets the physical partition count")
	fs.Float64Var(&o.Demand, "demand", 0, "peak write load to test in RU/s (default half the throughput)")
	growth := fs.Float64("growth", o.GrowthPerMonth*100, "data growth in percent a month, for when the largest partition reaches 20 GB")
	fs.Float64Var(&o.HorizonMonths, "horizon", o.HorizonMonths, "months ahead in which reaching 20 GB rules a scheme out")
	fs.IntVar(&o.PageSize, "page-size", o.PageSize, "page size of list queries")
	fs.Float64Var(&o.ReadBudget, "read-budget", o.ReadBudget, "most RU a typical user's query may cost before it rules a scheme out")
	fs.IntVar(&o.ActivityMonths, "activity-months", o.ActivityMonths, "time range of the activity page estimate: the workload's last this many calendar months (generated workloads)")
	fs.IntVar(&o.ActivityPageSize, "activity-page-size", o.ActivityPageSize, "page size of the activity page estimate")
	overhead := fs.Int64("doc-overhead", 0, "bytes to add to each exported line (system properties and index space it does not show)")
	strict := fs.Bool("strict", false, "refuse the input at its first malformed line instead of skipping and reporting it")
	asJSON := fs.Bool("json", false, "write the report as JSON")
	svg := fs.String("svg", "", "also draw the chart to this SVG file")
	progress := fs.Bool("progress", false, "show a progress bar on stderr even when it is not a terminal")
	stats := fs.Bool("stats", false, "print elapsed time and peak memory to stderr")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	o.GrowthPerMonth = *growth / 100
	if *scheme != "" {
		o.Schemes = []string{*scheme}
	}
	if *gen == (fs.NArg() == 1) || fs.NArg() > 1 {
		return usageError{errors.New("give one input: a FILE (or - for stdin), or --generate")}
	}
	begin := time.Now()
	a, err := analyze.New(o)
	if err != nil {
		return usageError{err}
	}
	var in analyze.InputSummary
	if *gen {
		in, err = analyzeGenerated(a, w, stderr, *progress)
	} else {
		in, err = analyzeFile(a, fs.Arg(0), stdin, stderr, analyze.ReadOptions{Strict: *strict, DocOverhead: *overhead}, *progress)
	}
	if err != nil {
		return err
	}
	rep := a.Finish()
	rep.Input.Source, rep.Input.Read, rep.Input.Workload = in.Source, in.Read, in.Workload
	if *svg != "" {
		if err := writeFile(*svg, rep.WriteSVG); err != nil {
			return err
		}
	}
	if *asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if *stats {
		fmt.Fprintf(stderr, "partition-analyzer: %s documents in %s, peak RSS %s\n",
			fmtInt(rep.Input.Documents), time.Since(begin).Round(time.Millisecond), peakRSS())
	}
	return err
}

// analyzeGenerated adds the workload w generates to a, with a progress
// bar on stderr, and says where the input came from.
func analyzeGenerated(a *analyze.Analyzer, w *analyze.Workload, stderr *os.File, progress bool) (analyze.InputSummary, error) {
	var in analyze.InputSummary
	if err := w.Check(); err != nil {
		return in, usageError{err}
	}
	bar := analyze.NewProgress(stderr, w.Todos, "todos", progress)
	var n int64
	err := w.Generate(func(r *analyze.Record) {
		a.Add(r)
		if n++; n&0xfff == 0 {
			bar.Set(n)
		}
	})
	bar.Done()
	if err != nil {
		return in, err
	}
	in.Source = fmt.Sprintf("generated: %s todos, %s users (skew %g, hot user %g), %d categories (skew %g), %g updates/todo, %d B items, %s span, %s retention, seed %d",
		fmtInt(w.Todos), fmtInt(int64(w.Users)), w.UserSkew, w.HotUserShare, w.Categories, w.CategorySkew, w.UpdatesPerTodo, w.ItemBytes, days(w.Span), days(w.Retention), w.Seed)
	in.Workload = w
	return in, nil
}

// analyzeFile adds the export named name (stdin for -) to a, with a
// progress bar on stderr, reporting the malformed lines it skips there,
// and says where the input came from.
func analyzeFile(a *analyze.Analyzer, name string, stdin io.Reader, stderr *os.File, o analyze.ReadOptions, progress bool) (analyze.InputSummary, error) {
	var in analyze.InputSummary
	r, size := stdin, int64(0)
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return in, err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
		}
		r = f
	}
	bar := analyze.NewProgress(stderr, size, "bytes", progress)
	o.Progress = bar.Set
	res, err := analyze.ReadJSONL(r, o, a.Add)
	bar.Done()
	for _, e := range res.Errors {
		fmt.Fprintf(stderr, "partition-analyzer: %s: skipped %s\n", name, e)
	}
	if res.Malformed > int64(len(res.Errors)) {
		fmt.Fprintf(stderr, "partition-analyzer: %s: %d malformed lines skipped in all\n", name, res.Malformed)
	}
	if err != nil {
		return in, fmt.Errorf("%s: %w", name, err)
	}
	in.Source, in.Read = name, res
	return in, nil
}

func days(d time.Duration) string { return strconv.Itoa(int(d.Hours()/24)) + "d" }

func fmtInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// peakRSS is the process's peak resident set (VmHWM) where /proc has it,
// else the Go runtime's view of memory obtained from the system.
func peakRSS() string {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "VmHWM:") {
				return strings.Join(strings.Fields(strings.TrimPrefix(l, "VmHWM:")), " ")
			}
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return fmt.Sprintf("%d MB (runtime Sys)", m.Sys>>20)
}

func writeFile(name string, write func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func generate(args []string, stdout io.Writer, stderr *os.File) error {
	fs := flag.NewFlagSet("partition-analyzer generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	w := workloadFlags(fs)
	scheme := fs.String("scheme", partition.Hierarchical, "scheme whose ids and partitionKey the documents get")
	buckets := fs.Int("buckets", analyze.DefaultOptions().Buckets, "SYNTHETIC_BUCKETS for --scheme synthetic")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("generate takes no arguments, got %q", fs.Args())}
	}
	if _, err := partition.New(*scheme, *buckets, nil); err != nil {
		return usageError{err}
	}
	if err := w.Check(); err != nil {
		return usageError{err}
	}
	return w.WriteJSONL(stdout, *scheme, *buckets)
}

func export(args []string, stdout io.Writer, stderr *os.File) error {
	fs := flag.NewFlagSet("partition-analyzer export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("data-dir", envOr("DATA_DIR", "./.data"), "embedded store directory (DATA_DIR)")
	container := fs.String("container", envOr("COSMOS_TODO_CONTAINER", "todos"), "container to export")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("export takes no arguments, got %q", fs.Args())}
	}
	// Opening creates a store; refuse a directory that has none.
	if _, err := os.Stat(filepath.Join(*dir, "store.db")); err != nil {
		return fmt.Errorf("no embedded store in %s: %w", *dir, err)
	}
	st, err := bolt.Open(*dir, nil, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	ctx := context.Background()
	c, err := st.Container(ctx, *container)
	if err != nil {
		return err
	}
	n, err := analyze.Export(ctx, c, stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "partition-analyzer: exported %s documents of %s\n", fmtInt(n), *container)
	return nil
}

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}
